import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../api/coordination/v1.ts';
import { startApiServer, type ApiServer } from '../apiserver/index.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { kinds } from '../client/kinds.ts';
import { eventually } from '../testing/eventually.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { GracefulShutdownTimeoutError, LeaderElectionLostError, newManager, type ManagerOptions } from './manager.ts';
import { RunnableGroup, type Runnable } from './runnable.ts';

const quiet = { debug() {}, info() {}, error() {} };
const fastLease = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 };

async function withServer(t: import('node:test').TestContext): Promise<ApiServer> {
  const server = await startApiServer();
  t.after(() => server.stop());
  return server;
}

function started(order: string[], name: string, extra: Partial<Runnable> = {}): Runnable {
  return {
    ...extra,
    start: async (signal) => {
      order.push(name);
      await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));
      order.push(`${name} stopped`);
    },
  };
}

function holdLease(server: ApiServer, holder: string): Promise<Lease> {
  const now = new Date().toISOString().replace('Z', '000Z');
  const body = { metadata: { namespace: 'default', name: 'test-lock' }, spec: { holderIdentity: holder, leaseDurationSeconds: 3600, acquireTime: now, renewTime: now } };
  return fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<Lease>);
}

test('Manager starts HTTP servers, webhooks, caches, then others on every replica; leader-only runnables wait for the Lease', async (t) => {
  const server = await withServer(t);
  await holdLease(server, 'someone-else');
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet, healthProbeBindAddress: '127.0.0.1:0', leaderElection: { id: 'test-lock', identity: 'me', ...fastLease } });
  const order: string[] = [];
  mgr.getCache().informerFor(kinds.coreV1.configMaps);
  mgr.add(started(order, 'leader-only'));
  mgr.add(started(order, 'other', { needLeaderElection: () => false, waitReady: async () => (order.push(`other ready (cache synced: ${mgr.getCache().hasSynced()})`), true) }));
  mgr.addWebhookServer(started(order, 'webhook', { waitReady: async () => (order.push(`webhook ready (probes at ${mgr.addresses().healthProbe !== undefined})`), true) }));
  mgr.add(started(order, 'late-server', { runnableGroup: RunnableGroup.HttpServers }));
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await eventually(() => order.includes('other'), { timeoutMs: 5_000 });
  assert.deepEqual(order.slice(0, 4), ['late-server', 'webhook', 'webhook ready (probes at true)', 'other']);
  assert.ok(order.includes('other ready (cache synced: true)'));
  assert.equal(order.includes('leader-only'), false);
  // The other holder goes away: this replica takes the Lease and starts its leader-only runnables.
  await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/test-lock`, { method: 'DELETE' });
  await mgr.elected();
  await eventually(() => order.includes('leader-only'), { timeoutMs: 5_000 });
  stop.abort();
  await running;
  assert.deepEqual(
    order.filter((o) => o.endsWith('stopped')),
    ['leader-only stopped', 'other stopped', 'webhook stopped', 'late-server stopped'],
  );
});

test('Manager stops with LeaderElectionLostError when its Lease is taken away', async (t) => {
  const server = await withServer(t);
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet, leaderElection: { id: 'test-lock', identity: 'me', ...fastLease } });
  const stopped: string[] = [];
  mgr.add(started(stopped, 'leader-only'));
  const running = mgr.start(new AbortController().signal);
  await mgr.elected();
  const lease = (await (await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/test-lock`)).json()) as Lease;
  lease.spec = { ...lease.spec, holderIdentity: 'thief', leaseDurationSeconds: 3600, renewTime: new Date().toISOString().replace('Z', '000Z') };
  await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/test-lock`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(lease) });
  await assert.rejects(running, LeaderElectionLostError);
  await eventually(() => stopped.includes('leader-only stopped'), { timeoutMs: 5_000 });
});

test('Manager rejects with GracefulShutdownTimeoutError when a runnable outlives the grace period', async () => {
  const clock = new FakeClock();
  const mgr = newManager({ host: 'http://127.0.0.1:1' }, { logger: quiet, clock, gracefulShutdownTimeoutMs: 5_000 });
  let release!: () => void;
  mgr.add({ needLeaderElection: () => false, start: () => new Promise<void>((r) => (release = r)) });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await eventually(() => release !== undefined, { timeoutMs: 5_000 });
  stop.abort();
  const rejected = assert.rejects(running, GracefulShutdownTimeoutError);
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
  await clock.step(5_000);
  await rejected;
  release();
});

test('a runnable error stops the manager with that error; controller names must be unique', async (t) => {
  const server = await withServer(t);
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet });
  controllerManagedBy(mgr).for(kinds.coreV1.configMaps).complete(() => undefined);
  assert.throws(() => controllerManagedBy(mgr).for(kinds.coreV1.configMaps).complete(() => undefined), /controller with name configmap already exists/);
  mgr.add({ needLeaderElection: () => false, start: () => Promise.reject(new Error('runnable failed')) });
  await assert.rejects(mgr.start(new AbortController().signal), /runnable failed/);
});

test('probes and metrics: named checks on /healthz and /readyz, controller-runtime metric names on /metrics, each on its own address', async (t) => {
  const server = await withServer(t);
  const options: ManagerOptions = { logger: quiet, healthProbeBindAddress: '127.0.0.1:0', metricsBindAddress: '127.0.0.1:0', leaderElection: { id: 'probe-lock', ...fastLease } };
  const mgr = newManager({ host: server.url, qps: -1 }, options);
  let ready = false;
  mgr.addReadyzCheck('informers', mgr.cacheSyncedCheck());
  mgr.addReadyzCheck('custom', () => (ready ? undefined : new Error('not yet')));
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps)
    .complete(() => undefined);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await mgr.elected();
  const { healthProbe, metrics } = mgr.addresses();
  assert.notEqual(healthProbe, metrics);
  const get = async (addr: string, path: string): Promise<[number, string]> => {
    const r = await fetch(`http://${addr}${path}`);
    return [r.status, await r.text()];
  };
  assert.deepEqual(await get(healthProbe!, '/healthz'), [200, 'ok']);
  assert.deepEqual(await get(healthProbe!, '/healthz?verbose'), [200, '[+]leaderElection ok\n[+]ping ok\nhealthz check passed\n']);
  assert.deepEqual(await get(healthProbe!, '/readyz'), [500, '[-]custom failed: reason withheld\n[+]informers ok\nhealthz check failed\n']);
  assert.deepEqual(await get(healthProbe!, '/readyz/informers'), [200, 'ok']);
  assert.deepEqual((await get(healthProbe!, '/readyz/nope'))[0], 404);
  ready = true;
  assert.deepEqual(await get(healthProbe!, '/readyz'), [200, 'ok']);
  await mgr.getClient().create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'm' } });
  await eventually(async () => (await get(metrics!, '/metrics'))[1].includes('controller_runtime_reconcile_total{controller="configmap",result="success"}'), { timeoutMs: 5_000 });
  const [, text] = await get(metrics!, '/metrics');
  for (const name of [
    'controller_runtime_reconcile_errors_total{controller="configmap"} 0',
    'controller_runtime_terminal_reconcile_errors_total{controller="configmap"} 0',
    'controller_runtime_reconcile_panics_total{controller="configmap"} 0',
    'controller_runtime_reconcile_time_seconds_bucket',
    'controller_runtime_active_workers{controller="configmap"}',
    'controller_runtime_max_concurrent_reconciles{controller="configmap"} 1',
    'workqueue_adds_total{name="configmap",controller="configmap"}',
    'workqueue_depth{name="configmap",controller="configmap",priority="0"}',
    'workqueue_queue_duration_seconds_bucket{le="1e-8",name="configmap",controller="configmap"}',
    'rest_client_requests_total{code="201",method="POST"',
    'rest_client_request_duration_seconds_bucket{le="0.005",verb="POST"',
    'rest_client_request_size_bytes_bucket{le="64",verb="POST"',
    'rest_client_response_size_bytes_bucket{le="64",verb="POST"',
    '# TYPE rest_client_rate_limiter_duration_seconds histogram',
    '# TYPE process_cpu_seconds_total counter',
    '# TYPE process_resident_memory_bytes gauge',
    '# TYPE process_start_time_seconds gauge',
    '# TYPE nodejs_eventloop_lag_seconds gauge',
    'leader_election_master_status{name="probe-lock"} 1',
  ]) {
    assert.ok(text.includes(name), `missing ${name}`);
  }
  assert.equal((await get(metrics!, '/other'))[0], 404);
});

