/**
 * The priority work queue of controller-runtime (pkg/controller/priorityqueue/priorityqueue.go, the
 * default queue of controllers since v0.23): a deduplicating, rate-limited queue whose ready items come
 * out by priority (highest first), then in the order they were first added. Adding an item that is
 * already queued keeps the higher of the two priorities and the sooner of the two ready times, as
 * upstream. Controllers put the objects of an informer's initial list and unchanged resyncs in at
 * {@link LowPriority}, so a real change is handled before a backlog of 10,000 startup reconciles.
 *
 * Where kubeloom differs: upstream's `ShutDown` hands nothing more out at once; here too, but a
 * `get` already waiting resolves with `shutdown: true` instead of blocking forever. Depth metrics carry
 * a `priority` label when the metrics provider offers one (controller-runtime's MetricsProviderWithPriority,
 * what a Manager's controllers use), none otherwise.
 */
import { realClock, type Clock, type Timer } from '../clock/clock.ts';
import { defaultUnfinishedWorkUpdatePeriodMs, newQueueMetrics, newRetryMetrics, resolveMetricsProvider, type CounterMetric, type MetricsProvider, type QueueMetrics } from './metrics.ts';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.ts';
import type { GetResult } from './queue.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { RateLimitingInterface } from './rate-limiting-queue.ts';

/** The priority of initial-list and unchanged-resync events (upstream handler.LowPriority). */
export const LowPriority = -100;

/** How to add an item (upstream priorityqueue.AddOpts). */
export interface AddOpts {
  /** Make the item ready only after this many milliseconds (0 or unset: ready now). */
  afterMs?: number;
  /** Wait what the rate limiter says (the smaller of it and `afterMs` when both are given). */
  rateLimited?: boolean;
  /** Higher comes out first; default 0. */
  priority?: number;
}

/** What {@link PriorityQueue.getWithPriority} resolves to. */
export type PriorityGetResult<T> = GetResult<T> & {
  /** The priority the item was queued with (0 on shutdown). */
  readonly priority: number;
};

/** Options of a {@link PriorityQueue}. */
export interface PriorityQueueOptions<T> {
  /** Labels metrics; unnamed queues record none. Default ''. */
  name?: string;
  /**
   * Used by `addRateLimited` and `rateLimited` adds. Default: per-item exponential backoff from 5 ms to
   * 1000 s (upstream's default for the priority queue, without the overall token bucket).
   */
  rateLimiter?: RateLimiter<T>;
  /** Where metrics go. Default: the global workqueue metrics provider. */
  metricsProvider?: MetricsProvider;
  /** Time source of delays and metrics. Default: the real clock. */
  clock?: Clock;
}

interface Rec<T> {
  readonly key: T;
  readonly priority: number;
  /** Clock time at which the item becomes ready; undefined when ready. */
  readonly readyAt: number | undefined;
  /** Order of the item's first add (upstream AddedCounter). */
  readonly seq: number;
}

