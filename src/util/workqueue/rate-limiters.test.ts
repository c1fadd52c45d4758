import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../clock/clock.ts';
import { BucketRateLimiter } from './bucket-rate-limiter.ts';
import { defaultControllerRateLimiter } from './default-rate-limiters.ts';
import { defaultItemBasedRateLimiter, ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.ts';
import { ItemFastSlowRateLimiter } from './item-fast-slow-rate-limiter.ts';
import { MaxOfRateLimiter } from './max-of-rate-limiter.ts';
import { infDurationMs, type RateLimiter } from './rate-limiter.ts';
import { WithMaxWaitRateLimiter } from './with-max-wait-rate-limiter.ts';

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const whens = <T>(limiter: RateLimiter<T>, item: T, n: number): number[] => times(n, () => limiter.when(item));

describe('ItemExponentialFailureRateLimiter', () => {
  test('doubles per failure of the same item, per item, and forgets (upstream TestItemExponentialFailureRateLimiter)', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000);
    assert.deepEqual(whens(limiter, 'one', 5), [1, 2, 4, 8, 16]);
    assert.equal(limiter.numRequeues('one'), 5);
    assert.deepEqual(whens(limiter, 'two', 2), [1, 2]);
    assert.equal(limiter.numRequeues('two'), 2);
    limiter.forget('one');
    assert.equal(limiter.numRequeues('one'), 0);
    assert.equal(limiter.when('one'), 1);
  });

  test('5 ms base: 5, 10, 20, ... capped at 1000 s', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    assert.deepEqual(whens(limiter, 'k', 21), [
      5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10_240, 20_480, 40_960, 81_920, 163_840, 327_680, 655_360, 1_000_000,
      1_000_000, 1_000_000,
    ]);
  });

  test('caps instead of overflowing for huge exponents (upstream TestItemExponentialFailureRateLimiterOverFlow)', () => {
    let limiter = new ItemExponentialFailureRateLimiter<string>(1, 1_000_000);
    whens(limiter, 'one', 5);
    assert.equal(limiter.when('one'), 32);
    whens(limiter, 'overflow1', 1000);
    assert.equal(limiter.when('overflow1'), 1_000_000);

    limiter = new ItemExponentialFailureRateLimiter<string>(60_000, 1000 * 3_600_000);
    whens(limiter, 'two', 2);
    assert.equal(limiter.when('two'), 240_000);
    whens(limiter, 'overflow2', 1000);
    assert.equal(limiter.when('overflow2'), 1000 * 3_600_000);
  });

  test('returns the max once base * 2^n exceeds Go\'s int64 nanoseconds, even if max is larger', () => {
    // 1 ms * 2^43 = 8.8e18 ns fits in int64; 2^44 ms = 1.76e19 ns does not.
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, Number.MAX_VALUE);
    const delays = whens(limiter, 'k', 45);
    assert.equal(delays[43], 2 ** 43);
    assert.equal(delays[44], Number.MAX_VALUE);
  });

  test('a zero base never delays', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(0, 1000);
    assert.deepEqual([...whens(limiter, 'k', 3), ...whens(limiter, 'k', 1100).slice(-1)], [0, 0, 0, 0]);
  });

  test('defaultItemBasedRateLimiter goes from 1 ms to 1000 s', () => {
    const limiter = defaultItemBasedRateLimiter<string>();
    assert.deepEqual(whens(limiter, 'k', 3), [1, 2, 4]);
    assert.equal(whens(limiter, 'k', 30).at(-1), 1_000_000);
  });
});

describe('ItemFastSlowRateLimiter', () => {
  test('fast for maxFastAttempts requeues, then slow (upstream TestItemFastSlowRateLimiter)', () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
    assert.deepEqual(whens(limiter, 'one', 5), [5, 5, 5, 10_000, 10_000]);
    assert.equal(limiter.numRequeues('one'), 5);
    assert.deepEqual(whens(limiter, 'two', 2), [5, 5]);
    assert.equal(limiter.numRequeues('two'), 2);
    limiter.forget('one');
    assert.equal(limiter.numRequeues('one'), 0);
    assert.equal(limiter.when('one'), 5);
  });
});

describe('MaxOfRateLimiter', () => {
  test('returns the longest delay and the largest requeue count (upstream TestMaxOfRateLimiter)', () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemFastSlowRateLimiter<string>(5, 3000, 3),
      new ItemExponentialFailureRateLimiter<string>(1, 1000),
    );
    assert.deepEqual(whens(limiter, 'one', 5), [5, 5, 5, 3000, 3000]);
    assert.equal(limiter.numRequeues('one'), 5);
    assert.deepEqual(whens(limiter, 'two', 2), [5, 5]);
    assert.equal(limiter.numRequeues('two'), 2);
    limiter.forget('one');
    assert.equal(limiter.numRequeues('one'), 0);
    assert.equal(limiter.when('one'), 5);
  });

  test('with no limiters never delays', () => {
    const limiter = new MaxOfRateLimiter<string>();
    assert.equal(limiter.when('a'), 0);
    assert.equal(limiter.numRequeues('a'), 0);
  });
});

