import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../apiserver/index.ts';
import { newSharedInformerFactory } from '../informers/factory.ts';
import { newManager } from './manager.ts';

test("mgr.add(factory) runs a user's SharedInformerFactory with the caches: synced before leader runnables start, shut down on stop", async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const factory = newSharedInformerFactory({ host: server.url, qps: -1 });
  const configMaps = factory.coreV1().configMaps();
  const informer = configMaps.informer();
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: { debug() {}, info() {}, error() {} } });
  mgr.add(factory);
  let syncedWhenStarted: boolean | undefined;
  mgr.add({
    start: async (signal) => {
      syncedWhenStarted = informer.hasSynced();
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    },
  });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  while (syncedWhenStarted === undefined) await new Promise<void>((r) => setImmediate(r));
  assert.equal(syncedWhenStarted, true);
  stop.abort();
  await running;
  assert.equal(informer.isStopped(), true);
});
