/**
 * Unit tests without any server: a FakeListerWatcher scripts what an informer's list and watch
 * calls return, and a FakeClock drives time. Run with `node --test examples/fakes.test.ts`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubeloom/api/core/v1';

// #region fake-lister-watcher
import { FakeListerWatcher, FakeWatch, SharedIndexInformer } from 'kubeloom/tools/cache';
import { FakeClock } from 'kubeloom/util/clock';

test('the informer lists at resourceVersion 0, then applies the watch events', async () => {
  const pod: Pod = { metadata: { namespace: 'default', name: 'web-0', resourceVersion: '10' } };
  const lw = new FakeListerWatcher<Pod>({ watchListUnsupported: true }); // LIST + WATCH, no watch-list
  lw.pushList({ metadata: { resourceVersion: '10' }, items: [pod] });
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const informer = new SharedIndexInformer<Pod>(lw, { clock: new FakeClock() });
  const stop = new AbortController();
  const done = informer.run({ signal: stop.signal });

  w.modify({ ...pod, metadata: { ...pod.metadata, resourceVersion: '11', labels: { app: 'web' } } });
  // ... also w.add(obj), w.delete(obj), w.bookmark('12'), w.error(status), w.fail(err), w.end()
  while (informer.lastSyncResourceVersion() !== '11') await new Promise((resolve) => setImmediate(resolve));

  assert.deepEqual(lw.listCalls.map((o) => o.resourceVersion), ['0']);
  assert.deepEqual(informer.getIndexer().getByKey('default/web-0')?.metadata?.labels, { app: 'web' });
  stop.abort();
  await done;
});
// #endregion

// #region fake-clock
import { RateLimitingQueue } from 'kubeloom/util/workqueue';

test('a failed item comes back after 5 ms, then 10 ms', async () => {
  const clock = new FakeClock();
  const queue = new RateLimitingQueue<string>({ clock });
  queue.addRateLimited('a');
  await clock.step(5); // 'a' is now queued
  assert.equal(queue.len(), 1);
  const { item } = await queue.get();
  queue.done(item!);
  queue.addRateLimited('a');
  await clock.step(9);
  assert.equal(queue.len(), 0);
  await clock.step(1);
  assert.equal(queue.len(), 1);
  queue.shutDown();
});
// #endregion
