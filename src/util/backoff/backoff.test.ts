import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, DelayWithReset, ExponentialBackoffManager, jitter } from './backoff.ts';
import { FakeClock } from '../clock/clock.ts';

test('Backoff.step grows by factor, caps and then stays constant (wait.Backoff.Step)', () => {
  const b = new Backoff({ durationMs: 10, factor: 5, steps: 4 });
  assert.deepEqual([b.step(), b.step(), b.step(), b.step(), b.step(), b.step()], [10, 50, 250, 1250, 6250, 6250]);
  const capped = new Backoff({ durationMs: 800, factor: 2, steps: 100, capMs: 3000 });
  assert.deepEqual([capped.step(), capped.step(), capped.step(), capped.step(), capped.step()], [800, 1600, 3000, 3000, 3000]);
  assert.equal(capped.steps, 0);
});

test('jitter adds up to maxFactor × duration; a non-positive factor means 1', () => {
  assert.equal(jitter(100, 0.1, () => 0.5), 105);
  assert.equal(jitter(100, 0, () => 0.5), 150);
  const b = new Backoff({ durationMs: 10, factor: 1, jitter: 0.1, steps: 5, random: () => 1 });
  assert.equal(b.step(), 11);
});

test('ExponentialBackoffManager doubles from 800 ms to 30 s and resets after 2 minutes quiet', async () => {
  const clock = new FakeClock(0);
  const m = new ExponentialBackoffManager({ initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, factor: 2, jitter: 0, clock });
  const delays = Array.from({ length: 8 }, () => m.nextDelay());
  assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  await clock.step(120_000);
  assert.equal(m.nextDelay(), 30000, 'exactly the reset period is not more than it');
  await clock.step(120_001);
  assert.equal(m.nextDelay(), 800);
});

test('DelayWithReset starts over every reset interval counted from the last reset, even while failures never pause', async () => {
  const clock = new FakeClock(0);
  const b = new DelayWithReset({ durationMs: 800, capMs: 30_000, steps: 38, factor: 2, jitter: 1, random: () => 0 }, 120_000, clock);
  const delays: number[] = [];
  // A failure every 10 s for 4 minutes: never 2 quiet minutes, yet the delay starts over twice.
  for (let t = 0; t <= 240_000; t += 10_000) {
    delays.push(b.nextDelay());
    await clock.step(10_000);
  }
  assert.deepEqual(delays.slice(0, 8), [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
  // t = 130 s is the first call more than 120 s after the start; t = 260 s would be the next.
  assert.equal(delays[12], 30_000);
  assert.equal(delays[13], 800);
  assert.equal(delays[14], 1600);
  assert.equal(delays[24], 30_000);
});

test('DelayWithReset without a factor never grows; without a reset interval never grows either', () => {
  const clock = new FakeClock(0);
  const flat = new DelayWithReset({ durationMs: 500, steps: 5 }, 60_000, clock);
  assert.deepEqual([flat.nextDelay(), flat.nextDelay(), flat.nextDelay()], [500, 500, 500]);
  const noReset = new DelayWithReset({ durationMs: 500, factor: 2, steps: 5 }, 0, clock);
  assert.deepEqual([noReset.nextDelay(), noReset.nextDelay()], [500, 500]);
});
