import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { FakeClock } from '../util/clock/clock.ts';
import { isAlreadyExists, isConflict, isNotFound, isTooManyRequests, isUnauthorized, StatusError } from '../apimachinery/errors.ts';
import { RestClient, defaultReadIdleTimeoutMs, defaultUserAgent, formatGoDuration, raiseWatchErrors } from './client.ts';
import { GettingCredentialsError, InsecureCredentialsError, NetworkError, ReadIdleTimeoutError, RequestTimeoutError, WatchDecodeError } from './errors.ts';
import { buildCreate, buildDelete, buildGet, buildList, buildUpdate, buildWatch } from './request.ts';
import type { RestConfig } from './config.ts';
import type { WarningHeader } from './warnings.ts';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  connections: number;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

async function serve(handler: Handler): Promise<TestServer> {
  const state: TestServer = { url: '', connections: 0, requests: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      state.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  state.url = `http://127.0.0.1:${port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

const pod = (name: string): object => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' } });
const podLoc = (name: string) => ({ group: '', version: 'v1', namespace: 'ns', resource: 'pods', name });
const json = (res: http.ServerResponse, code: number, value: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
};

/** Waits until the client sleeps before a retry: the nearest timer is due in exactly `ms`. */
async function retryWaitPending(clock: FakeClock, ms: number): Promise<void> {
  while (clock.nextTimerIn() !== ms) await new Promise((r) => setImmediate(r));
}

function client(config: Omit<RestConfig, 'qps'> & { qps?: number }, clock = new FakeClock()): RestClient {
  return new RestClient({ qps: -1, ...config }, { clock, warningHandler: { handleWarning: () => undefined } });
}

test('every request reuses one pooled keep-alive connection and carries the standard headers', async () => {
  const s = await serve((req, res) => json(res, 200, pod(req.url!.split('/').pop()!)));
  const c = client({ host: s.url, bearerToken: 'secret-token', impersonate: { userName: 'jane', uid: 'u-1', groups: ['a', 'b'], extra: { 'scopes.io/x y': ['v1', 'v2'] } } });
  try {
    for (let i = 0; i < 20; i++) {
      const p = await c.json<{ metadata: { name: string } }>(buildGet(podLoc(`p${i}`)));
      assert.equal(p.metadata.name, `p${i}`);
    }
    // undici hands the next request to a second pooled socket while the first is being released, so
    // sequential requests alternate between at most two keep-alive connections.
    assert.ok(s.connections <= 2, `${s.connections} connections`);
    const h = s.requests[0]!.headers;
    assert.equal(h['authorization'], 'Bearer secret-token');
    assert.equal(h['user-agent'], defaultUserAgent);
    assert.match(defaultUserAgent, /^kubeloom\/\d+\.\d+\.\d+ \(node\/\d+\.\d+\.\d+\)$/);
    assert.equal(h['accept-encoding'], 'gzip');
    assert.equal(h['accept'], 'application/json');
    assert.equal(h['impersonate-user'], 'jane');
    assert.equal(h['impersonate-uid'], 'u-1');
    assert.equal(h['impersonate-group'], 'a, b');
    assert.equal(h['impersonate-extra-scopes.io%2fx%20y'], 'v1, v2');
  } finally {
    await c.close();
    await s.close();
  }
});

test('gzip-encoded responses are decoded', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.end(gzipSync(JSON.stringify(pod('zipped'))));
  });
  const c = client({ host: s.url });
  try {
    assert.deepEqual(await c.json(buildGet(podLoc('zipped'))), pod('zipped'));
  } finally {
    await c.close();
    await s.close();
  }
});

test('error responses become StatusErrors; Warning headers reach the handler', async () => {
  const s = await serve((req, res) => {
    if (req.url!.endsWith('/missing')) return json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'pods "missing" not found' }, { warning: '299 - "deprecated thing"' });
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('bad gateway');
  });
  const warnings: WarningHeader[] = [];
  const c = new RestClient({ host: s.url, qps: -1 }, { warningHandler: { handleWarning: (w) => warnings.push(w) } });
  try {
    const err = await c.json(buildGet(podLoc('missing'))).catch((e: unknown) => e);
    assert.ok(err instanceof StatusError && isNotFound(err));
    assert.deepEqual(warnings, [{ code: 299, agent: '-', text: 'deprecated thing' }]);
    const err502 = await c.json(buildGet(podLoc('x'))).catch((e: unknown) => e);
    assert.ok(err502 instanceof StatusError);
    assert.equal(err502.status.reason, 'InternalError');
    assert.equal(err502.message, 'an error on the server ("bad gateway") has prevented the request from succeeding (get pods x)');
  } finally {
    await c.close();
    await s.close();
  }
});

test('429 and 5xx with Retry-After are retried after the advertised delay, up to maxRetries', async () => {
  let failures = 2;
  const s = await serve((req, res, body) => {
    if (failures-- > 0) return json(res, 429, { kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429 }, { 'retry-after': '2' });
    json(res, 201, JSON.parse(body || '{}'));
  });
  const clock = new FakeClock(0);
  const c = client({ host: s.url }, clock);
  try {
    const created = c.json(buildCreate({ group: '', version: 'v1', namespace: 'ns', resource: 'pods' }, pod('p')));
    // The Retry-After wait is the nearest timer (the read idle timeout guards only a request in flight).
    await retryWaitPending(clock, 2000);
    assert.equal(s.requests.length, 1);
    await clock.step(2000);
    await retryWaitPending(clock, 2000);
    assert.equal(s.requests.length, 2);
    await clock.step(2000);
    assert.deepEqual(await created, pod('p'));
    assert.deepEqual(s.requests.map((r) => r.body), [JSON.stringify(pod('p')), JSON.stringify(pod('p')), JSON.stringify(pod('p'))]);
  } finally {
    await c.close();
    await s.close();
  }
});

test('retries stop after maxRetries and the last error surfaces; no Retry-After means no retry', async () => {
  const s = await serve((req, res) => {
    if (req.url!.includes('no-header')) return json(res, 503, { kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });
    json(res, 429, { kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429 }, { 'retry-after': '0' });
  });
  const c = new RestClient({ host: s.url, qps: -1 }, { clock: new FakeClock(), maxRetries: 3 });
  try {
    const err = await c.json(buildGet(podLoc('x'))).catch((e: unknown) => e);
    assert.ok(isTooManyRequests(err));
    assert.equal(s.requests.length, 4);
    await c.json(buildGet(podLoc('no-header'))).catch((e: unknown) => e);
    assert.equal(s.requests.length, 5);
  } finally {
    await c.close();
    await s.close();
  }
});

test('a 401 refreshes the credential provider at once and returns the 401 (exec roundTripper: no resend); the next request uses the fresh credentials', async () => {
  const s = await serve((req, res) => {
    if (req.headers['authorization'] !== 'Bearer fresh') return json(res, 401, { kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    json(res, 200, pod('ok'));
  });
  const calls: string[] = [];
  let token = 'stale';
  const provider = {
    getCredentials: async () => {
      calls.push(`get:${token}`);
      return { token };
    },
    invalidate: () => {
      calls.push('invalidate');
      token = 'fresh';
    },
  };
  const c = client({ host: s.url, credentialProvider: provider });
  try {
    const err = await c.json(buildGet(podLoc('ok'))).catch((e: unknown) => e);
    assert.ok(isUnauthorized(err));
    // The plugin ran again right after the 401, but the request was not sent again.
    assert.deepEqual(calls, ['get:stale', 'invalidate', 'get:fresh']);
    assert.deepEqual(await c.json(buildGet(podLoc('ok'))), pod('ok'));
    assert.deepEqual(calls.slice(3), ['get:fresh']);
  } finally {
    await c.close();
    await s.close();
  }
});

test('a credential provider that fails is reported as client-go does: getting credentials: <error>, the original as cause', async () => {
  const s = await serve((_req, res) => json(res, 200, pod('ok')));
  const failure = new Error('exec: executable kubectl-login failed with exit code 1');
  const c = client({ host: s.url, credentialProvider: { getCredentials: () => Promise.reject(failure), invalidate: () => undefined } });
  try {
    await assert.rejects(c.json(buildGet(podLoc('ok'))), (err: unknown) => err instanceof GettingCredentialsError && err.code === 'ERR_KUBE_GETTING_CREDENTIALS' && err.message === `getting credentials: ${failure.message}` && err.cause === failure);
  } finally {
    await c.close();
    await s.close();
  }
});

test('bearerTokenFile is read, cached for a minute, then re-read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloom-token-'));
  const file = join(dir, 'token');
  writeFileSync(file, 'one\n');
  const s = await serve((_req, res) => json(res, 200, {}));
  const clock = new FakeClock(0);
  const c = client({ host: s.url, bearerTokenFile: file }, clock);
  try {
    await c.json(buildGet(podLoc('a')));
    writeFileSync(file, 'two');
    await c.json(buildGet(podLoc('a')));
    await clock.step(60_000);
    await c.json(buildGet(podLoc('a')));
    rmSync(file);
    await clock.step(60_000);
    await c.json(buildGet(podLoc('a')));
    assert.deepEqual(s.requests.map((r) => r.headers['authorization']), ['Bearer one', 'Bearer one', 'Bearer two', 'Bearer two']);
  } finally {
    await c.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('credentials are never sent in clear text to a non-loopback host unless allowed, nor shown when the client is printed', async () => {
  const c = client({ host: 'http://10.255.255.1:8080', bearerToken: 'top-secret' });
  await assert.rejects(c.json(buildGet(podLoc('a'))), (e) => e instanceof InsecureCredentialsError && !e.message.includes('top-secret'));
  const basic = client({ host: 'http://10.255.255.1:8080', password: 'pw', username: 'u' });
  await assert.rejects(basic.json(buildGet(podLoc('a'))), InsecureCredentialsError);
  const own = client({ host: 'http://10.255.255.1:8080' });
  await assert.rejects(own.json({ ...buildGet(podLoc('a')), headers: { authorization: 'Bearer mine' } }), InsecureCredentialsError);
  await Promise.all([basic.close(), own.close()]);
  assert.equal(inspect(c), "RestClient { host: 'http://10.255.255.1:8080' }");
  assert.equal(JSON.stringify({ c }), '{"c":{"host":"http://10.255.255.1:8080"}}');
  await c.close();
});

test('network failures are NetworkErrors keeping the cause; timeouts and aborts surface as such', async () => {
  const dead = await serve(() => undefined);
  const deadUrl = dead.url;
  await dead.close();
  const c1 = client({ host: deadUrl });
  const err = await c1.json(buildGet(podLoc('a'))).catch((e: unknown) => e);
  assert.ok(err instanceof NetworkError);
  assert.ok((err as NetworkError).cause !== undefined);
  await c1.close();

  const hang = await serve(() => undefined);
  const clock = new FakeClock(0);
  const c2 = client({ host: hang.url, timeoutMs: 5000 }, clock);
  try {
    const pending = c2.json(buildGet(podLoc('a'))).catch((e: unknown) => e);
    await clock.waitForWaiters(1);
    await clock.step(5000);
    const timeoutErr = await pending;
    assert.ok(timeoutErr instanceof RequestTimeoutError);
    const controller = new AbortController();
    const aborted = c2.json(buildGet(podLoc('b')), { signal: controller.signal }).catch((e: unknown) => e);
    const reason = new Error('caller gave up');
    while (hang.requests.length < 2) await new Promise((r) => setImmediate(r));
    controller.abort(reason);
    assert.equal(await aborted, reason);
  } finally {
    await c2.close();
    await hang.close();
  }
});

test('the client-side rate limiter spaces requests but never delays watches', async () => {
  const s = await serve((req, res) => {
    if (req.url!.includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      return;
    }
    json(res, 200, {});
  });
  const clock = new FakeClock(0);
  const c = new RestClient({ host: s.url, qps: 1, burst: 1 }, { clock });
  try {
    await c.json(buildGet(podLoc('a')));
    const second = c.json(buildGet(podLoc('b')));
    await clock.waitForWaiters(1);
    assert.equal(s.requests.length, 1);
    const w = await c.watch(buildWatch({ group: '', version: 'v1', resource: 'pods' }));
    for await (const _ of w) assert.fail('no events expected');
    assert.equal(s.requests.length, 2);
    await clock.step(1000);
    await second;
    assert.equal(s.requests.length, 3);
  } finally {
    await c.close();
    await s.close();
  }
});

test('watch streams events as they arrive; break releases the connection', async () => {
  let watchRes: http.ServerResponse | undefined;
  let closedByClient = false;
  const s = await serve((req, res) => {
    if (!req.url!.includes('watch=true')) return json(res, 200, { kind: 'PodList', items: [] });
    watchRes = res;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`${JSON.stringify({ type: 'ADDED', object: pod('a') })}\n{"type":"MODIFIED",`);
    res.on('close', () => (closedByClient = true));
  });
  const c = client({ host: s.url });
  try {
    const w = await c.watch<{ metadata: { name: string } }>(buildWatch({ group: '', version: 'v1', namespace: 'ns', resource: 'pods' }, { resourceVersion: '1' }));
    const seen: string[] = [];
    for await (const e of w) {
      seen.push(`${e.type}:${e.type === 'ERROR' ? '' : e.object.metadata.name}`);
      if (seen.length === 1) watchRes!.write(`"object":${JSON.stringify(pod('b'))}}\n`);
      if (seen.length === 2) break;
    }
    assert.deepEqual(seen, ['ADDED:a', 'MODIFIED:b']);
    while (!closedByClient) await new Promise((r) => setImmediate(r));
    assert.deepEqual(await c.json(buildList({ group: '', version: 'v1', resource: 'pods' })), { kind: 'PodList', items: [] });
  } finally {
    await c.close();
    await s.close();
  }
});

test('watch: non-200 rejects with a StatusError; ERROR events can be raised; a cut mid-event throws', async () => {
  const s = await serve((req, res) => {
    if (req.url!.includes('namespaces/forbidden')) return json(res, 403, { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url!.includes('namespaces/expired')) {
      res.end(`${JSON.stringify({ type: 'ADDED', object: pod('a') })}\n${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 } })}\n`);
      return;
    }
    res.write(`${JSON.stringify({ type: 'ADDED', object: pod('a') })}\n{"type":"ADD`);
    setImmediate(() => res.socket!.destroy());
  });
  const c = client({ host: s.url });
  const loc = (namespace: string) => ({ group: '', version: 'v1', namespace, resource: 'pods' });
  try {
    await assert.rejects(c.watch(buildWatch(loc('forbidden'))), (e) => e instanceof StatusError && e.reason === 'Forbidden');
    const types: string[] = [];
    for await (const e of await c.watch(buildWatch(loc('expired')))) types.push(e.type);
    assert.deepEqual(types, ['ADDED', 'ERROR']);
    const raised: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of raiseWatchErrors(await c.watch(buildWatch(loc('expired'))))) raised.push(e.type);
      })(),
      (e) => e instanceof StatusError && e.statusCode === 410,
    );
    assert.deepEqual(raised, ['ADDED']);
    const cut: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of await c.watch(buildWatch(loc('cut')))) cut.push(e.type);
      })(),
      WatchDecodeError,
    );
    assert.deepEqual(cut, ['ADDED']);
  } finally {
    await c.close();
    await s.close();
  }
});

