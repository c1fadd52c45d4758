import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../clock/clock.ts';
import { DelayingQueue } from './delaying-queue.ts';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.ts';
import { RateLimitingQueue } from './rate-limiting-queue.ts';

describe('RateLimitingQueue', () => {
  test('addRateLimited delays by the limiter per item; forget resets (upstream TestRateLimitingQueue)', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter<string>(1, 1000), clock });

    q.addRateLimited('one');
    assert.equal(clock.nextTimerIn(), 1);
    q.addRateLimited('one'); // 2 ms: merged into the earlier wait
    assert.equal(q.numRequeues('one'), 2);
    q.addRateLimited('two');
    q.addRateLimited('two');
    assert.equal(q.numRequeues('two'), 2);
    await clock.step(1);
    assert.equal(q.len(), 2);

    q.forget('one');
    assert.equal(q.numRequeues('one'), 0);
    assert.equal(q.numRequeues('two'), 2);
  });

  test('the requeue delays of a failing item are 1, 2, 4, 8 ms', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter<string>(1, 1000), clock });
    const readyAt: number[] = [];
    const start = clock.now();
    q.add('k');
    for (let attempt = 0; attempt < 4; attempt++) {
      while (q.len() === 0) await clock.stepToNextTimer();
      const r = await q.get();
      readyAt.push(clock.now() - start);
      q.addRateLimited(r.item!);
      q.done(r.item!);
    }
    assert.deepEqual(readyAt, [0, 1, 3, 7]);
  });

  test('defaults to the controller rate limiter on the queue clock', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addRateLimited('a');
    assert.equal(clock.nextTimerIn(), 5);
    for (let i = 0; i < 99; i++) q.addRateLimited(`b-${i}`);
    q.addRateLimited('c');
    await clock.step(5);
    assert.equal(q.len(), 100, 'burst of 100 spent at 5 ms backoff');
    await clock.step(94);
    assert.equal(q.len(), 100);
    await clock.step(1);
    assert.equal(q.len(), 101, 'the 101st waits 100 ms for a token');
  });

  test('after shutdown, addRateLimited still consults the limiter but adds nothing (upstream)', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter<string>(1, 1000), clock });
    q.shutDown();
    q.addRateLimited('a');
    assert.equal(q.numRequeues('a'), 1);
    await clock.step(1000);
    assert.equal(q.len(), 0);
    assert.equal(clock.hasWaiters(), false);
  });

  test('wraps a given delaying queue and forwards every operation', async () => {
    const clock = new FakeClock();
    const inner = new DelayingQueue<string>({ clock });
    const q = new RateLimitingQueue<string>({ delayingQueue: inner, clock });
    q.add('a');
    q.addAfter('b', 10);
    assert.equal(inner.len(), 1);
    await clock.step(10);
    assert.equal(q.len(), 2);
    const r = await q.get();
    assert.equal(r.item, 'a');
    const drained = q.shutDownWithDrain();
    assert.equal(inner.shuttingDown(), true);
    assert.equal(q.shuttingDown(), true);
    q.done('a');
    await drained;
    q.shutDown();
  });
});