test('stopping a manager with releaseOnCancel does not wait on a reconcile blocked in a read-your-writes wait, and releases the Lease', async (t) => {
  // The server's injected watch delay runs on this clock: stepped at the end, it frees the stalled watch.
  const serverClock = new FakeClock(Date.now());
  const server = await startApiServer({ clock: serverClock });
  t.after(async () => {
    await serverClock.step(60_000);
    await server.stop();
  });
  // A read-your-writes bound of 10 minutes: only the stop can end the wait in time for the test.
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet, client: { readYourWritesTimeoutMs: 600_000 }, leaderElection: { id: 'ryw-lock', namespace: 'default', identity: 'me', releaseOnCancel: true, ...fastLease } });
  let reading = false;
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps)
    .complete(async (req, { client }) => {
      const cm = await client.get(kinds.coreV1.configMaps, req);
      if (cm.data?.['v'] !== '1') return;
      // The watch stalls: the read after this write waits for the cache.
      server.faults.delay({ verb: 'watch', resource: 'configmaps', ms: 60_000, count: 1 });
      server.faults.closeWatches('configmaps');
      await client.update(kinds.coreV1.configMaps, { ...cm, data: { v: '2' } });
      reading = true;
      await client.get(kinds.coreV1.configMaps, req);
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  await mgr.getClient().create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'ryw' }, data: { v: '1' } });
  await eventually(() => reading, { timeoutMs: 10_000 });
  stop.abort();
  await running;
  const lease = (await (await fetch(`${server.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/ryw-lock`)).json()) as Lease;
  assert.equal(lease.spec?.holderIdentity ?? '', '');
});

