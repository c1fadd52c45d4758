/**
 * kubectl exec, port-forward (WebSocket tunnel and the SPDY fallback) and cp against the embedded API
 * server, and `kubeloom apiserver --pod-handlers` loading handlers from a module. The kubectl tests
 * skip (with a message) only when no kubectl is installed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { RestClient } from '../src/rest/client.ts';
import { exec as kubeExec } from '../src/tools/remotecommand/index.ts';
import { FakeContainer, createRunningPod, writeAll } from './streaming-helpers.ts';
import { findKubectl } from './support/kubectl.ts';

const kubectl = await findKubectl();
const skip = kubectl === undefined ? 'kubectl is not installed' : false;
let server: ApiServer;
let dir: string;
let env: NodeJS.ProcessEnv;
let echo: Server;
const fs = new FakeContainer();

before(async () => {
  echo = createServer({ allowHalfOpen: true }, (s) => {
    s.on('error', () => undefined);
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  server = await startApiServer();
  dir = await mkdtemp(join(tmpdir(), 'kubeloom-kubectl-stream-'));
  await server.writeKubeconfig(join(dir, 'kubeconfig'));
  env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  await createRunningPod(server, 'default', 'web');
  await createRunningPod(server, 'default', 'files');
  server.setPodHandler('default', 'files', { containers: { app: fs.handler } });
  server.setPodHandler('default', 'web', {
    containers: {
      app: async (s) => {
        const [cmd, ...args] = s.command;
        if (cmd === 'cat') {
          for await (const c of s.stdin!) await writeAll(s.stdout!, c as Buffer);
          return 0;
        }
        if (cmd === 'exit') return Number(args[0]);
        await writeAll(s.stdout!, `ran ${s.command.join(' ')}\n`);
        await writeAll(s.stderr!, 'to stderr\n');
        return 0;
      },
    },
    ports: { 7: { port: (echo.address() as { port: number }).port } },
  });
});

after(async () => {
  await server.stop();
  echo.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs kubectl; resolves with its output even when it exits non-zero. */
async function k(args: string[], input?: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(kubectl!, ['--cache-dir', join(dir, 'cache'), ...args], { env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdin.end(input ?? '');
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code: code ?? 1, stdout, stderr };
}

test('kubectl exec streams stdin, stdout and stderr over v5.channel.k8s.io and returns the exit code', { skip }, async () => {
  const echoed = await k(['exec', '-i', 'web', '--', 'cat'], 'hello through kubectl\n');
  assert.equal(echoed.code, 0, echoed.stderr);
  assert.equal(echoed.stdout, 'hello through kubectl\n');
  const plain = await k(['exec', 'web', '--', 'ls', '-l', '/']);
  assert.equal(plain.stdout, 'ran ls -l /\n');
  assert.equal(plain.stderr, 'to stderr\n');
  const failed = await k(['exec', 'web', '--', 'exit', '3']);
  assert.equal(failed.code, 3);
  assert.match(failed.stderr, /command terminated with exit code 3/);
  const badContainer = await k(['exec', 'web', '-c', 'db', '--', 'ls']);
  assert.equal(badContainer.code, 1);
  assert.match(badContainer.stderr, /Error from server \(BadRequest\): container db is not valid for pod web/);
  const verbose = await k(['exec', '-v=6', 'web', '--', 'ls']);
  assert.match(verbose.stderr, /The subprotocol is v5\.channel\.k8s\.io/);
});

async function kubectlPortForward(extraEnv: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number; log: () => string }> {
  const child = spawn(kubectl!, ['port-forward', '-v=6', '--address', '127.0.0.1', 'pod/web', ':7'], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /Forwarding from 127\.0\.0\.1:(\d+) -> 7/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`kubectl port-forward exited with ${code}: ${err}`)));
  });
  return { child, port, log: () => err };
}

async function roundTrip(port: number, data: Buffer): Promise<Buffer> {
  const s = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  await once(s, 'connect');
  s.end(data);
  await once(s, 'close');
  return Buffer.concat(chunks);
}

