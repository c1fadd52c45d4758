/**
 * Port-forwarding through the embedded API server: many concurrent connections on one forward (each
 * its own SPDY stream pair), function targets, errors of a single connection, a lost server
 * connection, the refusal of a missing pod, and the `kubeloom port-forward` command.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { RestClient } from '../src/rest/client.ts';
import { isNotFound } from '../src/apimachinery/errors.ts';
import { ForwardedConnectionError, LostConnectionError, UpgradeFailureError, portForward } from '../src/tools/portforward/index.ts';
import { runPortForward } from '../src/cli/port-forward-command.ts';
import { createRunningPod } from './streaming-helpers.ts';

let server: ApiServer;
let client: RestClient;
let echo: Server;

/** Sends `data` on a new connection to `port`, half-closes, and resolves with everything read back. */
async function roundTrip(port: number, data: Buffer): Promise<Buffer> {
  const s: Socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  await once(s, 'connect');
  s.end(data);
  await once(s, 'close');
  return Buffer.concat(chunks);
}

before(async () => {
  echo = createServer((s) => {
    s.on('error', () => undefined);
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  server = await startApiServer();
  client = new RestClient({ host: server.url });
  await createRunningPod(server, 'default', 'web');
  server.setPodHandler('default', 'web', {
    ports: {
      7: { port: (echo.address() as { port: number }).port },
      9: { host: '127.0.0.1', port: 1 },
      80: (conn) => {
        conn.on('error', () => undefined);
        conn.end('HTTP/1.0 200 OK\r\n\r\nserved by a function\n');
      },
    },
  });
});

after(async () => {
  await client.close();
  await server.stop();
  echo.close();
});

test('many concurrent connections share one forward, each echoing its own bytes', async () => {
  const pf = portForward(client, { namespace: 'default', pod: 'web', ports: [':7'], addresses: ['127.0.0.1'] });
  const [forwarded] = await pf.ready;
  assert.equal(forwarded!.remote, 7);
  assert.ok(forwarded!.local > 0);
  const payloads = Array.from({ length: 20 }, (_, i) => Buffer.alloc(100_000 + i * 1000, i));
  const replies = await Promise.all(payloads.map((p) => roundTrip(forwarded!.local, p)));
  replies.forEach((r, i) => assert.ok(r.equals(payloads[i]!), `connection ${i} got ${r.length} bytes`));
  await pf.close();
  await pf.done;
});

test('a function target serves the forwarded connection itself', async () => {
  const pf = portForward(client, { namespace: 'default', pod: 'web', ports: [{ local: 0, remote: 80 }], addresses: ['127.0.0.1'] });
  const [p] = await pf.ready;
  const reply = await roundTrip(p!.local, Buffer.from('GET / HTTP/1.0\r\n\r\n'));
  assert.match(reply.toString(), /served by a function/);
  await pf.close();
});

test('a failing forwarded connection is reported on its error stream; the forward goes on', async () => {
  const errors: ForwardedConnectionError[] = [];
  const pf = portForward(client, { namespace: 'default', pod: 'web', ports: [':9', ':7'], addresses: ['127.0.0.1'], onError: (e) => errors.push(e) });
  const [refused, good] = await pf.ready;
  const reply = await roundTrip(refused!.local, Buffer.from('x'));
  assert.equal(reply.length, 0);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.code, 'ERR_KUBE_PORT_FORWARD_CONNECTION');
  assert.match(errors[0]!.message, new RegExp(`an error occurred forwarding ${refused!.local} -> 9: error forwarding port 9 to pod web, uid [0-9a-f-]+: failed to connect to 127.0.0.1:1`));
  assert.ok((await roundTrip(good!.local, Buffer.from('still here'))).equals(Buffer.from('still here')));
  await pf.close();
});

test('a pod that does not exist is refused with the NotFound Status', async () => {
  const pf = portForward(client, { namespace: 'default', pod: 'ghost', ports: ['0:7'] });
  const err = await pf.ready.catch((e: unknown) => e);
  assert.ok(err instanceof UpgradeFailureError && isNotFound(err), String(err));
  await assert.rejects(pf.done, (e) => e === err);
});

test('losing the server connection rejects done with LostConnectionError and closes the listeners', async () => {
  const other = await startApiServer();
  const otherClient = new RestClient({ host: other.url });
  try {
    await createRunningPod(other, 'default', 'web');
    other.setPodHandler('default', 'web', { ports: { 7: { port: (echo.address() as { port: number }).port } } });
    const pf = portForward(otherClient, { namespace: 'default', pod: 'web', ports: [':7'], addresses: ['127.0.0.1'] });
    const [p] = await pf.ready;
    await other.stop();
    const err = await pf.done.catch((e: unknown) => e);
    assert.ok(err instanceof LostConnectionError, String(err));
    assert.equal(err.message, 'lost connection to pod');
    const refused = connect(p!.local, '127.0.0.1');
    const [connErr] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    assert.equal(connErr.code, 'ECONNREFUSED');
  } finally {
    await otherClient.close();
    await other.stop();
  }
});

test('kubeloom port-forward forwards until its signal stops it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-pf-'));
  try {
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    const out: string[] = [];
    const errs: string[] = [];
    const controller = new AbortController();
    const running = runPortForward(['pod/web', ':7', '--address', '127.0.0.1', '--kubeconfig', join(dir, 'kubeconfig')], {
      stdout: (t) => out.push(t),
      stderr: (t) => errs.push(t),
      env: {},
      signal: controller.signal,
    });
    while (out.length === 0 && errs.length === 0) await new Promise((r) => setImmediate(r));
    assert.deepEqual(errs, []);
    const m = /^Forwarding from 127\.0\.0\.1:(\d+) -> 7\n$/.exec(out[0]!);
    assert.ok(m, out[0]);
    assert.equal((await roundTrip(Number(m[1]), Buffer.from('cli'))).toString(), 'cli');
    controller.abort();
    assert.equal(await running, 0);

    const bad: string[] = [];
    assert.equal(await runPortForward(['deploy/web', '80'], { stdout: () => undefined, stderr: (t) => bad.push(t), env: {} }), 2);
    assert.match(bad.join(''), /only pods can be forwarded/);
    assert.equal(await runPortForward(['web', '80:99999'], { stdout: () => undefined, stderr: (t) => bad.push(t), env: {} }), 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
