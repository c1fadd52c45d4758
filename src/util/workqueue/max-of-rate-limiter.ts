import type { RateLimiter } from './rate-limiter.ts';

/**
 * Asks every limiter and returns the longest delay (upstream TypedMaxOfRateLimiter). Combined with a
 * token bucket, the burst can appear exceeded when some items were separately delayed longer.
 * Every limiter records the requeue, whichever one wins.
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.#limiters = limiters;
  }

  when(item: T): number {
    let ret = 0;
    for (const limiter of this.#limiters) {
      const curr = limiter.when(item);
      if (curr > ret) ret = curr;
    }
    return ret;
  }

  numRequeues(item: T): number {
    let ret = 0;
    for (const limiter of this.#limiters) {
      const curr = limiter.numRequeues(item);
      if (curr > ret) ret = curr;
    }
    return ret;
  }

  forget(item: T): void {
    for (const limiter of this.#limiters) limiter.forget(item);
  }
}