/** A binary heap with lazy deletion (callers skip entries that are no longer current). */
class Heap<E> {
  readonly #a: E[] = [];
  readonly #less: (x: E, y: E) => boolean;
  constructor(less: (x: E, y: E) => boolean) {
    this.#less = less;
  }
  get size(): number {
    return this.#a.length;
  }
  peek(): E | undefined {
    return this.#a[0];
  }
  push(e: E): void {
    const a = this.#a;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): E | undefined {
    const a = this.#a;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.#less(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.#less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * A controller work queue ordered by priority (upstream priorityqueue.PriorityQueue). It is a
 * {@link RateLimitingInterface}, so it fits wherever a rate-limited queue does; `addWithOpts` and
 * `getWithPriority` add priorities.
 *
 * @example
 * const queue = new PriorityQueue<string>({ name: 'widgets' });
 * queue.addWithOpts({ priority: LowPriority }, 'default/old');
 * queue.add('default/changed'); // handed out first
 */
export class PriorityQueue<T> implements RateLimitingInterface<T> {
  // Invariant: a key is in #items iff it is queued (ready or waiting). A ready, unlocked key's current
  // record is in #ready; a waiting key's current record is in #waiting. Heaps may hold stale records
  // (not === #items.get(key)), skipped when they surface. A locked key (handed out, not done) that is
  // queued and ready stays out of #ready until done().
  readonly #items = new Map<T, Rec<T>>();
  readonly #ready = new Heap<Rec<T>>((x, y) => (x.priority !== y.priority ? x.priority > y.priority : x.seq < y.seq));
  readonly #waiting = new Heap<Rec<T>>((x, y) => (x.readyAt! !== y.readyAt! ? x.readyAt! < y.readyAt! : x.seq < y.seq));
  readonly #locked = new Set<T>();
  #readyCount = 0;
  #seq = 0;
  #getters: ((r: PriorityGetResult<T>) => void)[] = [];
  #shutdown = false;
  #timer: Timer | undefined;
  #timerAt = Infinity;
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter<T>;
  readonly #metrics: QueueMetrics<T> | undefined;
  readonly #retries: CounterMetric | undefined;
  readonly #ticker: { stop(): void } | undefined;

  constructor(options: PriorityQueueOptions<T> = {}) {
    this.#clock = options.clock ?? realClock;
    this.#rateLimiter = options.rateLimiter ?? new ItemExponentialFailureRateLimiter<T>(5, 1_000_000);
    const provider = resolveMetricsProvider(options.metricsProvider);
    this.#metrics = newQueueMetrics<T>(provider, options.name ?? '', this.#clock, true);
    this.#retries = newRetryMetrics(provider, options.name ?? '');
    const metrics = this.#metrics;
    if (metrics !== undefined) this.#ticker = this.#clock.newTicker(defaultUnfinishedWorkUpdatePeriodMs, () => metrics.updateUnfinishedWork());
  }

  /** Adds `items` with the given delay, rate limiting and priority (upstream AddWithOpts). */
  addWithOpts(opts: AddOpts, ...items: T[]): void {
    if (this.#shutdown) return;
    const priority = opts.priority ?? 0;
    for (const key of items) {
      let after = opts.afterMs ?? 0;
      if (opts.rateLimited === true) {
        const rl = this.#rateLimiter.when(key);
        if (after === 0 || rl < after) after = rl;
      }
      let readyAt: number | undefined;
      if (after > 0) {
        readyAt = this.#clock.now() + after;
        this.#retries?.inc();
      }
      const old = this.#items.get(key);
      if (old === undefined) {
        this.#place({ key, priority, readyAt, seq: this.#seq++ });
        continue;
      }
      const newPriority = Math.max(priority, old.priority);
      const newReadyAt = old.readyAt !== undefined && (readyAt === undefined || readyAt < old.readyAt) ? readyAt : old.readyAt;
      if (newPriority === old.priority && newReadyAt === old.readyAt) continue;
      const wasReady = old.readyAt === undefined;
      if (wasReady && !this.#locked.has(key)) this.#readyCount--;
      if (wasReady) this.#metrics?.reprioritize(old.priority, newPriority);
      this.#place({ key, priority: newPriority, readyAt: newReadyAt, seq: old.seq }, wasReady);
    }
    this.#pump();
  }

  #place(rec: Rec<T>, alreadyCounted = false): void {
    this.#items.set(rec.key, rec);
    if (rec.readyAt === undefined) {
      if (!alreadyCounted) this.#metrics?.add(rec.key, rec.priority);
      if (!this.#locked.has(rec.key)) {
        this.#ready.push(rec);
        this.#readyCount++;
      }
    } else {
      this.#waiting.push(rec);
      this.#arm();
    }
  }

  /** Moves due records from #waiting to #ready and (re)arms the timer for the next one. */
  #promote(): void {
    const now = this.#clock.now();
    for (;;) {
      const top = this.#waiting.peek();
      if (top === undefined) break;
      if (this.#items.get(top.key) !== top) {
        this.#waiting.pop();
        continue;
      }
      if (top.readyAt! > now) break;
      this.#waiting.pop();
      this.#place({ key: top.key, priority: top.priority, readyAt: undefined, seq: top.seq });
    }
    this.#arm();
  }

  #arm(): void {
    let top = this.#waiting.peek();
    while (top !== undefined && this.#items.get(top.key) !== top) {
      this.#waiting.pop();
      top = this.#waiting.peek();
    }
    if (top === undefined || this.#shutdown) {
      this.#timer?.stop();
      this.#timer = undefined;
      this.#timerAt = Infinity;
      return;
    }
    if (this.#timer !== undefined && this.#timerAt <= top.readyAt!) return;
    this.#timer?.stop();
    this.#timerAt = top.readyAt!;
    this.#timer = this.#clock.afterFunc(Math.max(0, top.readyAt! - this.#clock.now()), () => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#promote();
      this.#pump();
    });
  }

  /** The next current ready record, removed from #ready, or undefined. */
  #takeReady(): Rec<T> | undefined {
    for (;;) {
      const rec = this.#ready.pop();
      if (rec === undefined) return undefined;
      if (this.#items.get(rec.key) !== rec || this.#locked.has(rec.key)) continue;
      this.#readyCount--;
      this.#items.delete(rec.key);
      this.#locked.add(rec.key);
      this.#metrics?.get(rec.key, rec.priority);
      return rec;
    }
  }

  /** Hands ready items to waiting getters. */
  #pump(): void {
    while (this.#getters.length > 0) {
      const rec = this.#takeReady();
      if (rec === undefined) return;
      this.#getters.shift()!({ item: rec.key, priority: rec.priority, shutdown: false });
    }
  }

  add(item: T): void {
    this.addWithOpts({}, item);
  }

  addAfter(item: T, delayMs: number): void {
    this.addWithOpts({ afterMs: delayMs }, item);
  }

  addRateLimited(item: T): void {
    this.addWithOpts({ rateLimited: true }, item);
  }

  /** The next ready item with its priority, waiting for one; `shutdown: true` once shut down. */
  getWithPriority(): Promise<PriorityGetResult<T>> {
    if (this.#shutdown) return Promise.resolve({ shutdown: true, priority: 0 });
    this.#promote();
    const rec = this.#takeReady();
    if (rec !== undefined) return Promise.resolve({ item: rec.key, priority: rec.priority, shutdown: false });
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  get(): Promise<GetResult<T>> {
    return this.getWithPriority();
  }

  done(item: T): void {
    if (!this.#locked.delete(item)) return;
    this.#metrics?.done(item);
    const rec = this.#items.get(item);
    if (rec !== undefined && rec.readyAt === undefined) {
      this.#ready.push(rec);
      this.#readyCount++;
      this.#pump();
    }
  }

  forget(item: T): void {
    this.#rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.#rateLimiter.numRequeues(item);
  }

  /** Items ready to be handed out (not those still waiting for their delay, nor those being processed). */
  len(): number {
    return this.#readyCount;
  }

  shutDown(): void {
    if (this.#shutdown) return;
    this.#shutdown = true;
    this.#timer?.stop();
    this.#timer = undefined;
    this.#ticker?.stop();
    const getters = this.#getters;
    this.#getters = [];
    for (const g of getters) g({ shutdown: true, priority: 0 });
  }

  /** As upstream: the same as {@link PriorityQueue.shutDown} (controllers do not drain this queue). */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    return Promise.resolve();
  }

  shuttingDown(): boolean {
    return this.#shutdown;
  }
}
