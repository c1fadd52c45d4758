import type { RateLimiter } from './rate-limiter.ts';

/** Caps the delays of another limiter at `maxMs` (upstream TypedWithMaxWaitRateLimiter). */
export class WithMaxWaitRateLimiter<T> implements RateLimiter<T> {
  readonly #limiter: RateLimiter<T>;
  readonly #maxMs: number;

  constructor(limiter: RateLimiter<T>, maxMs: number) {
    this.#limiter = limiter;
    this.#maxMs = maxMs;
  }

  when(item: T): number {
    const delay = this.#limiter.when(item);
    return delay > this.#maxMs ? this.#maxMs : delay;
  }

  numRequeues(item: T): number {
    return this.#limiter.numRequeues(item);
  }

  forget(item: T): void {
    this.#limiter.forget(item);
  }
}