test('leader election logs "attempting to acquire leader lease" once', async (t) => {
  const server = await withServer(t);
  const infos: string[] = [];
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: { debug() {}, info: (m) => infos.push(m), error() {} }, leaderElection: { id: 'once-lock', namespace: 'default', ...fastLease } });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  stop.abort();
  await running;
  assert.equal(infos.filter((m) => m === 'attempting to acquire leader lease').length, 1);
});

test('objects the cache got from a LIST carry their kind, so the event recorder can reference them (as on kube-apiserver v1.24, which has no watch-list)', async (t) => {
  const server = await withServer(t);
  await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'listed' } }) });
  // The first watch (the reflector's watch-list) fails, so the informer falls back to LIST.
  server.faults.failNext({ verb: 'watch', resource: 'configmaps', status: 500 });
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running.catch(() => undefined);
  });
  const cm = await eventually(() => mgr.getClient().get(kinds.coreV1.configMaps, { namespace: 'default', name: 'listed' }), { timeoutMs: 10_000 });
  assert.equal(cm.kind, 'ConfigMap');
  assert.equal(cm.apiVersion, 'v1');
  mgr.getEventRecorderFor('kind-test').eventf(cm, undefined, 'Normal', 'Listed', 'Read', 'read from the cache');
  const events = await eventually(async () => {
    const r = (await (await fetch(`${server.url}/apis/events.k8s.io/v1/namespaces/default/events`)).json()) as { items: { regarding?: { kind?: string; name?: string } }[] };
    const found = r.items.find((e) => e.regarding?.name === 'listed');
    assert.ok(found);
    return found;
  }, { timeoutMs: 10_000 });
  assert.equal(events.regarding?.kind, 'ConfigMap');
});
