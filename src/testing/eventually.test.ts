import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/clock.ts';
import { eventually, EventuallyTimeoutError } from './eventually.ts';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Runs `p` to completion on `clock`: lets it reach its next timer, then fires that timer, and so on. */
async function drive<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  const settled = p.finally(() => {
    done = true;
  });
  settled.catch(() => {});
  for (;;) {
    await turn();
    await turn();
    if (done) return settled;
    await clock.stepToNextTimer();
  }
}

test('eventually retries until the function stops throwing, and returns its result', async () => {
  const clock = new FakeClock(0);
  let calls = 0;
  const result = await drive(
    clock,
    eventually(
      () => {
        calls++;
        if (calls < 3) throw new Error(`not yet ${calls}`);
        return 'ready';
      },
      { clock, intervalMs: 50 },
    ),
  );
  assert.equal(result, 'ready');
  assert.equal(calls, 3);
  assert.equal(clock.now(), 100, 'two pauses of 50 ms');
});

test('falsy results other than undefined mean "not yet"; undefined (an assertion-style function) passes', async () => {
  const clock = new FakeClock(0);
  const values: unknown[] = [false, null, 0, '', 'x'];
  assert.equal(await drive(clock, eventually(() => values.shift(), { clock })), 'x');
  assert.equal(await eventually(() => undefined, { clock }), undefined);
});

test('on timeout it fails with the last error as the cause, after polling at the interval', async () => {
  const clock = new FakeClock(0);
  const started = clock.now();
  let calls = 0;
  const failing = eventually(
    async () => {
      calls++;
      throw new Error(`still broken (${calls})`);
    },
    { clock, timeoutMs: 100, intervalMs: 30 },
  );
  const err = await drive(clock, failing).then(
    () => assert.fail('expected a timeout'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof EventuallyTimeoutError);
  assert.equal(err.code, 'ERR_EVENTUALLY_TIMEOUT');
  // Attempts at 0, 30, 60, 90 and, the last pause cut to the deadline, 100.
  assert.equal(calls, 5);
  assert.equal(err.attempts, 5);
  assert.equal(clock.now() - started, 100);
  assert.equal(err.message, 'timed out after 100 ms (5 attempts): still broken (5)');
  assert.equal((err.cause as Error).message, 'still broken (5)');
});

test('a falsy last result is reported as such; an attempt still running at the deadline fails it', async () => {
  const clock = new FakeClock(0);
  const falsy = await drive(clock, eventually(() => 0, { clock, timeoutMs: 20, intervalMs: 10 })).catch((e: unknown) => e);
  assert.ok(falsy instanceof EventuallyTimeoutError);
  assert.equal(falsy.message, 'timed out after 20 ms (3 attempts): it returned 0');
  assert.equal(falsy.lastResult, 0);
  const hanging = await drive(clock, eventually(() => new Promise<boolean>(() => {}), { clock, timeoutMs: 50 })).catch((e: unknown) => e);
  assert.ok(hanging instanceof EventuallyTimeoutError);
  assert.equal(hanging.message, 'timed out after 50 ms (1 attempt): attempt 1 was still running at the deadline');
});

test('aborting stops polling with the abort reason', async () => {
  const clock = new FakeClock(0);
  const controller = new AbortController();
  const p = eventually(() => false, { clock, signal: controller.signal, timeoutMs: 10_000 });
  await clock.waitForWaiters(1);
  controller.abort(new Error('test over'));
  await assert.rejects(p, /test over/);
});
