import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, InvalidPeriodError, RealClock } from './clock.ts';

test('FakeClock fires due timers in time order, ties in creation order', async () => {
  const clock = new FakeClock(0);
  const fired: string[] = [];
  clock.afterFunc(30, () => fired.push('c'));
  clock.afterFunc(10, () => fired.push('a'));
  clock.afterFunc(10, () => fired.push('b'));
  clock.afterFunc(31, () => fired.push('late'));
  await clock.step(30);
  assert.deepEqual(fired, ['a', 'b', 'c']);
  assert.equal(clock.now(), 30);
  assert.equal(clock.waiterCount(), 1);
});

test('FakeClock.sleep resolves when stepped and lets continuations run before the next timer', async () => {
  const clock = new FakeClock(0);
  const log: number[] = [];
  const loop = (async () => {
    for (let i = 0; i < 3; i++) {
      await clock.sleep(100);
      log.push(clock.now());
    }
  })();
  await clock.step(350);
  await loop;
  assert.deepEqual(log, [100, 200, 300]);
});

test('FakeClock.sleep rejects with the abort reason, immediately when already aborted', async () => {
  const clock = new FakeClock(0);
  const ac = new AbortController();
  const p = clock.sleep(1000, ac.signal);
  ac.abort(new Error('stop'));
  await assert.rejects(p, /stop/);
  assert.equal(clock.hasWaiters(), false);
  await assert.rejects(clock.sleep(1, ac.signal), /stop/);
});

test('Timer.stop and reset report whether the timer was pending', async () => {
  const clock = new FakeClock(0);
  let fired = 0;
  const t = clock.afterFunc(10, () => fired++);
  assert.equal(t.reset(50), true);
  await clock.step(20);
  assert.equal(fired, 0);
  await clock.step(30);
  assert.equal(fired, 1);
  assert.equal(t.stop(), false);
  assert.equal(t.reset(5), false);
  await clock.step(5);
  assert.equal(fired, 2);
});

test('tickers fire every period until stopped, and reject non-positive periods', async () => {
  const clock = new FakeClock(0);
  const ticks: number[] = [];
  const ticker = clock.newTicker(10, () => ticks.push(clock.now()));
  await clock.step(35);
  ticker.stop();
  await clock.step(100);
  assert.deepEqual(ticks, [10, 20, 30]);
  assert.throws(() => clock.newTicker(0, () => {}), InvalidPeriodError);
  assert.throws(() => new RealClock().newTicker(-1, () => {}), InvalidPeriodError);
});

test('waitForWaiters resolves once the code under test is sleeping', async () => {
  const clock = new FakeClock(0);
  let done = false;
  void (async () => {
    await Promise.resolve();
    await clock.sleep(5);
    done = true;
  })();
  await clock.waitForWaiters(1);
  assert.equal(clock.nextTimerIn(), 5);
  await clock.stepToNextTimer();
  assert.equal(done, true);
});

test('RealClock.sleep really waits and can be aborted', async () => {
  const clock = new RealClock();
  const start = clock.now();
  await clock.sleep(5);
  assert.ok(clock.since(start) >= 4);
  const ac = new AbortController();
  const p = clock.sleep(60_000, ac.signal);
  ac.abort();
  await assert.rejects(p, { name: 'AbortError' });
});
