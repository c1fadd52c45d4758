import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { startApiServer } from '../apiserver/index.ts';
import { kinds } from '../client/kinds.ts';
import type { LogFields } from '../tools/events/logger.ts';
import { FakeClock } from '../util/clock/clock.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { InformerIntrospection } from './introspection.ts';
import { newManager } from './manager.ts';

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await turn();
}

test('A watch stalled by the server is detected after its timeout plus the margin, counted, logged and relisted; a healthy one is not', async (t) => {
  const clock = new FakeClock();
  const server = await startApiServer({ clock });
  t.after(() => server.stop());
  const errors: Array<{ message: string; fields: LogFields | undefined }> = [];
  const registry = new Registry();
  const mgr = newManager({ host: server.url, qps: -1 }, { clock, metricsRegistry: registry as unknown as PrometheusRegistry, logger: { debug() {}, info() {}, error: (message, fields) => errors.push({ message, fields }) } });
  mgr.getCache().informerFor(kinds.coreV1.configMaps);
  mgr.getCache().informerFor(kinds.coreV1.secrets);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  const informers = (): readonly InformerIntrospection[] => mgr.introspect().informers;
  const cm = (): InformerIntrospection => informers().find((i) => i.resource === 'v1, Resource=configmaps')!;
  // Both informers synced and watching.
  while (!informers().every((i) => i.synced && i.watchTimeoutSeconds > 0)) await settle();
  const entry = mgr.getCache().informerEntries().find((e) => e.description === 'v1, Resource=configmaps')!;
  const before = entry.informer.reflectorStats()!;
  assert.equal(server.faults.stallWatches('configmaps'), 1);

  const detector = mgr.getStalledWatchDetector()!;
  const timeoutMs = before.watchTimeoutMs;
  const lastProgress = before.lastProgressTime!;
  // Step the clock by the detector's check period until it reports the stall.
  while (detector.stalls().length === 0) {
    assert.ok(clock.now() - lastProgress <= timeoutMs + 15_000 + 5_000, 'not detected within timeout + margin + one check period');
    await clock.step(5_000);
    await settle();
  }
  const detectedAfterMs = detector.stalls()[0]!.time - lastProgress;
  assert.equal(detector.stalls()[0]!.silentMs, detectedAfterMs);
  assert.ok(detectedAfterMs > timeoutMs + 15_000, `detected after ${detectedAfterMs} ms, watch timeout ${timeoutMs} ms`);
  assert.deepEqual(
    detector.stalls().map((s) => [s.resource, s.namespace]),
    [['v1, Resource=configmaps', '']],
  );
  assert.equal(errors.filter((e) => e.message.startsWith('Watch stalled')).length, 1);
  assert.equal(errors.find((e) => e.message.startsWith('Watch stalled'))!.fields?.['resource'], 'v1, Resource=configmaps');
  const metric = await registry.getSingleMetricAsString('kubeloom_informer_stalled_watches_total');
  assert.match(metric, /kubeloom_informer_stalled_watches_total\{resource="v1, Resource=configmaps"\} 1/);
  // The relist happened: a second list, and the informer watches again.
  while (cm().lists < 2 || cm().watchTimeoutSeconds === 0) await settle();
  assert.equal(cm().relists, 1);
  // Changes reach the informer again.
  await mgr.getClient().create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'after-stall' } });
  while (mgr.getCache().peek(kinds.coreV1.configMaps, 'default', 'after-stall') === undefined) await settle();
  // The secrets informer, whose watch stayed healthy (bookmarks, a server close at its timeout), was never reported.
  assert.equal(informers().find((i) => i.resource === 'v1, Resource=secrets')!.relists, 0);
  assert.equal(detector.stalls().length, 1);
  t.diagnostic(`watch timeout ${timeoutMs / 1000} s; stall detected ${(detectedAfterMs - timeoutMs) / 1000} s after it, ${detectedAfterMs / 1000} s after the last event (fake clock)`);
});

test('With { relist: false } a stalled watch is reported but not relisted; with false there is no detector', async (t) => {
  const clock = new FakeClock();
  const server = await startApiServer({ clock });
  t.after(() => server.stop());
  const quiet = { debug() {}, info() {}, error() {} };
  assert.equal(newManager({ host: server.url, qps: -1 }, { clock, logger: quiet, stalledWatchDetection: false }).getStalledWatchDetector(), undefined);
  const mgr = newManager({ host: server.url, qps: -1 }, { clock, logger: quiet, stalledWatchDetection: { relist: false } });
  mgr.getCache().informerFor(kinds.coreV1.configMaps);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  const entry = (): InformerIntrospection => mgr.introspect().informers[0]!;
  for (let i = 0; !(entry().synced && entry().watchTimeoutSeconds > 0); i++) {
    assert.ok(i < 2000, 'never synced: ' + JSON.stringify(entry()));
    await settle();
  }
  assert.equal(server.faults.stallWatches('configmaps'), 1);
  const detector = mgr.getStalledWatchDetector()!;
  for (let i = 0; detector.stalls().length === 0; i++) {
    assert.ok(i < 300, 'never detected: ' + JSON.stringify(entry()));
    await clock.step(5_000);
    await settle();
  }
  // Reported once, and not relisted.
  assert.equal(entry().lists, 1);
  for (let i = 0; i < 4; i++) {
    await clock.step(5_000);
    await settle();
  }
  assert.equal(detector.stalls().length, 1);
  assert.equal(entry().lists, 1);
});
