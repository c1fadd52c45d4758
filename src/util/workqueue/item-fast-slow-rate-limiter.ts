import type { RateLimiter } from './rate-limiter.ts';

/**
 * Retries an item quickly a few times, then slowly (upstream TypedItemFastSlowRateLimiter): the first
 * `maxFastAttempts` requeues of an item wait `fastMs`, later ones `slowMs`, until the item is forgotten.
 */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #fastMs: number;
  readonly #slowMs: number;
  readonly #maxFastAttempts: number;

  constructor(fastMs: number, slowMs: number, maxFastAttempts: number) {
    this.#fastMs = fastMs;
    this.#slowMs = slowMs;
    this.#maxFastAttempts = maxFastAttempts;
  }

  when(item: T): number {
    const failures = (this.#failures.get(item) ?? 0) + 1;
    this.#failures.set(item, failures);
    return failures <= this.#maxFastAttempts ? this.#fastMs : this.#slowMs;
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }
}
