import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../clock/clock.ts';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import { DefaultBackoff, DefaultRetry, RetryTimeoutError, onError, retryOnConflict } from './retry.ts';

const conflict = (): StatusError => new StatusError(newStatus(409, 'Conflict', 'the object has been modified'));

test('DefaultRetry and DefaultBackoff keep client-go values', () => {
  assert.deepEqual({ ...DefaultRetry }, { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 });
  assert.deepEqual({ ...DefaultBackoff }, { steps: 4, durationMs: 10, factor: 5, jitter: 0.1 });
});

test('retryOnConflict calls fn at most `steps` times, sleeping the backoff between attempts, then rethrows', async () => {
  const clock = new FakeClock(0);
  const calls: number[] = [];
  const done = retryOnConflict(
    { ...DefaultBackoff, random: () => 0.5 },
    async () => {
      calls.push(clock.now());
      throw conflict();
    },
    { clock },
  ).catch((e: unknown) => e);
  while (clock.hasWaiters() || calls.length < 4) {
    await clock.waitForWaiters(1).catch(() => undefined);
    if (!(await clock.stepToNextTimer())) break;
  }
  const err = await done;
  assert.ok(err instanceof StatusError && err.statusCode === 409);
  // 10, 50 and 250 ms, each plus half of the 0.1 jitter.
  assert.deepEqual(calls, [0, 10.5, 10.5 + 52.5, 10.5 + 52.5 + 262.5]);
});

test('onError stops on the first non-retriable error and returns the first success', async () => {
  const clock = new FakeClock(0);
  let n = 0;
  assert.equal(await onError(DefaultRetry, () => true, async () => ++n, { clock }), 1);
  await assert.rejects(
    onError(DefaultRetry, (e) => e instanceof StatusError, async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  const controller = new AbortController();
  const aborted = retryOnConflict(DefaultRetry, async () => {
    throw conflict();
  }, { clock, signal: controller.signal });
  await clock.waitForWaiters(1);
  controller.abort(new Error('stop'));
  await assert.rejects(aborted, /stop/);
});

test('with steps <= 0 the function is never called and the wait times out (wait.ExponentialBackoff)', async () => {
  for (const steps of [0, -1, undefined]) {
    let calls = 0;
    const backoff = steps === undefined ? { durationMs: 10 } : { ...DefaultRetry, steps };
    await assert.rejects(
      retryOnConflict(backoff, async () => {
        calls++;
      }),
      (e) => e instanceof RetryTimeoutError && e.message === 'timed out waiting for the condition',
    );
    await assert.rejects(onError(backoff, () => true, async () => ++calls), RetryTimeoutError);
    assert.equal(calls, 0, String(steps));
  }
});