test('aborting a watch ends iteration with the abort reason', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`${JSON.stringify({ type: 'ADDED', object: pod('a') })}\n`);
  });
  const c = client({ host: s.url });
  const controller = new AbortController();
  const reason = new Error('shutting down');
  try {
    const w = await c.watch(buildWatch({ group: '', version: 'v1', resource: 'pods' }), { signal: controller.signal });
    await assert.rejects(
      (async () => {
        for await (const _ of w) controller.abort(reason);
      })(),
      (e) => e === reason,
    );
    const stopped = await c.watch(buildWatch({ group: '', version: 'v1', resource: 'pods' }));
    let count = 0;
    for await (const _ of stopped) {
      count++;
      stopped.stop();
    }
    assert.equal(count, 1);
  } finally {
    await c.close();
    await s.close();
  }
});

test('proxyUrl sends every request through the proxy', async () => {
  const target = await serve((_req, res) => json(res, 200, pod('via-proxy')));
  const proxied: string[] = [];
  const proxy = http.createServer((req, res) => {
    proxied.push(`${req.method} ${req.url}`);
    const upstream = http.request(req.url!, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const c = client({ host: target.url, proxyUrl: `http://127.0.0.1:${(proxy.address() as { port: number }).port}` });
  try {
    assert.deepEqual(await c.json(buildGet(podLoc('via-proxy'))), pod('via-proxy'));
    assert.deepEqual(proxied, [`GET ${target.url}/api/v1/namespaces/ns/pods/via-proxy`]);
  } finally {
    await c.close();
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
    await target.close();
  }
});

/** Waits (in real time, bounded by the test runner) until the server has seen `n` requests. */
async function requestsSeen(s: TestServer, n: number): Promise<void> {
  while (s.requests.length < n) await new Promise((r) => setImmediate(r));
}

test('a GET whose response never starts fails after the read idle timeout, without retries, and its connection is closed', async () => {
  // The first request is never answered, as on a connection gone half-open; later ones are.
  const s = await serve((_req, res) => {
    if (s.requests.length > 1) json(res, 200, pod('a'));
  });
  const clock = new FakeClock();
  const c = client({ host: s.url }, clock);
  try {
    const pending = c.json<{ metadata: { name: string } }>(buildGet(podLoc('a'))).catch((e: unknown) => e);
    await requestsSeen(s, 1);
    await clock.step(defaultReadIdleTimeoutMs - 1);
    assert.equal(s.requests.length, 1);
    await clock.step(1);
    const err = await pending;
    assert.ok(err instanceof ReadIdleTimeoutError, String(err));
    assert.equal(clock.hasWaiters(), false, 'no retry is scheduled');
    assert.equal(s.requests.length, 1);
    assert.equal((await c.json<{ metadata: { name: string } }>(buildGet(podLoc('a')))).metadata.name, 'a');
    assert.equal(s.connections, 2, 'the silent connection was closed, not reused');
  } finally {
    await c.close();
    await s.close();
  }
});

test('a response body that stops arriving fails with ReadIdleTimeoutError; a write is never retried; 0 disables the bound', async () => {
  const s = await serve((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"Pod",');
    }
  });
  const clock = new FakeClock();
  const c = client({ host: s.url }, clock);
  const unbounded = new RestClient({ host: s.url, qps: -1 }, { clock, readIdleTimeoutMs: 0 });
  try {
    const body = c.json(buildGet(podLoc('a'))).catch((e: unknown) => e);
    await requestsSeen(s, 1);
    await clock.step(defaultReadIdleTimeoutMs);
    const err = await body;
    assert.ok(err instanceof ReadIdleTimeoutError, String(err));
    assert.equal(err.code, 'ERR_KUBE_READ_IDLE_TIMEOUT');
    assert.equal(err.idleMs, defaultReadIdleTimeoutMs);

    const write = c.json(buildCreate({ group: '', version: 'v1', namespace: 'ns', resource: 'pods' }, pod('b'))).catch((e: unknown) => e);
    await requestsSeen(s, 2);
    await clock.step(defaultReadIdleTimeoutMs);
    assert.ok((await write) instanceof ReadIdleTimeoutError);
    assert.equal(s.requests.length, 2, 'a POST whose outcome is unknown is not sent again');

    const controller = new AbortController();
    const waiting = unbounded.json(buildGet(podLoc('c')), { signal: controller.signal }).catch((e: unknown) => e);
    await requestsSeen(s, 3);
    await clock.step(10 * defaultReadIdleTimeoutMs);
    assert.equal(clock.hasWaiters(), false, 'no timer guards the request');
    const reason = new Error('caller gave up');
    controller.abort(reason);
    assert.equal(await waiting, reason);
  } finally {
    await Promise.all([c.close(), unbounded.close()]);
    await s.close();
  }
});

test('formatGoDuration writes durations as Go does, for the timeout query parameter', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [0.0005, '500ns'],
    [0.0015, '1.5µs'],
    [1, '1ms'],
    [1.5, '1.5ms'],
    [500, '500ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [30_000, '30s'],
    [60_000, '1m0s'],
    [90_000, '1m30s'],
    [3_600_000, '1h0m0s'],
    [3_723_500, '1h2m3.5s'],
  ];
  for (const [ms, text] of cases) assert.equal(formatGoDuration(ms), text, String(ms));
});

test('a request timeout is also sent as the timeout query parameter; watches carry none', async () => {
  const s = await serve((req, res) => {
    if (req.url!.includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      return;
    }
    json(res, 200, pod('a'));
  });
  const c = client({ host: s.url, timeoutMs: 30_000 });
  try {
    await c.json(buildGet(podLoc('a')));
    await c.json(buildGet(podLoc('a')), { timeoutMs: 1500 });
    await c.json({ ...buildList({ group: '', version: 'v1', resource: 'pods' }, { limit: 5 }), query: [['limit', '5'], ['timeout', '9s']] });
    for await (const _ of await c.watch(buildWatch({ group: '', version: 'v1', resource: 'pods' }))) break;
    assert.deepEqual(
      s.requests.map((r) => r.url),
      ['/api/v1/namespaces/ns/pods/a?timeout=30s', '/api/v1/namespaces/ns/pods/a?timeout=1.5s', '/api/v1/pods?limit=5&timeout=30s', '/api/v1/pods?watch=true'],
    );
  } finally {
    await c.close();
    await s.close();
  }
});

test('a GET whose connection is reset is retried after 1 s, but stream() is not (only Retry-After answers are)', async () => {
  let resets = 0;
  const s = await serve((req, res) => {
    if (resets < 1 || (req.url!.includes('follow') && resets < 2)) {
      resets++;
      req.socket.destroy();
      return;
    }
    if (req.url!.includes('retry-after') && resets < 3) {
      resets++;
      return json(res, 503, { kind: 'Status', status: 'Failure', code: 503, reason: 'ServiceUnavailable' }, { 'retry-after': '1' });
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  const clock = new FakeClock();
  const c = client({ host: s.url }, clock);
  try {
    const get = c.do(buildGet(podLoc('a')));
    await retryWaitPending(clock, 1000);
    await clock.step(1000);
    assert.equal((await get).body.toString(), 'ok');
    assert.equal(s.requests.length, 2);

    const streamed = await c.stream({ ...buildGet(podLoc('follow')), stream: true }).catch((e: unknown) => e);
    assert.ok(streamed instanceof NetworkError, String(streamed));
    assert.equal(s.requests.length, 3);

    const retried = c.stream({ ...buildGet(podLoc('retry-after')), stream: true });
    await retryWaitPending(clock, 1000);
    await clock.step(1000);
    const resp = await retried;
    assert.equal(resp.statusCode, 200);
    resp.body.destroy();
    assert.equal(s.requests.length, 5);
  } finally {
    await c.close();
    await s.close();
  }
});

test('a 409 to a POST without a Status body is AlreadyExists; to a PUT it is a Conflict', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(409, { 'content-type': 'text/plain' });
    res.end('conflict');
  });
  const c = client({ host: s.url });
  try {
    const created = await c.json(buildCreate({ group: '', version: 'v1', namespace: 'ns', resource: 'pods' }, pod('a'))).catch((e: unknown) => e);
    assert.ok(isAlreadyExists(created));
    assert.equal((created as StatusError).message, 'the server reported a conflict (post pods)');
    const updated = await c.json(buildUpdate(podLoc('a'), pod('a'))).catch((e: unknown) => e);
    assert.ok(isConflict(updated) && !isAlreadyExists(updated));
    assert.equal((updated as StatusError).message, 'the server reported a conflict (put pods a)');
  } finally {
    await c.close();
    await s.close();
  }
});

test('a 2xx answer whose body is a Status other than Success is an error (rest.Result.Get)', async () => {
  const s = await serve((req, res) => {
    if (req.url!.endsWith('/gone')) return json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'pods "gone" not found' });
    json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 200 });
  });
  const c = client({ host: s.url });
  try {
    const err = await c.json(buildGet(podLoc('gone'))).catch((e: unknown) => e);
    assert.ok(isNotFound(err));
    assert.deepEqual(await c.json(buildDelete(podLoc('ok'))), { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 200 });
  } finally {
    await c.close();
    await s.close();
  }
});

test('Retry-After is honoured for every code from 500 up, as checkWait (r >= 500)', async () => {
  let first = true;
  const s = await serve((_req, res) => {
    if (first) {
      first = false;
      res.writeHead(600, { 'retry-after': '1', 'content-type': 'text/plain' });
      res.end('odd gateway');
      return;
    }
    json(res, 200, pod('a'));
  });
  const clock = new FakeClock();
  const c = client({ host: s.url }, clock);
  try {
    const pending = c.json(buildGet(podLoc('a')));
    await retryWaitPending(clock, 1000);
    await clock.step(1000);
    assert.deepEqual(await pending, pod('a'));
    assert.equal(s.requests.length, 2);
  } finally {
    await c.close();
    await s.close();
  }
});
