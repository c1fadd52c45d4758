/**
 * The basic work queue, mirroring client-go's util/workqueue/queue.go.
 *
 * Controllers put keys on a work queue from their event handlers and let workers consume them. The queue
 * guarantees what upstream guarantees:
 * - fair: items are handed out in the order they were added;
 * - stingy: an item added several times before it is handed out is processed once;
 * - exclusive: an item is never handed to two workers at once; an item re-added while it is being
 *   processed is queued again only after `done`;
 * - shutdown wakes every waiting worker.
 *
 * Items are compared as `Map` keys are (SameValueZero): strings such as `namespace/name` keys are
 * recommended, since two structurally equal objects are different items.
 */
import { realClock, type Clock, type Ticker } from '../clock/clock.ts';
import {
  defaultUnfinishedWorkUpdatePeriodMs,
  newQueueMetrics,
  resolveMetricsProvider,
  type MetricsProvider,
  type QueueMetrics,
} from './metrics.ts';

/** What {@link QueueInterface.get} resolves to: an item to process, or the news that the queue is shut down. */
export type GetResult<T> =
  | {
      /** The item to process; call `done(item)` afterwards. */
      readonly item: T;
      /** False: the queue is running. */
      readonly shutdown: false;
    }
  | {
      /** No item. */
      readonly item?: undefined;
      /** True: the queue shut down and is drained; the worker should exit. */
      readonly shutdown: true;
    };

const shutdownResult: GetResult<never> = Object.freeze({ shutdown: true });

/** The work queue contract (upstream TypedInterface). */
export interface QueueInterface<T> {
  /** Marks `item` as needing processing. Ignored once the queue is shutting down. */
  add(item: T): void;
  /** Number of items waiting to be handed out; informational only. */
  len(): number;
  /**
   * Resolves with the next item once one is available, or with `{ shutdown: true }` once the queue is
   * shutting down and has nothing left to hand out. Call {@link QueueInterface.done} with every item
   * received, whatever happens while processing it.
   */
  get(): Promise<GetResult<T>>;
  /** Marks `item` as processed; if it was added again meanwhile, it is queued again now. */
  done(item: T): void;
  /** Ignores further adds and wakes every waiting `get` (items already queued can still be taken). */
  shutDown(): void;
  /**
   * Like {@link QueueInterface.shutDown}, then resolves once no item is being processed. Calling
   * `shutDown` afterwards resolves it at once, as upstream.
   */
  shutDownWithDrain(): Promise<void>;
  /** True once `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean;
}

/**
 * The storage that decides the order of waiting items (upstream `Queue[T]`). The work queue guarantees
 * that an item is pushed only while it is not already stored, so implementations need no deduplication.
 */
export interface QueueStorage<T> {
  /** Called when a waiting item is added again; a priority queue may use it to raise the item's priority. */
  touch(item: T): void;
  /** Stores a new item. */
  push(item: T): void;
  /** Number of stored items. */
  len(): number;
  /** Removes and returns the next item; only called when `len() > 0`. */
  pop(): T;
}

/**
 * The default storage: a first-in first-out ring buffer. Unlike a JavaScript array used with `shift`,
 * popping is O(1) whatever the queue length, and slots are cleared so popped items can be collected.
 */
export class FifoStorage<T> implements QueueStorage<T> {
  #buf: (T | undefined)[] = new Array<T | undefined>(16);
  #mask = 15;
  #head = 0;
  #size = 0;

  touch(_item: T): void {}

