/**
 * The watch cache window's sizing, step by step as watch_cache.go's resizeCacheLocked and
 * getAllEventsSinceLocked (apiserver/pkg/storage/cacher/watch_cache_test.go covers the same rules).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/index.ts';
import { EventWindow, WatchCache, waitUntilFresh } from './watch-cache.ts';
import { Storage } from './storage.ts';

const sizing = { lowerBoundCapacity: 4, upperBoundCapacity: 16, eventFreshDurationMs: 75_000 };

test('a window doubles while full of fresh events, up to the upper bound, and then drops its oldest', () => {
  const w = new EventWindow(10, sizing);
  const capacities: number[] = [];
  for (let rv = 11; rv <= 30; rv++) {
    w.add(rv, 0);
    capacities.push(w.capacity);
  }
  assert.deepEqual(capacities, [4, 4, 4, 4, 8, 8, 8, 8, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16]);
  // 20 events in a window of 16: the first four are gone, a watch may start just before the fifth (rv 15).
  assert.equal(w.size, 16);
  assert.equal(w.oldestWatchable(), 14);
});

test('a full window whose oldest event is stale stops growing and drops one event per write', () => {
  const w = new EventWindow(10, sizing);
  for (let rv = 11; rv <= 14; rv++) w.add(rv, 0);
  // Until an event is dropped, a watch may start from the list revision.
  assert.equal(w.oldestWatchable(), 10);
  w.add(15, 80_000);
  assert.equal(w.capacity, 4);
  assert.equal(w.oldestWatchable(), 11);
  w.add(16, 80_001);
  assert.equal(w.oldestWatchable(), 12);
});

test('a full window shrinks by half, not below the lower bound, when its newest quarter is stale', () => {
  const w = new EventWindow(0, { lowerBoundCapacity: 2, upperBoundCapacity: 16, eventFreshDurationMs: 1_000 });
  for (let rv = 1; rv <= 8; rv++) w.add(rv, 0);
  assert.equal(w.capacity, 8);
  w.add(9, 5_000);
  assert.equal(w.capacity, 4);
  // Shrinking keeps the newest events: 6, 7, 8 and now 9.
  assert.equal(w.oldestWatchable(), 5);
  w.add(10, 10_000);
  w.add(11, 15_000);
  assert.equal(w.capacity, 2);
});

test('WatchCache: windows start at begin(), custom resources when served; tooOld names the oldest watchable revision', () => {
  let now = 0;
  const c = new WatchCache(sizing, () => now);
  c.record('configmaps', 3); // before the caches started: not recorded
  c.begin(5);
  assert.equal(c.tooOld('configmaps', 4), 5);
  assert.equal(c.tooOld('configmaps', 5), undefined);
  c.startResource('widgets.example.com', 9);
  assert.equal(c.tooOld('widgets.example.com', 8), 9);
  c.startResource('widgets.example.com', 12); // already started: kept
  assert.equal(c.tooOld('widgets.example.com', 9), undefined);
  c.stopResource('widgets.example.com');
  c.startResource('widgets.example.com', 12);
  assert.equal(c.tooOld('widgets.example.com', 9), 12);
  now = 100_000;
  for (let rv = 6; rv <= 10; rv++) c.record('configmaps', rv);
  assert.equal(c.capacity('configmaps'), 8);
});

test('waitUntilFresh resolves when the revision is written, or false after three seconds', async () => {
  const clock = new FakeClock(0);
  const storage = new Storage(100);
  assert.equal(await waitUntilFresh(storage, clock, 0), true);
  const reached = waitUntilFresh(storage, clock, 2);
  storage.write('cm', 'a', 'ADDED', { metadata: { name: 'a' } });
  storage.write('cm', 'b', 'ADDED', { metadata: { name: 'b' } });
  assert.equal(await reached, true);
  const missed = waitUntilFresh(storage, clock, 10);
  await clock.step(2_999);
  storage.write('cm', 'c', 'ADDED', { metadata: { name: 'c' } });
  await clock.step(1);
  assert.equal(await missed, false);
});