describe('BucketRateLimiter', () => {
  test('qps 10, burst 100: 100 immediate tokens, then one every 100 ms reserved into the future', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, { clock });
    const delays = times(105, (i) => limiter.when(`item-${i}`));
    assert.deepEqual(delays.slice(0, 100), times(100, () => 0));
    assert.deepEqual(delays.slice(100), [100, 200, 300, 400, 500]);
    assert.equal(limiter.numRequeues('item-0'), 0);
  });

  test('the balance refills at qps while time passes and never exceeds burst', async () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, { clock });
    whens(limiter, 'x', 250); // balance -150
    await clock.step(5000); // +50 -> -100
    assert.equal(limiter.when('x'), 10_100);
    await clock.step(60_000); // -101 + 600, capped at 100
    assert.deepEqual(whens(limiter, 'x', 101).slice(-2), [0, 100]);
  });

  test('steady state: one requeue every 100 ms never waits', async () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 1, { clock });
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      delays.push(limiter.when('x'));
      await clock.step(100);
    }
    assert.deepEqual(delays, [0, 0, 0, 0, 0]);
    assert.deepEqual(whens(limiter, 'x', 3), [0, 100, 200]);
  });

  test('truncates waits to whole nanoseconds as Go\'s time.Duration does', () => {
    const limiter = new BucketRateLimiter<string>(3, 1, { clock: new FakeClock() });
    assert.deepEqual(whens(limiter, 'x', 3), [0, 333.333333, 666.666666]);
  });

  test('edge cases of rate.Limiter: infinite rate, zero rate, zero burst', () => {
    const clock = new FakeClock();
    assert.deepEqual(whens(new BucketRateLimiter<string>(Infinity, 0, { clock }), 'x', 3), [0, 0, 0]);
    assert.deepEqual(whens(new BucketRateLimiter<string>(Number.MAX_VALUE, 0, { clock }), 'x', 1), [0]);
    assert.deepEqual(whens(new BucketRateLimiter<string>(0, 2, { clock }), 'x', 3), [0, 0, infDurationMs]);
    assert.deepEqual(whens(new BucketRateLimiter<string>(10, 0, { clock }), 'x', 2), [infDurationMs, infDurationMs]);
  });

  test('a clock going backwards accrues no tokens', async () => {
    const clock = { now: () => t, since: (x: number) => t - x } as FakeClock;
    let t = 1_000_000;
    const limiter = new BucketRateLimiter<string>(10, 1, { clock });
    assert.equal(limiter.when('x'), 0);
    t -= 5000;
    assert.equal(limiter.when('x'), 100);
    t += 100;
    assert.equal(limiter.when('x'), 100);
  });
});

describe('WithMaxWaitRateLimiter', () => {
  test('caps the wrapped limiter (upstream TestWithMaxWaitRateLimiter)', () => {
    const clock = new FakeClock();
    const limiter = new WithMaxWaitRateLimiter<number>(defaultControllerRateLimiter<number>({ clock }), 500_000);
    for (let i = 0; i < 100; i++) assert.equal(limiter.when(i), 5, `item ${i}`);
    // The bucket's n-th borrowed token waits n / 10 s, truncated to whole nanoseconds as in Go
    // (41 / 10 s is 4099.999999 ms there too).
    const goWait = (n: number): number => Math.trunc((n / 10) * 1e9) / 1e6;
    assert.equal(goWait(41), 4099.999999);
    for (let i = 100; i < 5100; i++) assert.equal(limiter.when(i), goWait(i - 99), `item ${i}`);
    for (let i = 5100; i < 5200; i++) assert.equal(limiter.when(i), 500_000, `item ${i}`);
    assert.equal(limiter.numRequeues(1), 1);
    limiter.forget(1);
    assert.equal(limiter.numRequeues(1), 0);
  });
});

describe('defaultControllerRateLimiter', () => {
  test('is the worse of 5 ms..1000 s per-item backoff and a 10 qps / 100 burst bucket', async () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>({ clock });
    assert.deepEqual(whens(limiter, 'a', 4), [5, 10, 20, 40]);
    assert.equal(limiter.numRequeues('a'), 4);
    // 96 tokens left: spend them on other items, then the bucket dominates fresh items.
    times(96, (i) => limiter.when(`b-${i}`));
    assert.deepEqual(
      times(3, (i) => limiter.when(`c-${i}`)),
      [100, 200, 300],
    );
    assert.equal(limiter.when('a'), 400, 'bucket (400 ms) beats backoff (80 ms)');
    await clock.step(1_000_000);
    limiter.forget('a');
    assert.equal(limiter.when('a'), 5);
  });
});
