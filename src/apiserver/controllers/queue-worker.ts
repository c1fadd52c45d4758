/**
 * One work queue and the worker that drains it, for the controllers running inside the server: client-go's
 * rate-limited queue on the server's clock, processed by {@link runWorkers}, plus the bookkeeping
 * {@link QueueWorker.idle} needs to tell when nothing is left to do right now.
 */
import type { Clock } from '../../util/clock/clock.ts';
import { RateLimitingQueue } from '../../util/workqueue/rate-limiting-queue.ts';
import type { RateLimiter } from '../../util/workqueue/rate-limiter.ts';
import { runWorkers } from '../../util/workqueue/run-workers.ts';
import { traceReconcile } from '../../tracing/reconcile-span.ts';

/** Thrown by a worker's `process` to retry the item later with the queue's backoff, without reporting an error. */
export class Requeue extends Error {
  constructor() {
    super('requeue');
    this.name = 'Requeue';
  }
}

/** Options of {@link QueueWorker}. */
export interface QueueWorkerOptions<T> {
  clock: Clock;
  /** Default: client-go's DefaultControllerRateLimiter on `clock`. */
  rateLimiter?: RateLimiter<T>;
  /** Handles one item; throwing (other than {@link Requeue}) reports the error and retries with backoff. */
  process: (item: T) => void | Promise<void>;
  /** Receives errors other than {@link Requeue}. */
  onError: (error: unknown, item: T) => void;
  /**
   * Traces each item as one reconcile of `controller` (the Manager's span shape and attribute names;
   * a {@link Requeue} ends it with result `requeue`), the request named by `key` (default `String(item)`).
   * Off unless a tracer provider is registered.
   */
  trace?: { controller: string; key?: (item: T) => string };
}

const requeueResult = (thrown: unknown): string | undefined => (thrown instanceof Requeue ? 'requeue' : undefined);

/** A queue with one worker. Start it once; after {@link QueueWorker.stop} it cannot be restarted. */
export class QueueWorker<T> {
  readonly queue: RateLimitingQueue<T>;
  readonly #options: QueueWorkerOptions<T>;
  readonly #stop = new AbortController();
  #inFlight = 0;
  #done: Promise<void> | undefined;

  constructor(options: QueueWorkerOptions<T>) {
    this.#options = options;
    this.queue = new RateLimitingQueue<T>({ clock: options.clock, ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }) });
  }

  /** Starts the worker. */
  start(): void {
    const { onError, trace } = this.#options;
    const process =
      trace === undefined ? this.#options.process : (item: T): void | Promise<void> => traceReconcile(trace.controller, trace.key?.(item) ?? String(item), () => this.#options.process(item), requeueResult);
    this.#done ??= runWorkers(
      this.queue,
      {
        signal: this.#stop.signal,
        onError: (err, item) => {
          if (!(err instanceof Requeue)) onError(err, item);
        },
      },
      async (item) => {
        this.#inFlight++;
        try {
          await process(item);
        } finally {
          this.#inFlight--;
        }
      },
    );
  }

  /** True when no item is ready and none is being processed (items waiting for a delay do not count). */
  idle(): boolean {
    return this.#inFlight === 0 && this.queue.len() === 0;
  }

  /** Stops the worker once the item in hand is done; queued items are dropped. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.queue.shutDown();
    await this.#done;
  }
}
