// Starts `kubeloom apiserver --bare --data-dir DIR` as a child process, for the crash-safety tests that
// kill it with SIGKILL and start it again on the same directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const main = join(import.meta.dirname, '..', '..', 'src', 'cli', 'main.ts');

/** A started server: the child process, its URL, and what it printed until it was listening. */
export interface DataDirServer {
  /** The `kubeloom apiserver` process. */
  child: ChildProcess;
  /** Its http://127.0.0.1:PORT URL. */
  url: string;
  /** Its stdout and stderr until the "listening on" line. */
  out: string;
}

/** Starts `kubeloom apiserver --port 0 --bare --data-dir DIR`; resolves once it listens, rejects if it exits first. */
export async function startDataDirServer(dir: string): Promise<DataDirServer> {
  const child = spawn(process.execPath, [main, 'apiserver', '--port', '0', '--bare', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (out += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
  });
  return { child, url, out };
}
