/**
 * RestClient.close() ends what is still open instead of waiting for the server to end it: watches
 * (iterated or not) finish, requests and streams in flight fail with a ClientClosedError, and later
 * calls fail with a ClientClosedError that is not retried. The connections are undici's: these tests
 * also pin the transport settings that would otherwise cut a quiet watch (transport.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { WebSocketServer } from 'ws';
import { FakeClock } from '../util/clock/clock.ts';
import { RestClient } from './client.ts';
import { ClientClosedError, NetworkError } from './errors.ts';
import { buildGet, buildWatch, type RestRequest } from './request.ts';
import { newDispatcher } from './transport.ts';
import { dialWebSocket } from './websocket.ts';

const loc = { group: '', version: 'v1', resource: 'pods' };
const added = (name: string): string => `${JSON.stringify({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name } } })}\n`;

// A regression would hang until undici's own timeouts (minutes): fail the test instead of stalling the suite.
const guard = { timeout: 60_000 };

interface Server {
  url: string;
  /** Requests received, in order. */
  paths: string[];
  /** Resolves once `n` requests arrived. */
  received(n: number): Promise<void>;
  close(): Promise<void>;
}

/** A server that answers every request with `script` and never ends a response by itself. */
async function serve(script: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Server> {
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const s: Server = {
    url: '',
    paths: [],
    received: (n) => new Promise<void>((resolve) => (s.paths.length >= n ? resolve() : waiters.push({ n, resolve }))),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    s.paths.push(req.url ?? '');
    script(req, res);
    for (const w of waiters.filter((x) => s.paths.length >= x.n)) w.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return s;
}

/** Watches get headers and one event; anything else gets headers and part of a body. Nothing ends. */
function openForever(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  if ((req.url ?? '').includes('watch=true')) res.write(added('a'));
  else if ((req.url ?? '').endsWith('/log')) res.write('line 1\n');
}

test('close() ends open watches, iterated or never iterated, while the server still holds them open, and resolves', guard, async () => {
  const s = await serve(openForever);
  const c = new RestClient({ host: s.url, qps: -1 }, { clock: new FakeClock() });
  try {
    const forgotten = await c.watch(buildWatch({ ...loc, namespace: 'default' }));
    const iterated = await c.watch(buildWatch({ ...loc, namespace: 'other' }));
    const seen: string[] = [];
    let firstEvent!: () => void;
    const gotFirst = new Promise<void>((resolve) => (firstEvent = resolve));
    const draining = (async () => {
      for await (const e of iterated) {
        seen.push(e.type);
        firstEvent();
      }
    })();
    await gotFirst;
    await c.close();
    // The iteration ended (done, no error) although the server never ended the response.
    await draining;
    assert.deepEqual(seen, ['ADDED']);
    // The never-iterated watch is over too: iterating it now ends at once.
    const late: string[] = [];
    for await (const e of forgotten) late.push(e.type);
    assert.deepEqual(late, []);
    assert.equal(s.paths.length, 2);
  } finally {
    await c.close();
    await s.close();
  }
});

test('close() fails a followed stream and a request awaiting its response with ClientClosedError', guard, async () => {
  const s = await serve(openForever);
  const c = new RestClient({ host: s.url, qps: -1 }, { clock: new FakeClock(), readIdleTimeoutMs: 0 });
  try {
    const logs = await c.stream(buildGet({ ...loc, namespace: 'default', name: 'web', subresource: 'log' }));
    const reading = (async () => {
      const chunks: string[] = [];
      for await (const chunk of logs.body) chunks.push(String(chunk));
      return chunks;
    })();
    const pending = c.do(buildGet({ ...loc, namespace: 'default', name: 'slow' }));
    await s.received(2);
    const failures = Promise.all([
      assert.rejects(reading, ClientClosedError),
      assert.rejects(pending, (err: unknown) => err instanceof ClientClosedError && err.code === 'ERR_KUBE_CLIENT_CLOSED' && /GET .*\/pods\/slow: the client was closed/.test(err.message)),
    ]);
    await c.close();
    await failures;
  } finally {
    await s.close();
  }
});

test('calls after close() fail with ClientClosedError at once, without a retry, also on derived clients', guard, async () => {
  const s = await serve((_req, res) => res.end('{}'));
  // The real clock: were the refusal taken for a dropped connection, each GET would wait out retries.
  const c = new RestClient({ host: s.url, qps: -1 }, { maxRetries: 3 });
  const derived = c.withConfig({ qps: -1 });
  try {
    await c.json(buildGet({ ...loc, namespace: 'default', name: 'a' }));
    await c.close();
    for (const call of [
      () => c.json(buildGet({ ...loc, namespace: 'default', name: 'b' })),
      () => derived.json(buildGet({ ...loc, namespace: 'default', name: 'c' })),
      () => c.watch(buildWatch(loc, {})),
      () => c.stream(buildGet({ ...loc, namespace: 'default', name: 'web', subresource: 'log' })),
      () => c.upgradeSettings(buildGet({ ...loc, namespace: 'default', name: 'web', subresource: 'exec' })),
    ]) {
      await assert.rejects(call(), (err: unknown) => err instanceof ClientClosedError && !(err instanceof NetworkError));
    }
    assert.deepEqual(s.paths, ['/api/v1/namespaces/default/pods/a']);
  } finally {
    await s.close();
  }
});

/** The options an undici Agent was built with (kept under its `options` symbol). */
function agentOptions(dispatcher: object): Record<string, unknown> {
  const key = Object.getOwnPropertySymbols(dispatcher).find((k) => k.description === 'options');
  assert.ok(key !== undefined, 'undici Agent keeps its options under Symbol(options)');
  return (dispatcher as Record<symbol, Record<string, unknown>>)[key]!;
}

function innerAgent(dispatcher: object): object {
  const key = Object.getOwnPropertySymbols(dispatcher).find((k) => k.description === 'proxy agent');
  assert.ok(key !== undefined, 'undici ProxyAgent keeps its Agent under Symbol(proxy agent)');
  return (dispatcher as Record<symbol, object>)[key]!;
}

test('the pooled transport sets no headers or body timeout (Go http.Transport has none), so a quiet watch is never cut', async () => {
  const direct = newDispatcher({ host: 'http://127.0.0.1:1' });
  const proxied = newDispatcher({ host: 'http://127.0.0.1:1', proxyUrl: 'http://127.0.0.1:2' });
  try {
    for (const options of [agentOptions(direct), agentOptions(innerAgent(proxied))]) {
      // undici's defaults are 300 s each; 0 disables them.
      assert.equal(options['headersTimeout'], 0);
      assert.equal(options['bodyTimeout'], 0);
      assert.equal(options['keepAliveTimeout'], 90_000);
      assert.equal(options['connectTimeout'], 30_000);
    }
  } finally {
    await Promise.all([direct.close(), proxied.close()]);
  }
});

test('close() closes an open WebSocket (exec, port-forward) and fails one still in its handshake with ClientClosedError', guard, async () => {
  const wss = new WebSocketServer({ noServer: true, handleProtocols: () => 'v5.channel.k8s.io' });
  let holdHandshake = false;
  const held: Array<{ destroy(): void }> = [];
  const server = http.createServer();
  server.on('upgrade', (req, socket, head) => {
    if (holdHandshake) {
      held.push(socket); // never answers: the client waits in its handshake
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const c = new RestClient({ host: url, qps: -1 }, { clock: new FakeClock() });
  const exec: RestRequest = { verb: 'GET', path: '/api/v1/namespaces/default/pods/web/exec', query: [], headers: {} };
  try {
    const { socket } = await dialWebSocket(c, exec, { protocols: ['v5.channel.k8s.io'] });
    const closed = once(socket, 'close');
    holdHandshake = true;
    const pending = dialWebSocket(c, exec, { protocols: ['v5.channel.k8s.io'] });
    const refused = assert.rejects(pending, ClientClosedError);
    await new Promise<void>((resolve) => server.once('upgrade', () => resolve()));
    await c.close();
    await closed;
    await refused;
  } finally {
    server.closeAllConnections();
    for (const ws of wss.clients) ws.terminate();
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
