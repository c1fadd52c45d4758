import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Pod } from '../src/api/core/v1.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { isExpired, isInternalError, isNotFound, isServiceUnavailable, isTooManyRequests, isUnauthorized, StatusError } from '../src/apimachinery/errors.ts';
import { RestClient, raiseWatchErrors, WatchDecodeError, NetworkError, buildGet, buildList, buildWatch, type RestConfig } from '../src/rest/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';

const podsLoc = (namespace: string) => ({ group: '', version: 'v1', namespace, resource: 'pods' });
const pod = (name: string, labels: Record<string, string> = {}): Pod => ({ metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

function configFor(s: ApiServer, extra: Partial<RestConfig> = {}): RestConfig {
  const cfg: RestConfig = { host: s.url, qps: -1, ...extra };
  if (s.caCertPem !== undefined) cfg.tls = { caData: s.caCertPem };
  return cfg;
}

async function seed(s: ApiServer, token?: string): Promise<void> {
  const cs = newClientset(configFor(s, token !== undefined ? { bearerToken: token } : {}));
  await cs.coreV1().namespaces().create({ metadata: { name: 'ns' } });
  for (const n of ['a', 'b', 'c']) await cs.coreV1().pods('ns').create(pod(n, { app: n === 'c' ? 'db' : 'web' }));
  await cs.close();
}

for (const tls of [false, true]) {
  const scheme = tls ? 'HTTPS' : 'HTTP';

  test(`${scheme}: GET, LIST with selectors and WATCH through one connection pool, with a bearer token`, async () => {
    const s = await startApiServer({ tls, token: 'sekret' });
    try {
      await seed(s, 'sekret');
      const client = new RestClient(configFor(s, { bearerToken: 'sekret' }));
      const got = await client.json<Pod>(buildGet({ ...podsLoc('ns'), name: 'a' }));
      assert.equal(got.metadata?.name, 'a');
      assert.equal(got.kind, 'Pod');
      const list = await client.json<{ items: Pod[] }>(buildList(podsLoc('ns'), { labelSelector: 'app=web' }));
      assert.deepEqual(list.items.map((p) => p.metadata?.name), ['a', 'b']);
      const w = await client.watch<Pod>(buildWatch(podsLoc('ns'), { resourceVersion: '0', labelSelector: 'app in (db)' }));
      for await (const e of w) {
        assert.equal(e.type, 'ADDED');
        assert.equal(e.type === 'ADDED' && e.object.metadata?.name, 'c');
        break;
      }
      const unauth = new RestClient(configFor(s, { bearerToken: 'wrong' }));
      await assert.rejects(unauth.json(buildGet({ ...podsLoc('ns'), name: 'a' })), (e) => isUnauthorized(e));
      await Promise.all([client.close(), unauth.close()]);
    } finally {
      await s.stop();
    }
  });
}

test('HTTPS without the CA is refused with a NetworkError keeping the TLS cause; insecure skips verification', async () => {
  const s = await startApiServer({ tls: true });
  try {
    const strict = new RestClient({ host: s.url, qps: -1 });
    const err = await strict.json(buildList(podsLoc('default'))).catch((e: unknown) => e);
    assert.ok(err instanceof NetworkError);
    assert.match(String((err.cause as Error).message ?? err.cause), /certificate/i);
    const insecure = new RestClient({ host: s.url, qps: -1, tls: { insecure: true } });
    assert.deepEqual((await insecure.json<{ items: unknown[] }>(buildList(podsLoc('default')))).items, []);
    await Promise.all([strict.close(), insecure.close()]);
  } finally {
    await s.stop();
  }
});

test('injected 429 and 503 with Retry-After are retried on the client clock; without it the error surfaces', async () => {
  const s = await startApiServer();
  try {
    await seed(s);
    const clock = new FakeClock(0);
    // No read idle timer: the only timer on the clock is then the Retry-After sleep this test pins.
    const client = new RestClient(configFor(s), { clock, readIdleTimeoutMs: 0 });
    s.faults.failNext({ verb: 'get', resource: 'pods', status: 429, retryAfterSeconds: 3, count: 1 });
    s.faults.failNext({ verb: 'get', resource: 'pods', status: 503, retryAfterSeconds: 1, count: 1 });
    const pending = client.json<Pod>(buildGet({ ...podsLoc('ns'), name: 'a' }));
    await clock.waitForWaiters(1);
    assert.equal(clock.nextTimerIn(), 3000);
    await clock.step(3000);
    await clock.waitForWaiters(1);
    assert.equal(clock.nextTimerIn(), 1000);
    await clock.step(1000);
    assert.equal((await pending).metadata?.name, 'a');

    s.faults.failNext({ verb: 'get', resource: 'pods', status: 500 });
    await assert.rejects(client.json(buildGet({ ...podsLoc('ns'), name: 'a' })), (e) => isInternalError(e));
    s.faults.failNext({ verb: 'list', resource: 'pods', status: 503, retryAfterSeconds: 1, count: 20 });
    const capped = new RestClient(configFor(s), { clock, maxRetries: 2, readIdleTimeoutMs: 0 });
    const failing = capped.json(buildList(podsLoc('ns'))).catch((e: unknown) => e);
    for (let i = 0; i < 2; i++) {
      await clock.waitForWaiters(1);
      await clock.step(1000);
    }
    const err = await failing;
    assert.ok(isServiceUnavailable(err));
    assert.equal((err as StatusError).status.details?.retryAfterSeconds, 1);
    s.faults.reset();
    await Promise.all([client.close(), capped.close()]);
  } finally {
    await s.stop();
  }
});

test('429 errors keep the server Status so isTooManyRequests works when retries are off', async () => {
  const s = await startApiServer();
  try {
    const client = new RestClient(configFor(s), { maxRetries: 0 });
    s.faults.failNext({ verb: 'list', resource: 'pods', status: 429, retryAfterSeconds: 2 });
    const err = await client.json(buildList(podsLoc('default'))).catch((e: unknown) => e);
    assert.ok(err instanceof StatusError && isTooManyRequests(err));
    await client.close();
  } finally {
    await s.stop();
  }
});

test('watch faults: a cut event and a malformed line are WatchDecodeErrors after the events before them', async () => {
  const s = await startApiServer();
  try {
    await seed(s);
    const client = newClientset(configFor(s));
    const pods = client.coreV1().pods('ns');
    const rv = (await pods.list()).metadata!.resourceVersion!;

    const w1 = await pods.watch({ resourceVersion: rv });
    s.faults.cutNextWatchEvent('pods');
    await pods.create(pod('d'));
    await assert.rejects(
      (async () => {
        for await (const _ of w1) assert.fail('the cut event must not be delivered');
      })(),
      WatchDecodeError,
    );

    const w2 = await pods.watch({ resourceVersion: rv });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of w2) {
          seen.push(`${e.type}:${e.type === 'ERROR' ? '' : e.object.metadata?.name}`);
          if (seen.length === 1) s.faults.malformedNextWatchLine('pods');
        }
      })(),
      WatchDecodeError,
    );
    assert.deepEqual(seen, ['ADDED:d']);
    await client.close();
  } finally {
    await s.stop();
  }
});

