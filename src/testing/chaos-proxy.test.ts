import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { FakeClock } from '../util/clock/clock.ts';
import { startChaosProxy, type ChaosProxy } from './chaos-proxy.ts';

/** A TCP server that records what each connection received and lets the test write to it. */
interface Target {
  server: Server;
  port: number;
  sockets: Socket[];
  received: Buffer[];
  closed: number;
}

async function startTarget(onConnection?: (s: Socket) => void): Promise<Target> {
  const t: Target = { server: createServer(), port: 0, sockets: [], received: [], closed: 0 };
  t.server.on('connection', (s) => {
    t.sockets.push(s);
    s.on('data', (d: Buffer) => t.received.push(d));
    s.on('error', () => {});
    s.on('close', () => t.closed++);
    onConnection?.(s);
  });
  await new Promise<void>((r) => t.server.listen(0, '127.0.0.1', r));
  t.port = (t.server.address() as { port: number }).port;
  return t;
}

/** A client connection that collects everything it receives and how it ended. */
interface Client {
  socket: Socket;
  data: () => Buffer;
  ended: Promise<string>;
}

function dial(port: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const ended = new Promise<string>((r) => {
      socket.on('error', (err: NodeJS.ErrnoException) => r(err.code ?? err.message));
      socket.on('close', () => r('end'));
    });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.once('connect', () => resolve({ socket, data: () => Buffer.concat(chunks), ended }));
    socket.once('error', reject);
  });
}

