import type { RateLimiter } from './rate-limiter.ts';

// Largest Go time.Duration in ns (math.MaxInt64, as a float64): upstream's overflow guard.
const maxInt64 = 2 ** 63;

/**
 * Per-item exponential backoff: the n-th requeue of an item (counting from 0) waits
 * `baseMs * 2^n`, capped at `maxMs` (upstream TypedItemExponentialFailureRateLimiter). Failures are
 * counted per item until {@link ItemExponentialFailureRateLimiter.forget}; giving up after some number of
 * failures is the caller's business.
 *
 * @example
 * const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1000_000);
 * limiter.when('a'); // 5
 * limiter.when('a'); // 10
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  /**
   * @param baseMs delay of the first requeue
   * @param maxMs upper bound of any delay
   */
  constructor(baseMs: number, maxMs: number) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(item: T): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    // Upstream computes in float64 nanoseconds and caps before converting, so huge exponents cannot
    // overflow; the same guard keeps 2^1024 = Infinity harmless here.
    const backoffNs = this.#baseMs * 1e6 * 2 ** exp;
    if (backoffNs > maxInt64) return this.#maxMs;
    if (Number.isNaN(backoffNs)) return 0;
    const calculated = Math.trunc(backoffNs) / 1e6;
    return calculated > this.#maxMs ? this.#maxMs : calculated;
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }
}

/** Per-item exponential backoff from 1 ms to 1000 s (upstream DefaultTypedItemBasedRateLimiter). */
export function defaultItemBasedRateLimiter<T>(): RateLimiter<T> {
  return new ItemExponentialFailureRateLimiter<T>(1, 1_000_000);
}
