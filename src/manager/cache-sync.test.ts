import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { startApiServer } from '../apiserver/index.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { kinds } from '../client/kinds.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { defineCustomResource } from '../kubernetes/resource-spec.ts';
import { eventually } from '../testing/eventually.ts';
import type { LogFields } from '../tools/events/logger.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { CacheSyncTimeoutError } from './cache-sync.ts';
import { NoKindMatchError } from '../cache/cache.ts';
import { newManager } from './manager.ts';

function recordingLogger(): { logger: { debug(): void; info(): void; error(m: string, f?: LogFields): void }; errors: Array<[string, LogFields | undefined]> } {
  const errors: Array<[string, LogFields | undefined]> = [];
  return { errors, logger: { debug() {}, info() {}, error: (m, f) => errors.push([m, f]) } };
}

/** A loopback port nothing listens on (a stale kubeconfig's). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('Manager logs a refused connection, fails /readyz, and rejects start() after the 2-minute cache sync timeout naming the kind and the cause', async () => {
  const port = await closedPort();
  const clock = new FakeClock();
  const { logger, errors } = recordingLogger();
  const mgr = newManager({ host: `http://127.0.0.1:${port}` }, { logger, clock, healthProbeBindAddress: '127.0.0.1:0' });
  controllerManagedBy(mgr).for(kinds.coreV1.configMaps).complete(() => undefined);
  const running = mgr.start(new AbortController().signal);
  const rejected = assert.rejects(running, (err: unknown) => {
    assert.ok(err instanceof CacheSyncTimeoutError);
    assert.equal(err.code, 'ERR_CACHE_SYNC_TIMEOUT');
    assert.deepEqual(err.kinds, ['ConfigMap (v1, Resource=configmaps)']);
    assert.equal(err.message, `timed out after 120s waiting for cache to be synced for Kind ConfigMap (v1, Resource=configmaps): connect ECONNREFUSED 127.0.0.1:${port}`);
    return true;
  });
  await eventually(() => errors.length > 0, { timeoutMs: 10_000 });
  assert.deepEqual(errors[0], ['Failed to watch', { kind: 'ConfigMap', resource: 'v1, Resource=configmaps', err: `connect ECONNREFUSED 127.0.0.1:${port}` }]);
  const probe = mgr.addresses().healthProbe!;
  const ready = await fetch(`http://${probe}/readyz/informers`);
  assert.equal(ready.status, 500);
  assert.equal(await ready.text(), `internal server error: ConfigMap (v1, Resource=configmaps) not synced: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  // Nothing happens before the timeout: one second short of it the manager still waits.
  let settled = false;
  running.then(
    () => (settled = true),
    () => (settled = true),
  );
  await clock.step(119_000);
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
  assert.equal(settled, false);
  await clock.step(1_000);
  await rejected;
});

test('a kind the server does not serve (CRD not installed) fails start() with "no matches for kind"', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const clock = new FakeClock();
  const { logger, errors } = recordingLogger();
  const websites = defineCustomResource<KubeObject>({ group: 'diag.example.com', version: 'v1', resource: 'websites', kind: 'Website', namespaced: true });
  const mgr = newManager({ host: server.url, qps: -1 }, { logger, clock, controller: { cacheSyncTimeoutMs: 30_000 } });
  controllerManagedBy(mgr).for(websites).complete(() => undefined);
  const running = mgr.start(new AbortController().signal);
  const rejected = assert.rejects(running, {
    name: 'CacheSyncTimeoutError',
    message: 'timed out after 30s waiting for cache to be synced for Kind Website (diag.example.com/v1, Resource=websites): no matches for kind "Website" in version "diag.example.com/v1" (is its CRD installed?)',
  });
  await eventually(() => errors.length > 0, { timeoutMs: 10_000 });
  assert.equal(errors[0]![1]!['err'], 'no matches for kind "Website" in version "diag.example.com/v1" (is its CRD installed?)');
  await clock.step(30_000);
  await rejected;
});

test('a read of a kind the server does not serve fails at once with NoKindMatchError instead of waiting for a sync', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const websites = defineCustomResource<KubeObject>({ group: 'diag.example.com', version: 'v1', resource: 'websites', kind: 'Website', namespaced: true });
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: recordingLogger().logger });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await mgr.elected();
  await assert.rejects(mgr.getClient().get(websites, { namespace: 'default', name: 'home' }), (err: unknown) => {
    assert.ok(err instanceof NoKindMatchError);
    assert.equal(err.code, 'ERR_NO_KIND_MATCH');
    assert.equal(err.message, 'no matches for kind "Website" in version "diag.example.com/v1"');
    return true;
  });
});
