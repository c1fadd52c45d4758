/**
 * exec, attach and cp against the embedded API server over loopback: output and exit codes, stdin
 * half-close (v5) and its absence (v4), TTY resizing, the typed errors of every refusal, aborts,
 * connections cut mid-transfer, and backpressure on a burst of output.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { startApiServer, type ApiServer, type ExecSession } from '../src/testing/index.ts';
import { RestClient } from '../src/rest/client.ts';
import { UpgradeFailureError } from '../src/rest/websocket.ts';
import { isBadRequest, isForbidden, isNotFound, isUnauthorized, isInternalError } from '../src/apimachinery/errors.ts';
import { attach, copyFromPod, copyToPod, exec, NonZeroExitCodeError, ResizeQueue, StreamClosedError, StreamProtocolV4Name, type TerminalSize } from '../src/tools/remotecommand/index.ts';
import { FakeContainer, createRunningPod, writeAll } from './streaming-helpers.ts';

let server: ApiServer;
let client: RestClient;
const fs = new FakeContainer();

function sink(): Writable & { text(): string; bytes(): number } {
  const chunks: Buffer[] = [];
  const w = new Writable({
    write(c: Buffer, _e, cb) {
      chunks.push(c);
      cb();
    },
  }) as Writable & { text(): string; bytes(): number };
  w.text = () => Buffer.concat(chunks).toString('utf8');
  w.bytes = () => chunks.reduce((n, c) => n + c.length, 0);
  return w;
}

before(async () => {
  server = await startApiServer();
  client = new RestClient({ host: server.url });
  await createRunningPod(server, 'default', 'web', ['app', 'sidecar']);
  await createRunningPod(server, 'default', 'files');
  await createRunningPod(server, 'default', 'lonely');
  server.setPodHandler('default', 'files', { containers: { app: fs.handler } });
  server.setPodHandler('default', 'web', {
    containers: {
      app: async (s: ExecSession) => {
        const [cmd, ...args] = s.command;
        if (s.attach) {
          await writeAll(s.stdout!, 'attached\n');
          return 0;
        }
        if (cmd === 'echo') await writeAll(s.stdout!, `${args.join(' ')}\n`);
        if (cmd === 'both') {
          await writeAll(s.stdout!, 'out\n');
          await writeAll(s.stderr!, 'err\n');
        }
        if (cmd === 'exit') return Number(args[0]);
        if (cmd === 'throw') throw new Error('runtime exploded');
        if (cmd === 'cat') {
          for await (const c of s.stdin!) await writeAll(s.stdout!, c as Buffer);
          await writeAll(s.stdout!, '<eof>\n');
        }
        if (cmd === 'sizes') {
          const seen: TerminalSize[] = [];
          for await (const size of s.resize) {
            seen.push(size);
            if (size.width === 120) break;
          }
          await writeAll(s.stdout!, JSON.stringify(seen));
        }
        return 0;
      },
    },
  });
});

after(async () => {
  await client.close();
  await server.stop();
});

test('exec delivers stdout and stderr separately and resolves on success', async () => {
  const stdout = sink();
  const stderr = sink();
  await exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['both'], stdout, stderr });
  assert.equal(stdout.text(), 'out\n');
  assert.equal(stderr.text(), 'err\n');
});

test('a non-zero exit rejects with NonZeroExitCodeError carrying the code and the Status', async () => {
  const err = await exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['exit', '42'], stdout: sink() }).catch((e: unknown) => e);
  assert.ok(err instanceof NonZeroExitCodeError);
  assert.equal(err.exitCode, 42);
  assert.equal(err.code, 'ERR_KUBE_NON_ZERO_EXIT_CODE');
  assert.equal(err.message, 'command terminated with exit code 42');
  assert.equal(err.status.reason, 'NonZeroExitCode');
});

test('a handler that throws ends the session with a 500 InternalError Status', async () => {
  const err = await exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['throw'], stdout: sink() }).catch((e: unknown) => e);
  assert.ok(isInternalError(err), String(err));
  assert.match((err as Error).message, /error executing command in container: runtime exploded/);
});

test('v5 closes stdin remotely when the local stdin ends', async () => {
  const stdout = sink();
  const stdin = new PassThrough();
  stdin.end('line 1\nline 2\n');
  await exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['cat'], stdin, stdout });
  assert.equal(stdout.text(), 'line 1\nline 2\n<eof>\n');
});

test('v4 is used when it is the only protocol offered; stdin cannot be half-closed there', async () => {
  const stdout = sink();
  await exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['echo', 'over', 'v4'], stdout, protocols: [StreamProtocolV4Name] });
  assert.equal(stdout.text(), 'over v4\n');
  // cat waits for an EOF that v4 cannot send: the session only ends by abort.
  const stdin = new PassThrough();
  stdin.write('hello\n');
  const out = sink();
  const controller = new AbortController();
  const running = exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['cat'], stdin, stdout: out, protocols: [StreamProtocolV4Name], signal: controller.signal });
  stdin.end();
  while (out.text() !== 'hello\n') await new Promise((r) => setImmediate(r));
  const reason = new Error('stop');
  controller.abort(reason);
  await assert.rejects(running, (e) => e === reason);
});

test('attach reaches the container handler with attach set', async () => {
  const stdout = sink();
  await attach(client, { namespace: 'default', pod: 'web', container: 'app', stdout });
  assert.equal(stdout.text(), 'attached\n');
});

test('TTY sessions send the initial size and every queued resize', async () => {
  const queue = new ResizeQueue();
  const stdout = sink();
  const running = exec(client, { namespace: 'default', pod: 'web', container: 'app', command: ['sizes'], stdout, tty: true, terminalSize: { width: 80, height: 24 }, terminalSizeQueue: queue });
  queue.resize({ width: 100, height: 30 });
  queue.resize({ width: 120, height: 40 });
  await running;
  queue.close();
  const seen = JSON.parse(stdout.text()) as TerminalSize[];
  assert.deepEqual(seen[0], { width: 80, height: 24 });
  // Sizes queued faster than they are sent collapse into the latest.
  assert.deepEqual(seen.at(-1), { width: 120, height: 40 });
});

test('refusals are UpgradeFailureErrors whose cause is the server Status', async (t) => {
  const cases: Array<{ name: string; opts: Parameters<typeof exec>[1]; check: (e: unknown) => boolean; message: RegExp }> = [
    { name: 'pod not found', opts: { namespace: 'default', pod: 'ghost', command: ['x'], stdout: sink() }, check: isNotFound, message: /pods "ghost" not found/ },
    { name: 'container not in the pod', opts: { namespace: 'default', pod: 'web', container: 'db', command: ['x'], stdout: sink() }, check: isBadRequest, message: /container db is not valid for pod web/ },
    { name: 'container ambiguous', opts: { namespace: 'default', pod: 'web', command: ['x'], stdout: sink() }, check: isBadRequest, message: /a container name must be specified for pod web, choose one of: \[app sidecar\]/ },
    { name: 'container without a handler', opts: { namespace: 'default', pod: 'web', container: 'sidecar', command: ['x'], stdout: sink() }, check: isNotFound, message: /container not found \("sidecar"\)/ },
    { name: 'pod without handler or node', opts: { namespace: 'default', pod: 'lonely', command: ['x'], stdout: sink() }, check: isBadRequest, message: /pod lonely does not have a host assigned/ },
    { name: 'protocol the server refuses', opts: { namespace: 'default', pod: 'web', container: 'app', command: ['x'], stdout: sink(), protocols: ['v9.channel.k8s.io'] }, check: isForbidden, message: /requested protocol\(s\) are not supported/ },
    { name: 'no stream requested', opts: { namespace: 'default', pod: 'web', container: 'app', command: ['x'] }, check: isBadRequest, message: /at least 1 of stdin, stdout, stderr/ },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const err = await exec(client, c.opts).catch((e: unknown) => e);
      assert.ok(err instanceof UpgradeFailureError, String(err));
      assert.equal(err.code, 'ERR_KUBE_UPGRADE_FAILURE');
      assert.ok(c.check(err), `${String(err)}`);
      assert.match(err.message, c.message);
    });
  }
});

test('aborting mid-session rejects with the reason and the handler sees its signal abort', async () => {
  let handlerAborted: Promise<unknown> | undefined;
  server.setPodHandler('default', 'slow', {
    containers: {
      '*': async (s) => {
        handlerAborted = once(s.signal, 'abort');
        await handlerAborted;
        return 0;
      },
    },
  });
  await createRunningPod(server, 'default', 'slow');
  const controller = new AbortController();
  const running = exec(client, { namespace: 'default', pod: 'slow', command: ['sleep'], stdout: sink(), signal: controller.signal });
  while (handlerAborted === undefined) await new Promise((r) => setImmediate(r));
  const reason = new Error('user pressed ctrl-c');
  controller.abort(reason);
  await assert.rejects(running, (e) => e === reason);
  await handlerAborted;
});

test('a connection cut mid-transfer rejects with StreamClosedError, not a hang', async () => {
  await createRunningPod(server, 'default', 'crash');
  server.setPodHandler('default', 'crash', {
    containers: {
      '*': async (s) => {
        await writeAll(s.stdout!, 'partial output');
        // The node vanishes: the TCP connection drops without a close frame.
        server.stop().catch(() => undefined);
        await once(s.signal, 'abort');
        return 0;
      },
    },
  });
  const stdout = sink();
  const err = await exec(client, { namespace: 'default', pod: 'crash', command: ['x'], stdout }).catch((e: unknown) => e);
  assert.ok(err instanceof StreamClosedError, String(err));
  assert.equal(err.code, 'ERR_KUBE_STREAM_CLOSED');
  // The server is gone: start a fresh one for the tests that follow.
  await client.close();
  server = await startApiServer();
  client = new RestClient({ host: server.url });
  await createRunningPod(server, 'default', 'files');
  server.setPodHandler('default', 'files', { containers: { app: fs.handler } });
});

test('a burst of output is held back by a slow consumer instead of buffering it (backpressure)', async () => {
  await createRunningPod(server, 'default', 'burst');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const total = 256 * 1024 * 1024;
  let produced = 0;
  let blocked: (() => void) | undefined;
  server.setPodHandler('default', 'burst', {
    containers: {
      '*': async (s) => {
        while (produced < total && !s.signal.aborted) {
          produced += chunk.length;
          if (!s.stdout!.write(chunk)) {
            await new Promise<void>((resolve) => {
              blocked = resolve;
              s.stdout!.once('drain', resolve);
              s.signal.addEventListener('abort', () => resolve(), { once: true });
            });
            blocked = undefined;
          }
        }
        return 0;
      },
    },
  });
  let consumed = 0;
  let release: (() => void) | undefined;
  const stdout = new Writable({
    highWaterMark: 64 * 1024,
    write(c: Buffer, _e, cb) {
      consumed += c.length;
      // The consumer stalls after 1 MiB until released.
      if (consumed >= 1024 * 1024 && release === undefined) release = () => cb();
      else cb();
    },
  });
  const controller = new AbortController();
  const running = exec(client, { namespace: 'default', pod: 'burst', command: ['yes'], stdout, signal: controller.signal });
  running.catch(() => undefined);
  // Wait until the consumer stalled and the producer stopped making progress.
  while (release === undefined) await new Promise((r) => setImmediate(r));
  let last = -1;
  for (let i = 0; i < 100 && (produced !== last || blocked === undefined); i++) {
    last = produced;
    await new Promise((r) => setTimeout(r, 100));
  }
  const at = produced;
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(produced, at, 'the producer stayed blocked while the consumer did not read');
  // Bounded by socket buffers and stream high-water marks, far below what was offered.
  assert.ok(produced < 32 * 1024 * 1024, `produced ${produced} bytes while the consumer took ${consumed}`);
  controller.abort(new Error('enough'));
  await assert.rejects(running, /enough/);
  release();
});

test('copyToPod and copyFromPod move files and directories through tar over exec', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-cp-'));
  try {
    await mkdir(join(dir, 'src', 'sub'), { recursive: true });
    await writeFile(join(dir, 'src', 'a.txt'), 'alpha');
    await writeFile(join(dir, 'src', 'sub', 'b.bin'), Buffer.alloc(300_000, 7));
    fs.dirs.add('/data');
    await copyToPod(client, { namespace: 'default', pod: 'files', container: 'app', src: join(dir, 'src'), dest: '/data' });
    assert.equal(fs.files.get('/data/src/a.txt')?.toString(), 'alpha');
    assert.equal(fs.files.get('/data/src/sub/b.bin')?.length, 300_000);
    await copyToPod(client, { namespace: 'default', pod: 'files', src: join(dir, 'src', 'a.txt'), dest: '/data/renamed.txt' });
    assert.equal(fs.files.get('/data/renamed.txt')?.toString(), 'alpha');

    await copyFromPod(client, { namespace: 'default', pod: 'files', src: '/data/src', dest: join(dir, 'back') });
    assert.equal(await readFile(join(dir, 'back', 'a.txt'), 'utf8'), 'alpha');
    assert.equal((await readFile(join(dir, 'back', 'sub', 'b.bin'))).length, 300_000);
    await copyFromPod(client, { namespace: 'default', pod: 'files', src: '/data/renamed.txt', dest: join(dir, 'one.txt') });
    assert.equal(await readFile(join(dir, 'one.txt'), 'utf8'), 'alpha');

    const missing = await copyFromPod(client, { namespace: 'default', pod: 'files', src: '/nope', dest: join(dir, 'x') }).catch((e: unknown) => e);
    assert.ok(missing instanceof NonZeroExitCodeError && missing.exitCode === 2, String(missing));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the WebSocket handshake carries the bearer token and TLS of the config, and goes through a CONNECT proxy', async () => {
  const secure = await startApiServer({ tls: true, token: 'sekret' });
  let tunnels = 0;
  const proxy: Server = createHttpServer();
  proxy.on('connect', (req: IncomingMessage, socket, head) => {
    tunnels++;
    const [host, port] = (req.url ?? '').split(':');
    const target = connect(Number(port), host!);
    target.once('connect', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) target.write(head);
      target.pipe(socket);
      socket.pipe(target);
    });
    target.on('error', () => socket.destroy());
    socket.on('error', () => target.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const proxyPort = (proxy.address() as { port: number }).port;
  try {
    const good = new RestClient({ host: secure.url, bearerToken: 'sekret', tls: { caData: secure.caCertPem! }, proxyUrl: `http://127.0.0.1:${proxyPort}` });
    await good.json({ verb: 'POST', path: '/api/v1/namespaces/default/pods', query: [], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'busybox' }] } }) });
    tunnels = 0;
    secure.setPodHandler('default', 'web', { containers: { app: async (s) => void (await writeAll(s.stdout!, 'secure hello\n')) } });
    const stdout = sink();
    await exec(good, { namespace: 'default', pod: 'web', command: ['hi'], stdout });
    assert.equal(stdout.text(), 'secure hello\n');
    assert.equal(tunnels, 1);
    await good.close();
    const anonymous = new RestClient({ host: secure.url, tls: { caData: secure.caCertPem! } });
    const err = await exec(anonymous, { namespace: 'default', pod: 'web', command: ['hi'], stdout: sink() }).catch((e: unknown) => e);
    assert.ok(err instanceof UpgradeFailureError && isUnauthorized(err), String(err));
    await anonymous.close();
  } finally {
    proxy.close();
    await secure.stop();
  }
});


test('with RBAC, exec over WebSocket needs get on pods/exec (the handshake is a GET): a user without it gets the 403 Status', async () => {
  const rbac = await startApiServer({ rbac: true, token: 'admin-token', users: [{ name: 'viewer', token: 'viewer-token' }], tls: false });
  const admin = new RestClient({ host: rbac.url, bearerToken: 'admin-token' });
  const viewer = new RestClient({ host: rbac.url, bearerToken: 'viewer-token' });
  try {
    await admin.json({ verb: 'POST', path: '/api/v1/namespaces/default/pods', query: [], headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'busybox' }] } }) });
    rbac.setPodHandler('default', 'web', { containers: { app: async (s) => void (await writeAll(s.stdout!, 'ok\n')) } });
    const out = sink();
    await exec(admin, { namespace: 'default', pod: 'web', command: ['x'], stdout: out });
    assert.equal(out.text(), 'ok\n');
    const err = await exec(viewer, { namespace: 'default', pod: 'web', command: ['x'], stdout: sink() }).catch((e: unknown) => e);
    assert.ok(err instanceof UpgradeFailureError && isForbidden(err), String(err));
    assert.match(err.message, /^GET .*pods "web" is forbidden: User "viewer" cannot get resource "pods\/exec" in API group "" in the namespace "default"/);
    // The config's impersonation reaches the handshake too: admin acting as viewer is viewer.
    const impersonating = new RestClient({ host: rbac.url, bearerToken: 'admin-token', impersonate: { userName: 'viewer' } });
    const asViewer = await exec(impersonating, { namespace: 'default', pod: 'web', command: ['x'], stdout: sink() }).catch((e: unknown) => e);
    await impersonating.close();
    assert.ok(asViewer instanceof UpgradeFailureError && isForbidden(asViewer), String(asViewer));
    assert.match(asViewer.message, /User "viewer" cannot get resource "pods\/exec"/);
  } finally {
    await admin.close();
    await viewer.close();
    await rbac.stop();
  }
});

test('an upgrade asked for anywhere else (h2c, as curl --http2 sends) is served as a plain request', async () => {
  const { request } = await import('node:http');
  const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${server.url}/api/v1/namespaces/default`, { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(reply.status, 200);
  assert.equal((JSON.parse(reply.body) as { kind: string }).kind, 'Namespace');
});