test('watch: closeWatches ends iteration cleanly; a compacted resourceVersion yields an ERROR that raiseWatchErrors throws as expired', async () => {
  const s = await startApiServer();
  try {
    await seed(s);
    const client = newClientset(configFor(s));
    const pods = client.coreV1().pods('ns');
    const rv = (await pods.list()).metadata!.resourceVersion!;
    const w = await pods.watch({ resourceVersion: rv });
    const ended = (async () => {
      let n = 0;
      for await (const _ of w) n++;
      return n;
    })();
    s.faults.closeWatches('pods');
    assert.equal(await ended, 0);

    await pods.create(pod('e'));
    s.faults.compact();
    // As kube-apiserver, a too-old resourceVersion is accepted (200) and answered with one ERROR event.
    const types: string[] = [];
    for await (const e of await pods.watch({ resourceVersion: rv })) types.push(`${e.type}:${e.type === 'ERROR' ? e.object.code : ''}`);
    assert.deepEqual(types, ['ERROR:410']);
    await assert.rejects(
      (async () => {
        for await (const _ of raiseWatchErrors(await pods.watch({ resourceVersion: rv }))) assert.fail('no events before the error');
      })(),
      (e) => e instanceof StatusError && isExpired(e),
    );
    await client.close();
  } finally {
    await s.stop();
  }
});

test('a missing object is a NotFound StatusError carrying the server Status', async () => {
  const s = await startApiServer();
  try {
    const cs = newClientset(configFor(s));
    await cs.coreV1().namespaces().create({ metadata: { name: 'ns' } });
    const err = await cs.coreV1().configMaps('ns').get('missing').catch((e: unknown) => e);
    assert.ok(err instanceof StatusError && isNotFound(err));
    assert.equal(err.status.details?.name, 'missing');
    await cs.close();
  } finally {
    await s.stop();
  }
});

test('1,000 sequential GETs open a handful of connections, not one per request', async () => {
  const s = await startApiServer();
  let connections = 0;
  // Count connections through a counting TCP-level proxy: the embedded server's own socket set is private.
  const proxy = http.createServer();
  proxy.on('connection', () => connections++);
  proxy.on('request', (req, res) => {
    const upstream = http.request(`${s.url}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  try {
    await seed(s);
    const client = newClientset({ host: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`, qps: -1 });
    const before = connections;
    for (let i = 0; i < 1000; i++) await client.coreV1().pods('ns').get('a');
    // Sequential requests alternate between at most two pooled sockets (see src/rest/client.test.ts).
    assert.ok(connections - before <= 2, `${connections - before} connections for 1,000 sequential GETs`);
    const afterSequential = connections;
    for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 16 }, () => client.coreV1().pods('ns').get('b')));
    // 16-way concurrency settles on at most two sockets per concurrent request, however many rounds run.
    assert.ok(connections - afterSequential <= 32, `${connections - afterSequential} new connections for 10 rounds of 16 concurrent GETs`);
    await client.close();
  } finally {
    proxy.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
    await s.stop();
  }
});
