import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../util/clock/clock.ts';
import { RateLimitedTimedQueue } from './rate-limited-queue.ts';

const drain = (q: RateLimitedTimedQueue): string[] => {
  const done: string[] = [];
  q.try((v) => {
    done.push(v.value);
    return { done: true };
  });
  return done;
};

test('RateLimitedTimedQueue: one value per 1/qps seconds (burst 1); a processed value stays in the set until removed', async () => {
  const clock = new FakeClock(0);
  const q = new RateLimitedTimedQueue(0.1, clock);
  assert.equal(q.add('a', 'uid-a'), true);
  assert.equal(q.add('b', 'uid-b'), true);
  assert.equal(q.add('a', 'uid-a'), false);
  assert.deepEqual(drain(q), ['a']);
  await clock.step(9999);
  assert.deepEqual(drain(q), []);
  await clock.step(1);
  assert.deepEqual(drain(q), ['b']);
  // Processed, not forgotten: adding again is refused until remove.
  assert.equal(q.add('a', 'uid-a'), false);
  assert.equal(q.remove('a'), true);
  assert.equal(q.add('a', 'uid-a'), true);
  assert.deepEqual(q.queued(), ['a']);
});

test('RateLimitedTimedQueue: a value not done comes back after its wait; rate 0 rejects everything; a swapped-in bucket starts empty when the old one was', async () => {
  const clock = new FakeClock(0);
  const q = new RateLimitedTimedQueue(1000, clock);
  q.add('n', 'u');
  let calls = 0;
  q.try(() => (++calls === 1 ? { done: false, retryAfterMs: 50 } : { done: true }));
  assert.equal(calls, 1);
  await clock.step(49);
  q.try(() => ({ done: true }));
  assert.deepEqual(q.queued(), ['n']);
  await clock.step(1);
  assert.deepEqual(drain(q), ['n']);
  q.swapLimiter(0);
  q.add('m', 'u');
  assert.deepEqual(drain(q), []);
  await clock.step(60_000);
  assert.deepEqual(drain(q), []);
  // Back to 0.1/s: the old (rejecting) limiter had no token, so the new one starts drained.
  q.swapLimiter(0.1);
  assert.deepEqual(drain(q), []);
  await clock.step(10_000);
  assert.deepEqual(drain(q), ['m']);
});

test('RateLimitedTimedQueue: a node queued 5 s after the last taint waits for the token, 10 s after that taint (recorded on kube-controller-manager v1.24)', async () => {
  const clock = new FakeClock(0);
  const q = new RateLimitedTimedQueue(0.1, clock);
  q.add('z3', 'u3');
  assert.deepEqual(drain(q), ['z3']);
  await clock.step(5000);
  q.add('z4', 'u4');
  for (let t = 5000; t < 10_000; t += 100) {
    assert.deepEqual(drain(q), [], `at ${t} ms`);
    await clock.step(100);
  }
  assert.deepEqual(drain(q), ['z4']);
});
