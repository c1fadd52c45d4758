/**
 * The worker loop every controller writes around a rate-limited queue (client-go's
 * `processNextWorkItem` pattern), written once.
 */
import { scheduler } from 'node:timers/promises';
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { RateLimitingInterface } from './rate-limiting-queue.ts';

/** Options of {@link runWorkers}. */
export interface RunWorkersOptions<T> {
  /** Number of workers processing items concurrently; a positive integer. Default: 1. */
  concurrency?: number;
  /** Aborting stops the workers: the queue is shut down and no further item is started. */
  signal?: AbortSignal;
  /**
   * Called with every error `process` throws or rejects with, before the item is requeued.
   * Default: logs the item and the error with `console.error`.
   */
  onError?: (error: unknown, item: T) => void;
}

/** Thrown by {@link runWorkers} for a concurrency that is not a positive integer. */
export class InvalidConcurrencyError extends KubeloomError {
  constructor(concurrency: number) {
    super('ERR_INVALID_CONCURRENCY', `concurrency must be a positive integer, got ${concurrency}`);
  }
}

/**
 * Items a worker processes before yielding to the event loop. A queue that always has an item ready
 * resolves `get()` at once, so without this a handler that re-adds its own key would spin on
 * microtasks forever and starve timers, I/O and abort signals.
 */
const itemsPerYield = 128;

function defaultOnError(error: unknown, item: unknown): void {
  console.error(`workqueue: error processing ${typeof item === 'string' ? JSON.stringify(item) : String(item)}:`, error);
}

/**
 * Runs `concurrency` workers over `queue`. Each worker takes an item, runs `process` on it, then:
 * on success `forget`s it (resetting its backoff); on failure reports the error and requeues it with
 * `addRateLimited`; in both cases marks it `done`. Since the queue never hands one item to two
 * workers, `process` never runs twice at once for the same item.
 *
 * Workers stop when the queue is shut down and has nothing left to hand out, or when `signal` aborts
 * (which shuts the queue down; items still queued are then left unprocessed). The returned promise
 * resolves once every worker has exited, so in-flight work has finished. Errors from `process` never
 * reject it; it rejects only for an invalid `concurrency` or if the queue itself throws.
 *
 * @example
 * const controller = new AbortController();
 * const stopped = runWorkers(queue, { concurrency: 4, signal: controller.signal }, async (key) => {
 *   await reconcile(key);
 * });
 * // later
 * controller.abort();
 * await stopped;
 */
export async function runWorkers<T>(
  queue: RateLimitingInterface<T>,
  options: RunWorkersOptions<T>,
  process: (item: T) => void | Promise<void>,
): Promise<void> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new InvalidConcurrencyError(concurrency);
  const { signal } = options;
  const onError = options.onError ?? defaultOnError;

  const onAbort = (): void => queue.shutDown();
  if (signal?.aborted) queue.shutDown();
  else signal?.addEventListener('abort', onAbort, { once: true });

  // A function, so that the check is not narrowed away across awaits.
  const aborted = (): boolean => signal?.aborted === true;
  const worker = async (): Promise<void> => {
    let sinceYield = 0;
    while (!aborted()) {
      if (++sinceYield === itemsPerYield) {
        sinceYield = 0;
        await scheduler.yield();
        if (aborted()) return;
      }
      const next = await queue.get();
      if (next.shutdown) return;
      const { item } = next;
      try {
        if (aborted()) return;
        try {
          await process(item);
          queue.forget(item);
        } catch (error) {
          try {
            onError(error, item);
          } catch {
            // A failing error reporter must not stop the worker or lose the item.
          }
          queue.addRateLimited(item);
        }
      } finally {
        queue.done(item);
      }
    }
  };

  try {
    const workers: Promise<void>[] = [];
    for (let i = 0; i < concurrency; i++) workers.push(worker());
    await Promise.all(workers);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
