/**
 * A work queue that can add an item later, mirroring client-go's util/workqueue/delaying_queue.go.
 * Used to requeue items after failures without hot-looping.
 */
import { realClock, type Clock, type Timer } from '../clock/clock.ts';
import { WaitForHeap, type WaitFor } from './heap.ts';
import { newRetryMetrics, resolveMetricsProvider, type CounterMetric, type MetricsProvider } from './metrics.ts';
import { Queue, type GetResult, type QueueInterface } from './queue.ts';

/** A work queue with delayed adds (upstream TypedDelayingInterface). */
export interface DelayingInterface<T> extends QueueInterface<T> {
  /**
   * Adds `item` once `delayMs` has passed; `delayMs <= 0` (or NaN) adds it now. If the item is already
   * waiting, it keeps whichever ready time is earlier. Ignored once the queue is shutting down.
   */
  addAfter(item: T, delayMs: number): void;
}

/** Options of {@link DelayingQueue} (upstream TypedDelayingQueueConfig). */
export interface DelayingQueueOptions<T> {
  /** Labels metrics, including `workqueue_retries_total`; unnamed queues record none. Default: `''`. */
  name?: string;
  /** Where metrics go. Default: the global provider, initially a no-op. */
  metricsProvider?: MetricsProvider;
  /** Drives the delays (and the metrics of the default inner queue). Default: {@link realClock}. */
  clock?: Clock;
  /** The queue that ready items are added to. Default: a new {@link Queue} with the same name, provider and clock. */
  queue?: QueueInterface<T>;
}

/**
 * Longest time the queue sleeps before re-checking its waiting items (upstream maxWait, 10 s): insurance
 * against wall-clock jumps, and it keeps every timer far below the platform's timer limit.
 */
export const maxWaitMs = 10_000;

/**
 * A work queue with delayed adds (upstream delayingType). Waiting items sit in a min-heap ordered by
 * ready time, and a single clock timer is armed for the earliest one; there is no timer per item.
 *
 * @example
 * const queue = new DelayingQueue<string>();
 * queue.addAfter('default/web', 30_000); // reconcile again in 30 s
 */
export class DelayingQueue<T> implements DelayingInterface<T> {
  readonly #queue: QueueInterface<T>;
  readonly #clock: Clock;
  readonly #retries: CounterMetric | undefined;
  readonly #heap = new WaitForHeap<T>();
  // The live entry of each waiting item. #heap may also hold superseded entries (an item's later
  // schedule, replaced by a sooner one): they are dropped when they reach the top.
  readonly #waiting = new Map<T, WaitFor<T>>();
  #timer: Timer | undefined;
  // Clock time the timer fires at; Infinity when no timer is armed.
  #timerAt = Infinity;
  #stopped = false;

  constructor(options: DelayingQueueOptions<T> = {}) {
    const name = options.name ?? '';
    this.#clock = options.clock ?? realClock;
    this.#queue = options.queue ?? new Queue<T>({ name, clock: this.#clock, metricsProvider: options.metricsProvider });
    this.#retries = newRetryMetrics(resolveMetricsProvider(options.metricsProvider), name);
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

  shuttingDown(): boolean {
    return this.#queue.shuttingDown();
  }

  /** Shuts the queue down; items still waiting for their delay are dropped, as upstream. */
  shutDown(): void {
    this.#stop();
    this.#queue.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    this.#stop();
    return this.#queue.shutDownWithDrain();
  }

  addAfter(item: T, delayMs: number): void {
    if (this.#queue.shuttingDown()) return;
    this.#retries?.inc();
    if (!(delayMs > 0)) {
      this.#queue.add(item);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const existing = this.#waiting.get(item);
    if (existing !== undefined) {
      // Only ever move a waiting item earlier (upstream insert).
      if (readyAt >= existing.readyAt) return;
      existing.superseded = true;
    }
    this.#waiting.set(item, this.#heap.push(item, readyAt));
    if (readyAt < this.#timerAt) this.#arm(readyAt);
  }

  /** Arms the single timer for `readyAt`, or for {@link maxWaitMs} from now if that is sooner. */
  #arm(readyAt: number): void {
    const now = this.#clock.now();
    const delay = Math.min(readyAt - now, maxWaitMs);
    this.#timerAt = now + delay;
    if (this.#timer === undefined) this.#timer = this.#clock.afterFunc(delay, this.#onTimer);
    else this.#timer.reset(delay);
  }

  readonly #onTimer = (): void => {
    this.#timerAt = Infinity;
    if (this.#stopped) return;
    // The inner queue may have been shut down directly: stop as upstream's loop does.
    if (this.#queue.shuttingDown()) {
      this.#stop();
      return;
    }
    const now = this.#clock.now();
    const heap = this.#heap;
    const waiting = this.#waiting;
    for (;;) {
      const next = heap.peek();
      if (next === undefined) break;
      if (next.superseded) {
        heap.pop();
        continue;
      }
      if (next.readyAt > now) {
        this.#arm(next.readyAt);
        break;
      }
      heap.pop();
      waiting.delete(next.item);
      this.#queue.add(next.item);
    }
  };

  #stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#timer?.stop();
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.#heap.clear();
    this.#waiting.clear();
  }
}