  push(item: T): void {
    if (this.#size === this.#buf.length) this.#grow();
    this.#buf[(this.#head + this.#size) & this.#mask] = item;
    this.#size++;
  }

  len(): number {
    return this.#size;
  }

  pop(): T {
    const item = this.#buf[this.#head] as T;
    this.#buf[this.#head] = undefined;
    this.#head = (this.#head + 1) & this.#mask;
    this.#size--;
    return item;
  }

  #grow(): void {
    const old = this.#buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.#size; i++) next[i] = old[(this.#head + i) & this.#mask];
    this.#buf = next;
    this.#mask = next.length - 1;
    this.#head = 0;
  }
}

/** Options of {@link Queue} (upstream TypedQueueConfig). */
export interface QueueOptions<T> {
  /** Labels the queue's metrics; unnamed queues record no metrics. Default: `''`. */
  name?: string;
  /** Where metrics go. Default: the global provider ({@link setGlobalMetricsProvider}), initially a no-op. */
  metricsProvider?: MetricsProvider;
  /** Time source for metrics. Default: {@link realClock}. */
  clock?: Clock;
  /** Ordering of waiting items. Default: a new {@link FifoStorage}. */
  storage?: QueueStorage<T>;
}

// Item states, one Map entry per known item. DIRTY: needs processing (waiting in storage unless also
// PROCESSING). PROCESSING: handed out and not yet done.
const DIRTY = 1;
const PROCESSING = 2;

/**
 * The basic work queue (upstream `workqueue.Typed`).
 *
 * @example
 * const queue = new Queue<string>();
 * queue.add('default/web');
 * const next = await queue.get();
 * if (!next.shutdown) {
 *   try { await reconcile(next.item); } finally { queue.done(next.item); }
 * }
 */
export class Queue<T> implements QueueInterface<T> {
  readonly #storage: QueueStorage<T>;
  // Invariant: an item is in #storage iff its state is DIRTY without PROCESSING. #processingCount is the
  // number of items whose state includes PROCESSING.
  readonly #states = new Map<T, number>();
  #processingCount = 0;
  // Pending get() calls; non-empty only while #storage is empty and the queue is running.
  #getters: ((result: GetResult<T>) => void)[] = [];
  // Pending shutDownWithDrain() calls.
  #drainers: (() => void)[] = [];
  #shuttingDown = false;
  readonly #metrics: QueueMetrics<T> | undefined;
  #ticker: Ticker | undefined;

  constructor(options: QueueOptions<T> = {}) {
    const clock = options.clock ?? realClock;
    this.#storage = options.storage ?? new FifoStorage<T>();
    this.#metrics = newQueueMetrics<T>(resolveMetricsProvider(options.metricsProvider), options.name ?? '', clock);
    if (this.#metrics !== undefined) {
      const metrics = this.#metrics;
      this.#ticker = clock.newTicker(defaultUnfinishedWorkUpdatePeriodMs, () => metrics.updateUnfinishedWork());
    }
  }

  add(item: T): void {
    if (this.#shuttingDown) return;
    const state = this.#states.get(item);
    if (state === undefined) {
      this.#metrics?.add(item);
      this.#states.set(item, DIRTY);
      this.#enqueue(item);
      return;
    }
    if ((state & DIRTY) !== 0) {
      // Already waiting: let the storage reorder it if it cares; already processing: done() requeues it.
      if ((state & PROCESSING) === 0) this.#storage.touch(item);
      return;
    }
    // Being processed and not yet dirty: remember to requeue it when done.
    this.#metrics?.add(item);
    this.#states.set(item, state | DIRTY);
  }

  len(): number {
    return this.#storage.len();
  }

  get(): Promise<GetResult<T>> {
    if (this.#storage.len() > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve(shutdownResult);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /**
   * Marks `item` as processed. Unlike upstream, calling it for an item that is not being processed is a
   * no-op: upstream would queue a waiting item a second time and so hand it to two workers.
   */
  done(item: T): void {
    const state = this.#states.get(item);
    if (state === undefined || (state & PROCESSING) === 0) return;
    this.#metrics?.done(item);
    this.#processingCount--;
    if ((state & DIRTY) !== 0) {
      // Re-added while processing: queue it now (a waiting worker takes it at once).
      this.#states.set(item, DIRTY);
      this.#enqueue(item);
    } else {
      this.#states.delete(item);
    }
    // As upstream, a drain ends when nothing is being processed, even if a requeued item waits.
    if (this.#processingCount === 0) this.#resolveDrainers();
  }

  shutDown(): void {
    this.#shutdown();
    // A forced shutdown ends any drain in progress, as upstream's drain flag does.
    this.#resolveDrainers();
  }

  shutDownWithDrain(): Promise<void> {
    this.#shutdown();
    if (this.#processingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainers.push(resolve));
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  #shutdown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    // The unfinished-work loop stops with the queue, as upstream's does at its next tick.
    this.#ticker?.stop();
    this.#ticker = undefined;
    const getters = this.#getters;
    this.#getters = [];
    for (const resolve of getters) resolve(shutdownResult);
  }

  /** Stores an item that has just become dirty and hands it straight to a waiting getter if there is one. */
  #enqueue(item: T): void {
    this.#storage.push(item);
    if (this.#getters.length > 0) this.#getters.shift()!(this.#take());
  }

  #take(): GetResult<T> {
    const item = this.#storage.pop();
    this.#metrics?.get(item);
    this.#states.set(item, PROCESSING);
    this.#processingCount++;
    return { item, shutdown: false };
  }

  #resolveDrainers(): void {
    if (this.#drainers.length === 0) return;
    const drainers = this.#drainers;
    this.#drainers = [];
    for (const resolve of drainers) resolve();
  }
}
