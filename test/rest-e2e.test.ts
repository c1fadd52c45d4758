import assert from 'node:assert/strict';
import net from 'node:net';
import type { Pod } from '../src/api/core/v1.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { isExpired, isInternalError, isNotFound, isServiceUnavailable, isTooManyRequests, isUnauthorized, StatusError } from '../src/apimachinery/errors.ts';
import { RestClient, raiseWatchErrors, WatchDecodeError, NetworkError, buildGet, buildList, buildWatch } from '../src/rest/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { Capability, e2eTest, type E2eEnv } from './support/backend.ts';

const podsLoc = (namespace: string) => ({ group: '', version: 'v1', namespace, resource: 'pods' });
const pod = (name: string, labels: Record<string, string> = {}): Pod => ({ metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

async function seed(env: E2eEnv): Promise<void> {
  for (const n of ['a', 'b', 'c']) await env.cs.coreV1().pods(env.namespace).create(pod(n, { app: n === 'c' ? 'db' : 'web' }));
}

for (const tls of [false, true]) {
  const scheme = tls ? 'HTTPS' : 'HTTP';

  e2eTest(`${scheme}: GET, LIST with selectors and WATCH through one connection pool, with a bearer token`, { tls, token: true }, async (env) => {
    await seed(env);
    const ns = env.namespace;
    const client = new RestClient(env.restConfig());
    const got = await client.json<Pod>(buildGet({ ...podsLoc(ns), name: 'a' }));
    assert.equal(got.metadata?.name, 'a');
    assert.equal(got.kind, 'Pod');
    const list = await client.json<{ items: Pod[] }>(buildList(podsLoc(ns), { labelSelector: 'app=web' }));
    assert.deepEqual(list.items.map((p) => p.metadata?.name), ['a', 'b']);
    const w = await client.watch<Pod>(buildWatch(podsLoc(ns), { resourceVersion: '0', labelSelector: 'app in (db)' }));
    for await (const e of w) {
      assert.equal(e.type, 'ADDED');
      assert.equal(e.type === 'ADDED' && e.object.metadata?.name, 'c');
      break;
    }
    const unauth = new RestClient(env.restConfig({ bearerToken: 'wrong' }));
    await assert.rejects(unauth.json(buildGet({ ...podsLoc(ns), name: 'a' })), (e) => isUnauthorized(e));
    await Promise.all([client.close(), unauth.close()]);
  });
}

e2eTest('HTTPS without the CA is refused with a NetworkError keeping the TLS cause; insecure skips verification', { tls: true }, async (env) => {
  const { tls: _ca, ...withoutCa } = env.restConfig();
  const strict = new RestClient(withoutCa);
  const err = await strict.json(buildList(podsLoc(env.namespace))).catch((e: unknown) => e);
  assert.ok(err instanceof NetworkError);
  assert.match(String((err.cause as Error).message ?? err.cause), /certificate/i);
  const insecure = new RestClient({ ...withoutCa, tls: { insecure: true } });
  assert.deepEqual((await insecure.json<{ items: unknown[] }>(buildList(podsLoc(env.namespace)))).items, []);
  await Promise.all([strict.close(), insecure.close()]);
});

e2eTest('injected 429 and 503 with Retry-After are retried on the client clock; without it the error surfaces', { needs: [Capability.Faults] }, async (env) => {
  await seed(env);
  const ns = env.namespace;
  const clock = new FakeClock(0);
  // No read idle timer: the only timer on the clock is then the Retry-After sleep this test pins.
  const client = new RestClient(env.restConfig(), { clock, readIdleTimeoutMs: 0 });
  env.faults.failNext({ verb: 'get', resource: 'pods', status: 429, retryAfterSeconds: 3, count: 1 });
  env.faults.failNext({ verb: 'get', resource: 'pods', status: 503, retryAfterSeconds: 1, count: 1 });
  const pending = client.json<Pod>(buildGet({ ...podsLoc(ns), name: 'a' }));
  await clock.waitForWaiters(1);
  assert.equal(clock.nextTimerIn(), 3000);
  await clock.step(3000);
  await clock.waitForWaiters(1);
  assert.equal(clock.nextTimerIn(), 1000);
  await clock.step(1000);
  assert.equal((await pending).metadata?.name, 'a');

  env.faults.failNext({ verb: 'get', resource: 'pods', status: 500 });
  await assert.rejects(client.json(buildGet({ ...podsLoc(ns), name: 'a' })), (e) => isInternalError(e));
  env.faults.failNext({ verb: 'list', resource: 'pods', status: 503, retryAfterSeconds: 1, count: 20 });
  const capped = new RestClient(env.restConfig(), { clock, maxRetries: 2, readIdleTimeoutMs: 0 });
  const failing = capped.json(buildList(podsLoc(ns))).catch((e: unknown) => e);
  for (let i = 0; i < 2; i++) {
    await clock.waitForWaiters(1);
    await clock.step(1000);
  }
  const err = await failing;
  assert.ok(isServiceUnavailable(err));
  assert.equal((err as StatusError).status.details?.retryAfterSeconds, 1);
  env.faults.reset();
  await Promise.all([client.close(), capped.close()]);
});

e2eTest('429 errors keep the server Status so isTooManyRequests works when retries are off', { needs: [Capability.Faults] }, async (env) => {
  const client = new RestClient(env.restConfig(), { maxRetries: 0 });
  env.faults.failNext({ verb: 'list', resource: 'pods', status: 429, retryAfterSeconds: 2 });
  const err = await client.json(buildList(podsLoc(env.namespace))).catch((e: unknown) => e);
  assert.ok(err instanceof StatusError && isTooManyRequests(err));
  await client.close();
});

e2eTest('watch faults: a cut event and a malformed line are WatchDecodeErrors after the events before them', { needs: [Capability.Faults] }, async (env) => {
  await seed(env);
  const pods = env.cs.coreV1().pods(env.namespace);
  const rv = (await pods.list()).metadata!.resourceVersion!;

  const w1 = await pods.watch({ resourceVersion: rv });
  env.faults.cutNextWatchEvent('pods');
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
        if (seen.length === 1) env.faults.malformedNextWatchLine('pods');
      }
    })(),
    WatchDecodeError,
  );
  assert.deepEqual(seen, ['ADDED:d']);
});

