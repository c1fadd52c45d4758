import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../clock/clock.ts';
import type { MetricsProvider } from './metrics.ts';
import { FifoStorage, Queue, type GetResult, type QueueStorage } from './queue.ts';

/** Resolves true if `p` settles within a few event-loop turns. */
async function settles(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
  return done;
}

async function item<T>(q: Queue<T>): Promise<T> {
  const r = await q.get();
  assert.equal(r.shutdown, false);
  return r.item as T;
}

describe('Queue', () => {
  test('hands items out in the order they were added', async () => {
    const q = new Queue<string>();
    for (const k of ['a', 'b', 'c']) q.add(k);
    assert.equal(q.len(), 3);
    assert.deepEqual([await item(q), await item(q), await item(q)], ['a', 'b', 'c']);
    assert.equal(q.len(), 0);
  });

  test('an item added several times while waiting is processed once (stingy)', async () => {
    const q = new Queue<string>();
    for (const k of ['a', 'b', 'a', 'a', 'c', 'b']) q.add(k);
    assert.equal(q.len(), 3);
    const got = [await item(q), await item(q), await item(q)];
    assert.deepEqual(got, ['a', 'b', 'c']);
  });

  test('an item added while being processed is queued again only after done', async () => {
    const q = new Queue<string>();
    q.add('a');
    assert.equal(await item(q), 'a');
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 0, 'not queued while processing');
    const second = q.get();
    assert.equal(await settles(second), false, 'no other worker receives it');
    q.done('a');
    assert.deepEqual(await second, { item: 'a', shutdown: false });
    q.done('a');
    assert.equal(q.len(), 0, 'processed once more, not once per add');
  });

  test('done without a re-add forgets the item', async () => {
    const q = new Queue<string>();
    q.add('a');
    await item(q);
    q.done('a');
    assert.equal(q.len(), 0);
    q.add('a');
    assert.equal(q.len(), 1, 'can be added again afterwards');
  });

  test('waiting getters are served in order as items arrive', async () => {
    const q = new Queue<string>();
    const g1 = q.get();
    const g2 = q.get();
    q.add('x');
    q.add('y');
    assert.deepEqual(await g1, { item: 'x', shutdown: false });
    assert.deepEqual(await g2, { item: 'y', shutdown: false });
  });

  test('shutDown wakes every waiting getter with shutdown: true', async () => {
    const q = new Queue<string>();
    const getters = [q.get(), q.get(), q.get()];
    assert.equal(q.shuttingDown(), false);
    q.shutDown();
    assert.equal(q.shuttingDown(), true);
    const results: GetResult<string>[] = await Promise.all(getters);
    assert.deepEqual(results, [{ shutdown: true }, { shutdown: true }, { shutdown: true }]);
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('after shutDown, adds are ignored but queued items are still handed out (upstream)', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.shutDown();
    q.add('c');
    assert.equal(q.len(), 2);
    assert.equal(await item(q), 'a');
    assert.equal(await item(q), 'b');
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('an item re-added before shutDown is still requeued by done after it', async () => {
    const q = new Queue<string>();
    q.add('a');
    await item(q);
    q.add('a');
    q.shutDown();
    q.done('a');
    assert.equal(q.len(), 1);
    assert.equal(await item(q), 'a');
  });

  test('shutDownWithDrain resolves once every item being processed is done', async () => {
    const q = new Queue<string>();
    for (const k of ['a', 'b', 'c']) q.add(k);
    await item(q);
    await item(q);
    const drained = q.shutDownWithDrain();
    assert.equal(q.shuttingDown(), true);
    q.add('d');
    assert.equal(q.len(), 1, 'no new items accepted');
    q.done('a');
    assert.equal(await settles(drained), false);
    q.done('b');
    assert.equal(await settles(drained), true);
  });

  test('shutDownWithDrain ends when nothing is processed, even if an item re-added meanwhile is queued (upstream ...WithDirtyItem)', async () => {
    const q = new Queue<string>();
    q.add('foo');
    await item(q);
    q.add('foo');
    const drained = q.shutDownWithDrain();
    assert.equal(await settles(drained), false);
    q.done('foo');
    assert.equal(await settles(drained), true);
    assert.equal(await item(q), 'foo', 'the re-added item is still handed out');
    q.done('foo');
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  test('shutDownWithDrain wakes waiting getters like shutDown', async () => {
    const q = new Queue<string>();
    q.add('foo');
    await item(q);
    const waiting = q.get();
    const drained = q.shutDownWithDrain();
    assert.deepEqual(await waiting, { shutdown: true });
    q.done('foo');
    await drained;
  });

  test('shutDownWithDrain resolves at once when nothing is being processed', async () => {
    const q = new Queue<string>();
    q.add('a');
    assert.equal(await settles(q.shutDownWithDrain()), true);
  });

  test('shutDown after shutDownWithDrain stops waiting for the drain', async () => {
    const q = new Queue<string>();
    q.add('a');
    await item(q);
    const drained = q.shutDownWithDrain();
    assert.equal(await settles(drained), false);
    q.shutDown();
    assert.equal(await settles(drained), true);
  });

  test('done for an item that is not being processed changes nothing', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.done('a');
    q.done('zzz');
    assert.equal(q.len(), 1, 'not queued twice');
    assert.equal(await item(q), 'a');
    q.done('a');
    assert.equal(q.len(), 0);
  });

  test('items compare as Map keys: equal strings are one item, equal objects are two', async () => {
    const q = new Queue<unknown>();
    q.add('ns/a');
    q.add(['ns', 'a'].join('/'));
    q.add({ k: 1 });
    q.add({ k: 1 });
    q.add(NaN);
    q.add(NaN);
    assert.equal(q.len(), 4);
  });

  test('a custom storage decides the order and is touched on re-adds of waiting items', async () => {
    const touched: string[] = [];
    // Last in, first out.
    const items: string[] = [];
    const lifo: QueueStorage<string> = {
      touch: (i) => touched.push(i),
      push: (i) => items.push(i),
      len: () => items.length,
      pop: () => items.pop()!,
    };
    const q = new Queue<string>({ storage: lifo });
    q.add('a');
    q.add('b');
    q.add('a');
    assert.deepEqual(touched, ['a']);
    assert.equal(await item(q), 'b');
    q.add('b'); // being processed: not touched
    assert.deepEqual(touched, ['a']);
    assert.equal(await item(q), 'a');
  });

  test('FifoStorage keeps order across growth and wrap-around', () => {
    const s = new FifoStorage<number>();
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < round; i++) s.push(next++);
      for (let i = 0; i < round / 2; i++) out.push(s.pop());
    }
    while (s.len() > 0) out.push(s.pop());
    assert.deepEqual(out, Array.from({ length: next }, (_, i) => i));
  });
});

interface Recorded {
  gauges: Map<string, number>;
  observations: Map<string, number[]>;
}

function recordingProvider(): MetricsProvider & Recorded {
  const gauges = new Map<string, number>();
  const observations = new Map<string, number[]>();
  const gauge = (key: string) => ({
    inc: () => gauges.set(key, (gauges.get(key) ?? 0) + 1),
    dec: () => gauges.set(key, (gauges.get(key) ?? 0) - 1),
    set: (v: number) => gauges.set(key, v),
  });
  const histogram = (key: string) => ({
    observe: (v: number) => observations.set(key, [...(observations.get(key) ?? []), v]),
  });
  return {
    gauges,
    observations,
    newDepthMetric: (n) => gauge(`depth/${n}`),
    newAddsMetric: (n) => gauge(`adds/${n}`),
    newLatencyMetric: (n) => histogram(`latency/${n}`),
    newWorkDurationMetric: (n) => histogram(`work/${n}`),
    newUnfinishedWorkSecondsMetric: (n) => gauge(`unfinished/${n}`),
    newLongestRunningProcessorSecondsMetric: (n) => gauge(`longest/${n}`),
    newRetriesMetric: (n) => gauge(`retries/${n}`),
  };
}

describe('Queue metrics', () => {
  test('follow upstream TestMetrics: adds, depth, latency, work duration and unfinished work', async () => {
    const clock = new FakeClock();
    const mp = recordingProvider();
    const q = new Queue<string>({ name: 'test', clock, metricsProvider: mp });
    q.add('foo');
    assert.equal(mp.gauges.get('adds/test'), 1);
    assert.equal(mp.gauges.get('depth/test'), 1);

    await clock.step(50);
    assert.equal(await item(q), 'foo');
    assert.deepEqual(mp.observations.get('latency/test'), [0.05]);
    assert.equal(mp.gauges.get('depth/test'), 0);

    // Re-adds while processing are deduplicated.
    for (let i = 0; i < 5; i++) q.add('foo');
    assert.equal(mp.gauges.get('adds/test'), 2);
    assert.equal(mp.gauges.get('depth/test'), 1);

    await clock.step(25);
    q.done('foo');
    assert.deepEqual(mp.observations.get('work/test'), [0.025]);
    assert.equal(mp.gauges.get('depth/test'), 1);

    assert.equal(await item(q), 'foo');
    assert.deepEqual(mp.observations.get('latency/test'), [0.05, 0.025]);
    assert.equal(mp.gauges.get('depth/test'), 0);

    // The ticker refreshes the unfinished-work gauges every 500 ms (first tick at t = 500 ms).
    await clock.step(424);
    assert.equal(mp.gauges.get('unfinished/test'), undefined);
    await clock.step(1);
    assert.equal(mp.gauges.get('unfinished/test'), 0.425);
    assert.equal(mp.gauges.get('longest/test'), 0.425);
    q.add('bar');
    await item(q);
    await clock.step(500);
    assert.equal(mp.gauges.get('unfinished/test'), 0.925 + 0.5);
    assert.equal(mp.gauges.get('longest/test'), 0.925);

    q.shutDown();
    assert.equal(clock.hasWaiters(), false, 'the update loop stops with the queue');
  });

  test('unnamed queues record nothing and start no timer', () => {
    const clock = new FakeClock();
    const mp = recordingProvider();
    const q = new Queue<string>({ clock, metricsProvider: mp });
    q.add('a');
    assert.equal(mp.gauges.size, 0);
    assert.equal(clock.hasWaiters(), false);
  });
});
