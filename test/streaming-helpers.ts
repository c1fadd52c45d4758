/**
 * Test doubles for the embedded API server's streaming endpoints: a container with an in-memory file
 * system that understands the commands `kubectl cp` and kubeloom's cp run (`test -d`, `tar cf -`,
 * `tar -xmf - -C`), plus `cat` and `echo`, and helpers to create running pods.
 */
import { posix } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { once } from 'node:events';
import { pack as tarPack, extract as tarExtract } from 'tar-stream';
import type { ApiServer, ContainerHandler, ExecSession } from '../src/testing/index.ts';
import { call } from './apiserver-helpers.ts';

/** Writes `data` honouring backpressure. */
export async function writeAll(w: Writable, data: Buffer | string): Promise<void> {
  if (!w.write(data)) await once(w, 'drain');
}

/** A container file system: absolute paths to contents; directories are explicit entries. */
export class FakeContainer {
  readonly files = new Map<string, Buffer>();
  readonly dirs = new Set<string>(['/']);

  writeFile(path: string, content: Buffer | string): void {
    const p = posix.normalize(path);
    this.files.set(p, Buffer.from(content));
    for (let d = posix.dirname(p); ; d = posix.dirname(d)) {
      this.dirs.add(d);
      if (d === '/') break;
    }
  }

  isDir(path: string): boolean {
    return this.dirs.has(posix.normalize(path));
  }

  /** The handler to install for the container. */
  readonly handler: ContainerHandler = async (s) => this.#run(s);

  async #run(s: ExecSession): Promise<number> {
    const [cmd, ...args] = s.command;
    if (cmd === 'test' && args[0] === '-d') return this.isDir(args[1] ?? '') ? 0 : 1;
    if (cmd === 'echo') {
      await writeAll(s.stdout!, `${args.join(' ')}\n`);
      return 0;
    }
    if (cmd === 'cat') {
      if (s.stdin !== undefined) for await (const c of s.stdin) await writeAll(s.stdout!, c as Buffer);
      return 0;
    }
    if (cmd === 'tar' && args[0] === 'cf' && args[1] === '-') return this.#tarCreate(s, args[2] ?? '');
    if (cmd === 'tar' && args.includes('-xmf')) {
      const c = args.indexOf('-C');
      return this.#tarExtract(s, c >= 0 ? args[c + 1]! : '/');
    }
    await writeAll(s.stderr ?? s.stdout!, `${cmd ?? ''}: command not found\n`);
    return 127;
  }

  async #tarCreate(s: ExecSession, path: string): Promise<number> {
    const root = posix.normalize(path);
    const names = [...this.files.keys()].filter((f) => f === root || f.startsWith(`${root}/`)).sort();
    if (names.length === 0 && !this.isDir(root)) {
      await writeAll(s.stderr!, `tar: ${path}: Cannot stat: No such file or directory\n`);
      return 2;
    }
    const tar = tarPack();
    const out = Readable.from(tar);
    const piped = (async () => {
      for await (const c of out) await writeAll(s.stdout!, c as Buffer);
    })();
    for (const n of names) {
      const content = this.files.get(n)!;
      // GNU tar drops the leading '/'.
      await new Promise<void>((resolve, reject) => tar.entry({ name: n.replace(/^\/+/, ''), size: content.length }, content, (err) => (err ? reject(err) : resolve())));
    }
    tar.finalize();
    await piped;
    return 0;
  }

  async #tarExtract(s: ExecSession, dir: string): Promise<number> {
    const extract = tarExtract();
    const done = new Promise<void>((resolve, reject) => {
      extract.on('entry', (header, stream, next) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: unknown) => chunks.push(c as Buffer));
        stream.on('end', () => {
          const target = posix.join(dir, header.name);
          if (header.type === 'directory') this.dirs.add(posix.normalize(target));
          else if (header.type === 'file') this.writeFile(target, Buffer.concat(chunks));
          next();
        });
      });
      extract.on('finish', () => resolve());
      extract.on('error', reject);
    });
    for await (const c of s.stdin!) {
      if (!extract.write(c as Buffer)) await once(extract as never, 'drain');
    }
    (extract as unknown as { end(): void }).end();
    await done;
    return 0;
  }
}

/** Creates a pod with the given containers and marks it Running (kubectl port-forward wants that). */
export async function createRunningPod(server: ApiServer, namespace: string, name: string, containers: string[] = ['app'], token?: string): Promise<void> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const created = await call(server, 'POST', `/api/v1/namespaces/${namespace}/pods`, { headers, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: containers.map((c) => ({ name: c, image: 'busybox' })) } } });
  if (created.status !== 201) throw new Error(`create pod: ${created.status} ${JSON.stringify(created.body)}`);
  const pod = created.body as { status?: unknown };
  pod.status = { phase: 'Running' };
  const updated = await call(server, 'PUT', `/api/v1/namespaces/${namespace}/pods/${name}/status`, { headers, body: pod });
  if (updated.status !== 200) throw new Error(`set pod status: ${updated.status}`);
}