e2eTest('watch: the server ending the stream (its timeoutSeconds elapsed) ends iteration cleanly', async (env) => {
  await seed(env);
  const pods = env.cs.coreV1().pods(env.namespace);
  const rv = (await pods.list()).metadata!.resourceVersion!;
  let n = 0;
  for await (const _ of await pods.watch({ resourceVersion: rv, timeoutSeconds: 1 })) n++;
  assert.equal(n, 0);
});

e2eTest('watch: a compacted resourceVersion yields an ERROR that raiseWatchErrors throws as expired', async (env) => {
  // core/v1 Events: kube-apiserver keeps no watch cache for them, so a watch from a resourceVersion
  // etcd has compacted away is answered from etcd with 410 (other resources are served from the
  // watch cache's own window; the embedded server keeps one history for all).
  const events = env.cs.coreV1().events(env.namespace);
  const event = (name: string) => ({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: env.namespace }, reason: 'Test', message: name, type: 'Normal' });
  await events.create(event('e1'));
  const rv = (await events.list()).metadata!.resourceVersion!;
  await events.create(event('e2'));
  await env.waitForCompaction(rv);
  // As kube-apiserver, a too-old resourceVersion is accepted (200) and answered with one ERROR event.
  const types: string[] = [];
  for await (const e of await events.watch({ resourceVersion: rv })) types.push(`${e.type}:${e.type === 'ERROR' ? e.object.code : ''}`);
  assert.deepEqual(types, ['ERROR:410']);
  await assert.rejects(
    (async () => {
      for await (const _ of raiseWatchErrors(await events.watch({ resourceVersion: rv }))) assert.fail('no events before the error');
    })(),
    (e) => e instanceof StatusError && isExpired(e),
  );
});

e2eTest('a missing object is a NotFound StatusError carrying the server Status', async (env) => {
  const err = await env.cs.coreV1().configMaps(env.namespace).get('missing').catch((e: unknown) => e);
  assert.ok(err instanceof StatusError && isNotFound(err));
  assert.equal(err.status.details?.name, 'missing');
});

e2eTest('1,000 sequential GETs open a handful of connections, not one per request', async (env) => {
  await seed(env);
  // Count connections through a TCP proxy in front of the server (TLS passes through untouched).
  const upstream = new URL(env.host);
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    connections++;
    const server = net.connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('error', () => {
        client.destroy();
        server.destroy();
      });
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  env.defer(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => proxy.close(() => r()));
  });
  const client = newClientset(env.restConfig({ host: `${upstream.protocol}//127.0.0.1:${(proxy.address() as net.AddressInfo).port}` }));
  const pods = client.coreV1().pods(env.namespace);
  const before = connections;
  for (let i = 0; i < 1000; i++) await pods.get('a');
  // Sequential requests alternate between at most two pooled sockets (see src/rest/client.test.ts).
  assert.ok(connections - before <= 2, `${connections - before} connections for 1,000 sequential GETs`);
  const afterSequential = connections;
  for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 16 }, () => pods.get('b')));
  // 16-way concurrency settles on at most two sockets per concurrent request, however many rounds run.
  assert.ok(connections - afterSequential <= 32, `${connections - afterSequential} new connections for 10 rounds of 16 concurrent GETs`);
  await client.close();
});
