/**
 * The rate limiter contract of rate-limited work queues (upstream TypedRateLimiter in
 * util/workqueue/default_rate_limiters.go). Limiters compose: see {@link MaxOfRateLimiter} and
 * {@link WithMaxWaitRateLimiter}.
 */

/** Decides how long an item waits before it is requeued. */
export interface RateLimiter<T> {
  /** Records one more requeue of `item` and returns how long (ms) it should wait. */
  when(item: T): number;
  /**
   * Stops tracking `item`, whether it finally succeeded or failed for good. This only resets the
   * limiter; the item must still be marked `done` on the queue.
   */
  forget(item: T): void;
  /** How many times `item` has been requeued since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * The delay (ms) standing for "never": Go's `rate.InfDuration` (math.MaxInt64 ns), returned by a token
 * bucket that can never grant a token (burst 0).
 */
export const infDurationMs = 9_223_372_036_854.775;
