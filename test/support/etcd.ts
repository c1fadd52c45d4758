// A throwaway etcd for tests: `etcd` from PATH or /usr/bin (Debian's etcd-server, scripts/install-etcd.sh)
// on free loopback ports, data in a temporary directory removed on stop. Tests skip when no binary is found,
// unless KUBELOOM_REQUIRE_ETCD is set (CI), which makes the absence an error.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The etcd binary to run, or undefined. */
export function etcdBinary(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin']) {
    const file = path.join(dir, 'etcd');
    if (dir !== '' && existsSync(file)) return file;
  }
  return undefined;
}

/** Why etcd tests skip (undefined: they run). Throws when KUBELOOM_REQUIRE_ETCD is set and there is no etcd. */
export function etcdSkipReason(): string | undefined {
  if (etcdBinary() !== undefined) return undefined;
  if (process.env.KUBELOOM_REQUIRE_ETCD !== undefined && process.env.KUBELOOM_REQUIRE_ETCD !== '') throw new Error('KUBELOOM_REQUIRE_ETCD is set but no etcd binary was found (run scripts/install-etcd.sh)');
  return 'no etcd binary (install Debian etcd-server: scripts/install-etcd.sh)';
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** A running test etcd. */
export interface TestEtcd {
  /** Its client URL. */
  readonly url: string;
  /** Stops it (SIGTERM) and starts it again on the same data and ports: every connection to it breaks. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts an etcd on free loopback ports and waits until it answers. */
export async function startTestEtcd(): Promise<TestEtcd> {
  const bin = etcdBinary();
  if (bin === undefined) throw new Error('no etcd binary');
  const dir = mkdtempSync(path.join(tmpdir(), 'kubeloom-etcd-'));
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const args = ['--name', 'test', '--data-dir', dir, '--listen-client-urls', url, '--advertise-client-urls', url, '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`, '--initial-cluster', `test=http://127.0.0.1:${peer}`, '--log-level', 'error'];
  const launch = async (): Promise<{ child: ChildProcess; exited: Promise<void> }> => {
    const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    for (let i = 0; ; i++) {
      try {
        const r = await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('x').toString('base64') }) });
        if (r.ok) break;
      } catch {
        // not up yet
      }
      if (child.exitCode !== null || i > 400) {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`etcd did not start: ${stderr}`);
      }
      await sleep(50);
    }
    return { child, exited };
  };
  let running = await launch();
  return {
    url,
    async restart() {
      running.child.kill('SIGTERM');
      await running.exited;
      running = await launch();
    },
    async stop() {
      running.child.kill('SIGTERM');
      await running.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
