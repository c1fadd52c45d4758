import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../../api/core/v1.ts';
import { RestClient } from '../../rest/client.ts';
import { ResourceClient } from '../../kubernetes/resource-client.ts';
import { startApiServer } from '../../testing/index.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import { newListWatchFromClient } from '../cache/listwatch.ts';
import { SharedIndexInformer } from '../cache/shared-informer.ts';
import type { WatchEvent } from '../../apimachinery/watch.ts';
import { untilWithoutRetry, untilWithSync, waitFor, WaitTimeoutError, WatchClosedError, type InformerEventSource } from './until.ts';

async function* events<T>(list: WatchEvent<T>[]): AsyncGenerator<WatchEvent<T>> {
  for (const e of list) yield e;
}

test('untilWithoutRetry resolves with the first matching event, skipping bookmarks', async () => {
  const seen: string[] = [];
  const got = await untilWithoutRetry<ConfigMap>(
    events([
      { type: 'ADDED', object: { metadata: { name: 'a' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '5' } } },
      { type: 'MODIFIED', object: { metadata: { name: 'a' }, data: { ok: 'yes' } } },
      { type: 'DELETED', object: { metadata: { name: 'a' } } },
    ]),
    (e) => {
      seen.push(e.type);
      return e.object.data?.['ok'] === 'yes';
    },
  );
  assert.equal(got.type, 'MODIFIED');
  assert.deepEqual(seen, ['ADDED', 'MODIFIED']);
});

test('untilWithoutRetry rejects when the watch closes first, on an ERROR event, and on timeout', async () => {
  await assert.rejects(untilWithoutRetry<ConfigMap>(events([]), () => true), WatchClosedError);
  await assert.rejects(
    untilWithoutRetry<ConfigMap>(events<ConfigMap>([{ type: 'ERROR', object: { code: 410, reason: 'Expired', message: 'too old' } }]), () => true),
    (err: unknown) => (err as Error).message === 'too old',
  );
  const clock = new FakeClock();
  const never: AsyncIterable<WatchEvent<ConfigMap>> = { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) };
  const waiting = assert.rejects(untilWithoutRetry(never, () => true, { clock, timeoutMs: 1000 }), WaitTimeoutError);
  await clock.step(1000);
  await waiting;
});

test('untilWithSync finds an object already satisfying the condition, then one that comes to satisfy it, against the API server', async (t) => {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url });
  t.after(async () => {
    await rest.close();
    await server.stop();
  });
  const cms = new ResourceClient<ConfigMap>(rest, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, namespace: 'default' });
  await cms.create({ metadata: { name: 'ready' }, data: { phase: 'done' } });
  const lw = newListWatchFromClient(cms);
  const done = (e: { type: string; object: ConfigMap }): boolean => e.type !== 'DELETED' && e.object.data?.['phase'] === 'done';

  const first = await untilWithSync(lw, done);
  assert.equal(first?.object.metadata?.name, 'ready');
  assert.equal(first?.type, 'ADDED');

  const pending = untilWithSync(lw, (e) => e.object.metadata?.name === 'later' && done(e));
  await cms.create({ metadata: { name: 'later' }, data: { phase: 'running' } });
  await cms.patch('later', 'application/merge-patch+json', { data: { phase: 'done' } });
  const second = await pending;
  assert.equal(second?.type, 'MODIFIED');
  assert.equal(second?.object.data?.['phase'], 'done');

  // A precondition that holds on the listed state ends the wait at once.
  assert.equal(await untilWithSync(lw, () => false, { precondition: (store) => store.has('default/ready') }), undefined);

  // A closed watch relists and keeps waiting.
  const waiters: (() => void)[] = [];
  const watchStarted = (): Promise<void> => new Promise<void>((r) => waiters.push(r));
  let started = watchStarted();
  const watches: number[] = [];
  const counted = {
    list: lw.list.bind(lw),
    watch: async (o: Parameters<typeof lw.watch>[0]) => {
      const w = await lw.watch(o);
      watches.push(watches.length + 1);
      waiters.shift()?.();
      return w;
    },
  };
  const afterClose = untilWithSync(counted, (e) => e.type === 'DELETED' && e.object.metadata?.name === 'later');
  await started;
  started = watchStarted();
  server.faults.closeWatches();
  await started;
  await cms.delete('later');
  assert.equal((await afterClose)?.object.metadata?.name, 'later');
  assert.deepEqual(watches, [1, 2], 'the closed watch was followed by a relist and a second watch');

  const ac = new AbortController();
  const aborted = untilWithSync(lw, () => false, { signal: ac.signal });
  ac.abort(new Error('stop'));
  await assert.rejects(aborted, /stop/);
});

test('waitFor resolves with the first cached or future object matching, and removes its handler', async () => {
  type Handler = Parameters<InformerEventSource<ConfigMap, number>['addEventHandler']>[0];
  const handlers = new Map<number, Handler>();
  let next = 0;
  const cached: ConfigMap = { metadata: { name: 'a' }, data: { v: '1' } };
  const informer: InformerEventSource<ConfigMap, number> = {
    addEventHandler(h) {
      handlers.set(++next, h);
      h.onAdd(cached, true);
      return next;
    },
    removeEventHandler(r) {
      handlers.delete(r);
    },
  };
  assert.equal(await waitFor(informer, (cm) => cm.data?.['v'] === '1'), cached);
  assert.equal(handlers.size, 0);
  const later = waitFor(informer, (cm) => cm.data?.['v'] === '2');
  const updated = { metadata: { name: 'a' }, data: { v: '2' } };
  for (const h of handlers.values()) h.onUpdate(cached, updated);
  assert.equal(await later, updated);
  assert.equal(handlers.size, 0);

  const clock = new FakeClock();
  const timedOut = assert.rejects(waitFor(informer, () => false, { clock, timeoutMs: 50 }), WaitTimeoutError);
  await clock.step(50);
  await timedOut;
  assert.equal(handlers.size, 0);
});

test('waitFor over a running SharedIndexInformer against the API server', async (t) => {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url });
  const stop = new AbortController();
  const cms = new ResourceClient<ConfigMap>(rest, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, namespace: 'default' });
  await cms.create({ metadata: { name: 'a' }, data: { v: '1' } });
  const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cms));
  const running = informer.run({ signal: stop.signal });
  t.after(async () => {
    stop.abort();
    await running;
    await rest.close();
    await server.stop();
  });
  // Present in the cache already.
  assert.equal((await waitFor(informer, (cm) => cm.data?.['v'] === '1', { timeoutMs: 20_000 })).metadata?.name, 'a');
  // Arrives later.
  const later = waitFor(informer, (cm) => cm.metadata?.name === 'b' && cm.data?.['v'] === '2', { timeoutMs: 20_000 });
  await cms.create({ metadata: { name: 'b' }, data: { v: '1' } });
  await cms.patch('b', 'application/merge-patch+json', { data: { v: '2' } });
  assert.equal((await later).data?.['v'], '2');
});
