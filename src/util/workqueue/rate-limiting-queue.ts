/**
 * A work queue that requeues items after a delay chosen by a {@link RateLimiter}, mirroring client-go's
 * util/workqueue/rate_limiting_queue.go. This is the queue controllers normally use.
 */
import { realClock, type Clock } from '../clock/clock.ts';
import { defaultControllerRateLimiter } from './default-rate-limiters.ts';
import { DelayingQueue, type DelayingInterface } from './delaying-queue.ts';
import type { MetricsProvider } from './metrics.ts';
import type { GetResult } from './queue.ts';
import type { RateLimiter } from './rate-limiter.ts';

/** A work queue with rate-limited requeues (upstream TypedRateLimitingInterface). */
export interface RateLimitingInterface<T> extends DelayingInterface<T> {
  /** Adds `item` after the delay the rate limiter chooses for it (counting one more requeue). */
  addRateLimited(item: T): void;
  /**
   * Stops the rate limiter tracking `item`, whether it succeeded or failed for good. The item must
   * still be marked {@link RateLimitingInterface.done}.
   */
  forget(item: T): void;
  /** How many times `item` has been requeued through {@link RateLimitingInterface.addRateLimited}. */
  numRequeues(item: T): number;
}

/** Options of {@link RateLimitingQueue} (upstream TypedRateLimitingQueueConfig). */
export interface RateLimitingQueueOptions<T> {
  /** Chooses requeue delays. Default: {@link defaultControllerRateLimiter} on this queue's clock. */
  rateLimiter?: RateLimiter<T>;
  /** Labels the queue's metrics; unnamed queues record none. Default: `''`. */
  name?: string;
  /** Where metrics go. Default: the global provider, initially a no-op. */
  metricsProvider?: MetricsProvider;
  /** Time source for delays and metrics. Default: {@link realClock}. */
  clock?: Clock;
  /** The delaying queue to wrap. Default: a new {@link DelayingQueue} with the same name, provider and clock. */
  delayingQueue?: DelayingInterface<T>;
}

/**
 * A rate-limited work queue (upstream rateLimitingType). Remember to call `forget` once an item
 * succeeds, or its failures are tracked forever.
 *
 * @example
 * const queue = new RateLimitingQueue<string>({ name: 'deployments' });
 * queue.add('default/web');
 * // in a worker: on failure
 * queue.addRateLimited(key); // retried after 5 ms, 10 ms, 20 ms, ... (and at most 10/s overall)
 * queue.done(key);
 */
export class RateLimitingQueue<T> implements RateLimitingInterface<T> {
  readonly #queue: DelayingInterface<T>;
  readonly #rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    const clock = options.clock ?? realClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>({ clock });
    this.#queue = options.delayingQueue ?? new DelayingQueue<T>({ clock, name: options.name, metricsProvider: options.metricsProvider });
  }

  add(item: T): void {
    this.#queue.add(item);
  }

  len(): number {
    return this.#queue.len();
  }

  get(): Promise<GetResult<T>> {
    return this.#queue.get();
  }

  done(item: T): void {
    this.#queue.done(item);
  }

  shutDown(): void {
    this.#queue.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    return this.#queue.shutDownWithDrain();
  }

  shuttingDown(): boolean {
    return this.#queue.shuttingDown();
  }

  addAfter(item: T, delayMs: number): void {
    this.#queue.addAfter(item, delayMs);
  }

  addRateLimited(item: T): void {
    this.#queue.addAfter(item, this.#rateLimiter.when(item));
  }

  forget(item: T): void {
    this.#rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.#rateLimiter.numRequeues(item);
  }
}