async function until(what: string, cond: () => boolean): Promise<void> {
  const deadline = performance.now() + 5000;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function withProxy(fn: (p: ChaosProxy, t: Target) => Promise<void>, opts: { clock?: FakeClock; onConnection?: (s: Socket) => void } = {}): Promise<void> {
  const t = await startTarget(opts.onConnection);
  const p = await startChaosProxy({ targetPort: t.port, ...(opts.clock ? { clock: opts.clock } : {}) });
  try {
    await fn(p, t);
  } finally {
    await p.stop();
    for (const s of t.sockets) s.destroy();
    await new Promise<void>((r) => t.server.close(() => r()));
  }
}

test('without faults the proxy is a transparent byte pipe and records HTTP request lines', async () => {
  await withProxy(async (p, t) => {
    assert.match(p.address, /^127\.0\.0\.1:\d+$/);
    const c = await dial(p.port);
    c.socket.write('GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: x\r\n\r\n');
    await until('the request upstream', () => Buffer.concat(t.received).includes('\r\n\r\n'));
    t.sockets[0]!.write('HTTP/1.1 200 OK\r\n\r\nhello');
    await until('the response', () => c.data().toString().endsWith('hello'));
    assert.equal(c.data().toString(), 'HTTP/1.1 200 OK\r\n\r\nhello');
    assert.deepEqual(p.connections().map((x) => x.requests), [['GET /api/v1/pods?watch=true HTTP/1.1']]);
    assert.equal(p.connections()[0]!.responseBytes, c.data().length);
    c.socket.write('GET /again HTTP/1.1\r\n\r\n');
    await until('the second request upstream', () => Buffer.concat(t.received).toString().includes('/again'));
    assert.equal(p.connections()[0]!.responseBytes, 0, 'counted per response');
    t.sockets[0]!.end();
    assert.equal(await c.ended, 'end');
    assert.deepEqual(p.stats(), { connections: 1, faults: { reset: 0, stall: 0, delay: 0, cut: 0 } });
  });
});

test('cut delivers exactly afterBytes more bytes from the server, then closes both sides', async () => {
  for (const afterBytes of [0, 1, 7, 100, 4095]) {
    await withProxy(async (p, t) => {
      const c = await dial(p.port);
      await until('the upstream connection', () => t.sockets.length === 1);
      t.sockets[0]!.write(Buffer.alloc(10, 'a'));
      await until('the first bytes', () => c.data().length === 10);
      p.connections()[0]!.inject({ type: 'cut', afterBytes });
      t.sockets[0]!.write(Buffer.alloc(5000, 'b'));
      assert.equal(await c.ended, 'end');
      assert.equal(c.data().length, 10 + afterBytes, `afterBytes ${afterBytes}`);
      await until('the server side to close', () => t.closed === 1);
      assert.deepEqual(p.connections(), []);
    });
  }
});

test('stall: bytes are accepted both ways and nothing is delivered, not even the server closing', async () => {
  await withProxy(async (p, t) => {
    const c = await dial(p.port);
    await until('the upstream connection', () => t.sockets.length === 1);
    assert.equal(p.injectAll({ type: 'stall' }), 1);
    c.socket.write('GET / HTTP/1.1\r\n\r\n');
    t.sockets[0]!.write('data');
    t.sockets[0]!.end();
    await until('the server side to close', () => t.closed === 1);
    // The client still has an open connection that carries nothing: half-open.
    await new Promise((r) => setImmediate(r));
    assert.equal(c.data().length, 0);
    assert.equal(Buffer.concat(t.received).length, 0);
    assert.equal(c.socket.destroyed, false);
    assert.deepEqual(p.connections().map((x) => x.requests), [['GET / HTTP/1.1']]);
    // Final: a later cut or delay does not revive it (that would deliver bytes after a gap).
    p.injectAll({ type: 'cut', afterBytes: 100 });
    p.injectAll({ type: 'delay', ms: 1 });
    t.sockets[0]!.write('more');
    await new Promise((r) => setImmediate(r));
    assert.equal(c.data().length, 0);
    p.resetAll();
    assert.equal(await c.ended, 'ECONNRESET');
    assert.deepEqual(p.stats().faults, { reset: 1, stall: 1, delay: 0, cut: 0 });
  });
});

test('delay holds every chunk back by ms on the given clock, keeping their order', async () => {
  const clock = new FakeClock();
  await withProxy(
    async (p, t) => {
      p.injectNew({ type: 'delay', ms: 100 });
      const c = await dial(p.port);
      await until('the upstream connection', () => t.sockets.length === 1);
      t.sockets[0]!.write('one,');
      await new Promise((r) => setTimeout(r, 20));
      await clock.step(50);
      t.sockets[0]!.write('two');
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(c.data().toString(), '');
      await clock.step(50);
      await until('the first chunk', () => c.data().length > 0);
      assert.equal(c.data().toString(), 'one,');
      await clock.step(50);
      await until('the second chunk', () => c.data().length === 7);
      assert.equal(c.data().toString(), 'one,two');
    },
    { clock },
  );
});

test('onRequest hits only the connection of the next matching request, count times', async () => {
  await withProxy(async (p, t) => {
    p.onRequest({ match: /watch=true/, fault: { type: 'reset' }, count: 2 });
    const plain = await dial(p.port);
    plain.socket.write('GET /api/v1/pods HTTP/1.1\r\n\r\n');
    const results: string[] = [];
    for (let i = 0; i < 3; i++) {
      const w = await dial(p.port);
      // Split the request line across two writes: it is still recognised.
      w.socket.write('GET /api/v1/pods?wat');
      await new Promise((r) => setTimeout(r, 5));
      w.socket.write('ch=true HTTP/1.1\r\n\r\n');
      if (i < 2) results.push(await w.ended);
      else {
        await until('the third watch upstream', () => Buffer.concat(t.received).toString().split('watch=true').length === 2);
        results.push('open');
        w.socket.destroy();
      }
    }
    assert.deepEqual(results, ['ECONNRESET', 'ECONNRESET', 'open']);
    assert.equal(plain.socket.destroyed, false);
    plain.socket.destroy();
    assert.equal(p.stats().faults.reset, 2);
  });
});

test('pause refuses new connections until resume, on the same port; open connections stay', async () => {
  await withProxy(async (p, t) => {
    const open = await dial(p.port);
    const port = p.port;
    await p.pause();
    await assert.rejects(dial(port), { code: 'ECONNREFUSED' });
    await p.resume();
    assert.equal(p.port, port);
    const again = await dial(port);
    await until('both upstream connections', () => t.sockets.length === 2);
    open.socket.write('x');
    again.socket.write('y');
    await until('both writes', () => Buffer.concat(t.received).length === 2);
    open.socket.destroy();
    again.socket.destroy();
  });
});

test('a connection to a target that is down is closed at once', async () => {
  const t = await startTarget();
  const port = t.port;
  await new Promise<void>((r) => t.server.close(() => r()));
  const p = await startChaosProxy({ targetPort: port });
  try {
    const c = await dial(p.port);
    assert.equal(await c.ended, 'end');
    await until('the proxy to forget it', () => p.connections().length === 0);
  } finally {
    await p.stop();
  }
});
