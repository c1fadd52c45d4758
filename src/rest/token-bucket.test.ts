import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/clock.ts';
import { TokenBucketRateLimiter, unlimitedRateLimiter } from './token-bucket.ts';

test('a full bucket lets `burst` requests through, then admits them at `qps` in arrival order', async () => {
  const clock = new FakeClock(0);
  const limiter = new TokenBucketRateLimiter({ qps: 5, burst: 10, clock });
  for (let i = 0; i < 10; i++) await limiter.wait();
  const admitted: Array<[number, number]> = [];
  const waits = [0, 1, 2].map((i) => limiter.wait().then(() => admitted.push([i, clock.now()])));
  await clock.waitForWaiters(3);
  await clock.step(1000);
  await Promise.all(waits);
  assert.deepEqual(admitted, [
    [0, 200],
    [1, 400],
    [2, 600],
  ]);
});

test('tokens refill up to burst while idle, and tryAccept never waits', async () => {
  const clock = new FakeClock(0);
  const limiter = new TokenBucketRateLimiter({ qps: 2, burst: 3, clock });
  assert.deepEqual([limiter.tryAccept(), limiter.tryAccept(), limiter.tryAccept(), limiter.tryAccept()], [true, true, true, false]);
  await clock.step(500);
  assert.equal(limiter.tryAccept(), true);
  assert.equal(limiter.tryAccept(), false);
  await clock.step(60_000);
  assert.deepEqual([limiter.tryAccept(), limiter.tryAccept(), limiter.tryAccept(), limiter.tryAccept()], [true, true, true, false]);
});

test('an aborted wait rejects with the abort reason and returns its token', async () => {
  const clock = new FakeClock(0);
  const limiter = new TokenBucketRateLimiter({ qps: 1, burst: 1, clock });
  await limiter.wait();
  const controller = new AbortController();
  const waiting = limiter.wait(controller.signal);
  await clock.waitForWaiters(1);
  const reason = new Error('stop');
  controller.abort(reason);
  await assert.rejects(waiting, (err) => err === reason);
  await clock.step(1000);
  assert.equal(limiter.tryAccept(), true);
  await assert.rejects(unlimitedRateLimiter.wait(AbortSignal.abort(reason)), (err) => err === reason);
  await unlimitedRateLimiter.wait();
});
