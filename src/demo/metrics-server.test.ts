import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Registry } from 'prom-client';
import { startMetricsServer } from './metrics-server.ts';

test('metrics server: /metrics in Prometheus text, /healthz from the leader-election check, /readyz from cache sync', async (t) => {
  const registry = new Registry();
  new Counter({ name: 'demo_things_total', help: 'things', registers: [registry] }).inc(3);
  let unhealthy: Error | undefined = undefined;
  let ready = false;
  const server = await startMetricsServer({ registry, healthz: () => unhealthy, readyz: () => ready });
  t.after(() => server.stop());
  const get = async (path: string): Promise<[number, string]> => {
    const res = await fetch(`${server.url}${path}`);
    return [res.status, await res.text()];
  };
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const [code, body] = await get('/metrics');
  assert.equal(code, 200);
  assert.match(body, /^demo_things_total 3$/m);
  assert.deepEqual(await get('/healthz'), [200, 'ok\n']);
  assert.deepEqual(await get('/readyz'), [503, '[-]informer caches not synced\nreadyz check failed\n']);
  ready = true;
  assert.deepEqual(await get('/readyz'), [200, 'ok\n']);
  unhealthy = new Error('leader stuck');
  assert.deepEqual(await get('/healthz'), [500, '[-]leaderElection failed: leader stuck\nhealthz check failed\n']);
  assert.equal((await get('/nope'))[0], 404);
  assert.equal((await fetch(`${server.url}/metrics`, { method: 'POST' })).status, 405);
});

test('metrics server without a registry (prom-client not installed): /metrics answers 404 with the reason, probes still work', async (t) => {
  const server = await startMetricsServer({ healthz: () => undefined, readyz: () => true });
  t.after(() => server.stop());
  const res = await fetch(`${server.url}/metrics`);
  assert.deepEqual([res.status, await res.text()], [404, 'metrics are off: install prom-client to serve them\n']);
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
});