for (const [name, extraEnv, marker] of [
  ['SPDY tunnelled over WebSocket (the default)', {}, /negotiated protocol: portforward\.k8s\.io|Sec-Websocket-Protocol: SPDY\/3\.1\+portforward\.k8s\.io/],
  ['SPDY over an HTTP upgrade (KUBECTL_PORT_FORWARD_WEBSOCKETS=false)', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }, /101 Switching Protocols/],
] as const) {
  test(`kubectl port-forward works with ${name}, many connections at once`, { skip }, async () => {
    const { child, port, log } = await kubectlPortForward(extraEnv);
    try {
      const payloads = Array.from({ length: 8 }, (_, i) => Buffer.alloc(200_000, i + 1));
      const replies = await Promise.all(payloads.map((p) => roundTrip(port, p)));
      replies.forEach((r, i) => assert.ok(r.equals(payloads[i]!), `connection ${i}: ${r.length} bytes`));
      assert.match(log(), marker);
    } finally {
      child.kill('SIGINT');
      await once(child, 'exit');
    }
  });
}

test('kubectl cp copies into and out of a container through tar over exec', { skip }, async () => {
  const local = join(dir, 'cp');
  await mkdir(join(local, 'tree', 'nested'), { recursive: true });
  await writeFile(join(local, 'tree', 'a.txt'), 'A');
  await writeFile(join(local, 'tree', 'nested', 'b.txt'), 'B');
  fs.dirs.add('/srv');
  const up = await k(['cp', join(local, 'tree'), 'files:/srv']);
  assert.equal(up.code, 0, up.stderr);
  assert.equal(fs.files.get('/srv/tree/a.txt')?.toString(), 'A');
  assert.equal(fs.files.get('/srv/tree/nested/b.txt')?.toString(), 'B');
  fs.writeFile('/var/log/app.log', 'log line\n');
  const down = await k(['cp', 'files:/var/log/app.log', join(local, 'app.log')]);
  assert.equal(down.code, 0, down.stderr);
  assert.equal(await readFile(join(local, 'app.log'), 'utf8'), 'log line\n');
  const downDir = await k(['cp', 'files:/srv/tree', join(local, 'back')]);
  assert.equal(downDir.code, 0, downDir.stderr);
  assert.equal(await readFile(join(local, 'back', 'nested', 'b.txt'), 'utf8'), 'B');
});

test('kubeloom apiserver --pod-handlers serves exec from the module default export', async () => {
  const moduleDir = await mkdtemp(join(tmpdir(), 'kubeloom-handlers-'));
  const modulePath = join(moduleDir, 'handlers.mjs');
  await writeFile(
    modulePath,
    `export default { '*': { containers: { '*': async ({ command, stdout }) => { stdout.write('module says ' + command.join(' ') + '\\n'); return 0; } } } };\n`,
  );
  const main = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');
  const child = spawn(process.execPath, [main, 'apiserver', '--port', '0', '--pod-handlers', modulePath], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    const client = new RestClient({ host: url });
    await client.json({ verb: 'POST', path: '/api/v1/namespaces/default/pods', query: [], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } }) });
    const chunks: Buffer[] = [];
    const stdout = new Writable({
      write(c: Buffer, _e, cb) {
        chunks.push(c);
        cb();
      },
    });
    await kubeExec(client, { namespace: 'default', pod: 'p', command: ['uname', '-a'], stdout });
    assert.equal(Buffer.concat(chunks).toString(), 'module says uname -a\n');
    await client.close();

    const bad = spawn(process.execPath, [main, 'apiserver', '--pod-handlers', join(moduleDir, 'missing.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let badErr = '';
    bad.stderr.setEncoding('utf8').on('data', (c: string) => (badErr += c));
    const [code] = (await once(bad, 'exit')) as [number];
    assert.equal(code, 2);
    assert.match(badErr, /--pod-handlers/);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit').catch(() => undefined);
    await rm(moduleDir, { recursive: true, force: true });
  }
});
