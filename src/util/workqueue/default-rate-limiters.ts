import type { Clock } from '../clock/clock.ts';
import { BucketRateLimiter } from './bucket-rate-limiter.ts';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.ts';
import { MaxOfRateLimiter } from './max-of-rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';

/** Options of {@link defaultControllerRateLimiter}. */
export interface DefaultControllerRateLimiterOptions {
  /** Time source of the token bucket. Default: {@link util/clock!realClock}. */
  clock?: Clock;
}

/**
 * The rate limiter controllers use by default (upstream DefaultTypedControllerRateLimiter): the worse of
 * a per-item exponential backoff from 5 ms to 1000 s and an overall token bucket of 10 qps with a burst
 * of 100. The bucket only paces retries overall; it is not per item.
 */
export function defaultControllerRateLimiter<T>(options: DefaultControllerRateLimiterOptions = {}): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, { clock: options.clock }),
  );
}
