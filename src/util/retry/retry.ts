/**
 * Retrying an operation on chosen errors with backoff (k8s.io/client-go/util/retry):
 * `retryOnConflict(DefaultRetry, fn)` is the standard read-modify-write loop for updates.
 */
import { KubeloomError, isConflict } from '../../apimachinery/errors.ts';
import { Backoff, type BackoffOptions } from '../backoff/backoff.ts';
import { realClock, type Clock } from '../clock/clock.ts';

/** retry.DefaultRetry: for quick retries of conflicting updates — 5 steps of 10 ms, jitter 0.1. */
export const DefaultRetry: Readonly<BackoffOptions> = Object.freeze({ steps: 5, durationMs: 10, factor: 1.0, jitter: 0.1 });

/** retry.DefaultBackoff: for calls that may take longer — 4 steps from 10 ms, ×5 each, jitter 0.1. */
export const DefaultBackoff: Readonly<BackoffOptions> = Object.freeze({ steps: 4, durationMs: 10, factor: 5.0, jitter: 0.1 });

/** Extra options: the clock to sleep on and an abort signal. */
export interface RetryOptions {
  /** The clock to sleep on (default: the real clock). */
  clock?: Clock;
  /** Aborts the waiting between attempts. */
  signal?: AbortSignal;
}

/**
 * A retry loop ran out of attempts before `fn` was ever called: the backoff allowed no step
 * (wait.ErrWaitTimeout, "timed out waiting for the condition").
 */
export class RetryTimeoutError extends KubeloomError {
  constructor() {
    super('ERR_WAIT_TIMEOUT', 'timed out waiting for the condition');
  }
}

/**
 * Calls `fn` up to `backoff.steps` times, sleeping the backoff's delay between attempts, while it
 * fails with an error `retriable` accepts (retry.OnError over wait.ExponentialBackoff). Resolves
 * with `fn`'s result; rejects with the last error when it is not retriable or the steps run out.
 * With `steps` ≤ 0 (or unset) `fn` is never called and the call rejects with
 * {@link RetryTimeoutError}, as upstream.
 */
export async function onError<R>(backoff: BackoffOptions, retriable: (err: unknown) => boolean, fn: () => Promise<R>, options: RetryOptions = {}): Promise<R> {
  const clock = options.clock ?? realClock;
  const b = new Backoff({ ...backoff });
  if (b.steps <= 0) throw new RetryTimeoutError();
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!retriable(err) || b.steps <= 1) throw err;
      await clock.sleep(b.step(), options.signal);
    }
  }
}

/**
 * Runs a read-modify-write `fn` again when it fails with a Conflict (retry.RetryOnConflict): `fn`
 * should get the latest object, change it and update it.
 *
 * @example
 * await retryOnConflict(DefaultRetry, async () => {
 *   const d = await deployments.get('web');
 *   d.spec!.replicas = 3;
 *   await deployments.update(d);
 * });
 */
export async function retryOnConflict<R>(backoff: BackoffOptions, fn: () => Promise<R>, options?: RetryOptions): Promise<R> {
  return onError(backoff, isConflict, fn, options);
}
