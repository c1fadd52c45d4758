import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FakeClock } from '../clock/clock.ts';
import { DelayingQueue, maxWaitMs } from './delaying-queue.ts';
import { WaitForHeap } from './heap.ts';
import type { CounterMetric, MetricsProvider } from './metrics.ts';
import { noopMetricsProvider } from './metrics.ts';
import { Queue } from './queue.ts';

async function drain(q: DelayingQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const r = await q.get();
    assert.equal(r.shutdown, false);
    out.push(r.item!);
    q.done(r.item!);
  }
  return out;
}

describe('DelayingQueue', () => {
  test('adds an item once its delay has passed (upstream TestSimpleQueue)', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('foo', 50);
    assert.equal(q.len(), 0);
    await clock.step(49);
    assert.equal(q.len(), 0);
    await clock.step(1);
    assert.equal(q.len(), 1, 'ready exactly at its ready time');
    assert.deepEqual(await drain(q), ['foo']);
    await clock.step(10_000);
    assert.equal(q.len(), 0);
    assert.equal(clock.hasWaiters(), false, 'no timer once nothing waits');
  });

  test('a second addAfter for a waiting item keeps the earlier ready time (upstream TestDeduping)', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('foo', 50);
    q.addAfter('foo', 70);
    await clock.step(60);
    assert.deepEqual(await drain(q), ['foo']);
    await clock.step(20);
    assert.equal(q.len(), 0, 'the later add was merged into the earlier one');

    q.addAfter('foo', 50);
    q.addAfter('foo', 30);
    await clock.step(40);
    assert.deepEqual(await drain(q), ['foo']);
    await clock.step(20);
    assert.equal(q.len(), 0);
  });

  test('a later short delay fires before an earlier long one (upstream TestAddTwoFireEarly)', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('foo', 1000);
    q.addAfter('bar', 50);
    await clock.step(60);
    assert.deepEqual(await drain(q), ['bar']);
    q.addAfter('baz', 2000);
    await clock.step(1000);
    assert.deepEqual(await drain(q), ['foo']);
    await clock.step(2000);
    assert.deepEqual(await drain(q), ['baz']);
  });

  test('ready items are added in ready-time order (upstream TestCopyShifting)', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('foo', 1000);
    q.addAfter('bar', 500);
    q.addAfter('baz', 250);
    await clock.step(2000);
    assert.deepEqual(await drain(q), ['baz', 'bar', 'foo']);
  });

  test('items ready at the same time are added in the order they were scheduled', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    for (const k of ['c', 'a', 'd', 'b']) q.addAfter(k, 100);
    await clock.step(100);
    assert.deepEqual(await drain(q), ['c', 'a', 'd', 'b']);
  });

  for (const [delay, label] of [
    [0, 'zero'],
    [-5, 'negative'],
    [NaN, 'NaN'],
  ] as const) {
    test(`addAfter with a ${label} delay adds at once`, async () => {
      const clock = new FakeClock();
      const q = new DelayingQueue<string>({ clock });
      q.addAfter('now', delay);
      assert.equal(q.len(), 1);
      assert.equal(clock.hasWaiters(), false);
    });
  }

  test('an item waiting for its delay and also added directly is processed once when the add is still pending', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.add('a');
    await clock.step(100);
    assert.equal(q.len(), 1, 'the delayed add found it still queued');
    assert.deepEqual(await drain(q), ['a']);
  });

  test('keeps one clock timer whatever the number of waiting items, armed for the earliest', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    for (let i = 0; i < 1000; i++) q.addAfter(`item-${i}`, 1000 + ((i * 7919) % 5000));
    assert.equal(clock.waiterCount(), 1);
    assert.equal(clock.nextTimerIn(), 1000);
    q.addAfter('early', 10);
    assert.equal(clock.waiterCount(), 1);
    assert.equal(clock.nextTimerIn(), 10, 're-armed for the new earliest item');
    q.addAfter('item-0', 5);
    assert.equal(clock.nextTimerIn(), 5, 're-armed when a waiting item moves earlier');
    await clock.step(6000);
    assert.equal(q.len(), 1001);
    assert.equal(clock.hasWaiters(), false);
  });

  test(`never sleeps longer than ${maxWaitMs} ms, and still adds far items exactly on time`, async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('far', 35_000);
    assert.equal(clock.nextTimerIn(), maxWaitMs);
    await clock.step(34_999);
    assert.equal(q.len(), 0);
    assert.equal(clock.nextTimerIn(), 1);
    await clock.step(1);
    assert.equal(q.len(), 1);
  });

  test('shutDown drops waiting items, stops the timer and ignores later addAfter', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.shutDown();
    assert.equal(clock.hasWaiters(), false);
    q.addAfter('b', 0);
    q.addAfter('c', 10);
    await clock.step(1000);
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
    q.shutDown(); // idempotent
  });

  test('shutDownWithDrain also stops the waiting loop and waits for items being processed', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.add('a');
    q.addAfter('b', 100);
    const r = await q.get();
    let drained = false;
    const p = q.shutDownWithDrain().then(() => (drained = true));
    assert.equal(clock.hasWaiters(), false);
    await clock.step(100);
    assert.equal(drained, false);
    q.done(r.item!);
    await p;
    assert.equal(q.len(), 0);
  });

  test('adds ready items to a given inner queue', async () => {
    const clock = new FakeClock();
    const storageOrder: string[] = [];
    const inner = new Queue<string>({
      storage: { touch() {}, push: (i) => storageOrder.push(i), len: () => storageOrder.length, pop: () => storageOrder.pop()! },
    });
    const q = new DelayingQueue<string>({ clock, queue: inner });
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    await clock.step(20);
    assert.equal(inner.len(), 2);
    assert.equal((await q.get()).item, 'b', 'the inner queue (here last-in first-out) decides the order');
    q.shutDown();
    assert.equal(inner.shuttingDown(), true);
  });

  test('counts every addAfter on a running queue as a retry', () => {
    const clock = new FakeClock();
    let retries = 0;
    const counter: CounterMetric = { inc: () => retries++ };
    const provider: MetricsProvider = { ...noopMetricsProvider, newRetriesMetric: () => counter };
    const q = new DelayingQueue<string>({ clock, name: 'q', metricsProvider: provider });
    q.addAfter('a', 0);
    q.addAfter('b', 10);
    q.shutDown();
    q.addAfter('c', 10);
    assert.equal(retries, 2);
  });
});

describe('WaitForHeap', () => {
  test('pops entries in (readyAt, insertion) order whatever the interleaving of pushes and pops', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 50 }), { freq: 4 }), { maxLength: 300 }), (ops) => {
        const heap = new WaitForHeap<number>();
        const model: { at: number; item: number }[] = [];
        ops.forEach((op, item) => {
          if (op === null) {
            const got = heap.pop();
            const want = model.shift();
            assert.equal(got?.item, want?.item);
          } else {
            heap.push(item, op);
            // Stable insertion keeps equal ready times in insertion order.
            const at = model.findIndex((e) => e.at > op);
            model.splice(at === -1 ? model.length : at, 0, { at: op, item });
          }
          assert.equal(heap.size, model.length);
          assert.equal(heap.peek()?.item, model[0]?.item);
        });
      }),
    );
  });
});
