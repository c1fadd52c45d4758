/**
 * The window of recent events kube-apiserver's watch cache keeps for each resource, and the 410 it answers
 * for a watch that starts before that window: `apiserver/pkg/storage/cacher/watch_cache.go` (watchCache's
 * cyclic buffer, resizeCacheLocked, getAllEventsSinceLocked, waitUntilFreshAndBlock).
 *
 * Upstream keeps, per resource, a cyclic buffer of the latest events. Its capacity starts at 100 and doubles
 * (up to 100 × 1024) whenever it is full and its oldest event is younger than `eventFreshDuration` (75 s);
 * it halves (down to 100) when it is full and the event a quarter of the capacity back is older than that.
 * A full buffer drops its oldest event on every write. A watch can start from the revision the cache was
 * listed at (its start) as long as no event was dropped since, and otherwise from just before the oldest
 * event kept; any older resourceVersion answers `410 Expired: too old resource version: N (M)`, whether or
 * not etcd compacted it. This sizing is the same in v1.24 (the recorded cluster) and v1.32 (the version
 * the embedded server models; v1.30 replaced the `startIndex == 0` test by a `removedEventSinceRelist` flag
 * with the same meaning), and that is what is modelled here.
 *
 * Only revisions and write times are kept: the events themselves stay in the storage's history, which
 * still bounds every watch (an etcd compaction, `faults.compact()`, also ends older watches, which upstream's
 * cache would keep serving; tests use it to force a 410).
 *
 * What differs: built-in resources' caches all start when the server has written its bootstrap objects
 * (upstream's start when each cacher first lists, at about the same time); a custom resource's cache
 * starts when its CRD is first served (upstream's on the first request to it) and is not restarted when
 * the CRD changes (upstream builds new storage, and with it a new cache, on most CRD updates).
 * `faults.restart()` starts every cache again at the current revision, as a restarted server does.
 */
import type { Clock } from '../util/clock/index.ts';
import type { Storage } from './storage.ts';

/** Sizing of the watch cache's event window (upstream's constants; see the file comment). */
export interface WatchCacheOptions {
  /** Smallest capacity of a resource's window, and its capacity at start (default 100: `defaultLowerBoundCapacity`). */
  lowerBoundCapacity?: number;
  /** Largest capacity (default 102,400: `defaultUpperBoundCapacity`, 100 × 1024). */
  upperBoundCapacity?: number;
  /** How long events should stay in the window before it stops growing for them (default 75,000 ms: `eventFreshDuration`). */
  eventFreshDurationMs?: number;
}

// apiserver/pkg/storage/cacher/watch_cache.go.
const defaultLowerBoundCapacity = 100;
const defaultUpperBoundCapacity = 100 * 1024;
const defaultEventFreshDurationMs = 75_000;
/** How long a read waits for a resourceVersion the cache has not reached yet (`blockTimeout`). */
export const watchCacheBlockTimeoutMs = 3_000;

/** One resource's window: a cyclic buffer of (revision, write time), indexed like upstream's. */
export class EventWindow {
  readonly #lower: number;
  readonly #upper: number;
  readonly #freshMs: number;
  #capacity: number;
  #rvs: number[];
  #times: number[];
  // Live entries are [#start, #end), at index i % #capacity; both only grow.
  #start = 0;
  #end = 0;
  #removedSinceList = false;
  readonly #listRevision: number;

  constructor(listRevision: number, options: Required<WatchCacheOptions>) {
    this.#lower = Math.max(1, options.lowerBoundCapacity);
    this.#upper = Math.max(this.#lower, options.upperBoundCapacity);
    this.#freshMs = options.eventFreshDurationMs;
    this.#capacity = this.#lower;
    this.#rvs = new Array<number>(this.#capacity);
    this.#times = new Array<number>(this.#capacity);
    this.#listRevision = listRevision;
  }

  /** The current capacity. */
  get capacity(): number {
    return this.#capacity;
  }

  /** How many events the window holds. */
  get size(): number {
    return this.#end - this.#start;
  }

  /** Records an event written at `now` (ms), resizing first as updateCache does. */
  add(rv: number, now: number): void {
    this.#resize(now);
    if (this.#full()) {
      this.#start++;
      this.#removedSinceList = true;
    }
    const i = this.#end % this.#capacity;
    this.#rvs[i] = rv;
    this.#times[i] = now;
    this.#end++;
  }

  /**
   * The oldest resourceVersion a watch may start from: the list revision while no event was dropped,
   * otherwise the revision just before the oldest event kept (upstream's `oldest - 1`).
   */
  oldestWatchable(): number {
    if (!this.#removedSinceList) return this.#listRevision;
    return this.#rvs[this.#start % this.#capacity]! - 1;
  }

  #full(): boolean {
    return this.#end === this.#start + this.#capacity;
  }

  #resize(now: number): void {
    if (!this.#full()) return;
    if (now - this.#times[this.#start % this.#capacity]! < this.#freshMs) {
      const capacity = Math.min(this.#capacity * 2, this.#upper);
      if (capacity > this.#capacity) this.#resizeTo(capacity);
      return;
    }
    const quarterBack = (this.#end - Math.floor(this.#capacity / 4)) % this.#capacity;
    if (now - this.#times[quarterBack]! > this.#freshMs) {
      const capacity = Math.max(Math.floor(this.#capacity / 2), this.#lower);
      if (capacity < this.#capacity) this.#resizeTo(capacity);
    }
  }

  #resizeTo(capacity: number): void {
    const rvs = new Array<number>(capacity);
    const times = new Array<number>(capacity);
    // Shrinking keeps the newest events.
    if (capacity < this.#capacity) this.#start = this.#end - capacity;
    for (let i = this.#start; i < this.#end; i++) {
      rvs[i % capacity] = this.#rvs[i % this.#capacity]!;
      times[i % capacity] = this.#times[i % this.#capacity]!;
    }
    this.#rvs = rvs;
    this.#times = times;
    this.#capacity = capacity;
  }
}

/**
 * The watch cache windows of every resource. Windows start lazily at the revision the caches started at
 * ({@link WatchCache.begin}), or at the revision a custom resource began to be served ({@link WatchCache.startResource}).
 */
export class WatchCache {
  readonly #options: Required<WatchCacheOptions>;
  readonly #now: () => number;
  readonly #windows = new Map<string, EventWindow>();
  #startRevision: number | undefined;

  /** @param now the time of writes (the server's clock). */
  constructor(options: WatchCacheOptions, now: () => number) {
    this.#options = {
      lowerBoundCapacity: options.lowerBoundCapacity ?? defaultLowerBoundCapacity,
      upperBoundCapacity: options.upperBoundCapacity ?? defaultUpperBoundCapacity,
      eventFreshDurationMs: options.eventFreshDurationMs ?? defaultEventFreshDurationMs,
    };
    this.#now = now;
  }

  /** Starts the caches at `revision` (the server's, once its bootstrap objects are written); writes before are not recorded. */
  begin(revision: number): void {
    this.#startRevision ??= revision;
  }

  /**
   * Starts every cache again at `revision`, as a restarted kube-apiserver lists afresh: a watch from an older
   * resourceVersion then gets 410 and its client relists.
   */
  restart(revision: number): void {
    this.#windows.clear();
    this.#startRevision = revision;
  }

  /** Starts the window of one resource at `revision` unless it has one (a custom resource being served). */
  startResource(store: string, revision: number): void {
    if (this.#startRevision === undefined || this.#windows.has(store)) return;
    this.#windows.set(store, new EventWindow(revision, this.#options));
  }

  /** Forgets a resource's window (its CRD is no longer served); the next one starts afresh. */
  stopResource(store: string): void {
    this.#windows.delete(store);
  }

  #window(store: string): EventWindow | undefined {
    if (this.#startRevision === undefined) return undefined;
    let w = this.#windows.get(store);
    if (w === undefined) {
      w = new EventWindow(this.#startRevision, this.#options);
      this.#windows.set(store, w);
    }
    return w;
  }

  /** Records a write of `store` at revision `rv`. */
  record(store: string, rv: number): void {
    this.#window(store)?.add(rv, this.#now());
  }

  /**
   * The oldest resourceVersion a watch of `store` may start from, when `rv` is older than that (the
   * caller answers 410 `too old resource version: rv (oldest)`); undefined when `rv` is in the window.
   */
  tooOld(store: string, rv: number): number | undefined {
    const oldest = this.#window(store)?.oldestWatchable();
    return oldest !== undefined && rv < oldest ? oldest : undefined;
  }

  /** The current capacity of a resource's window (for tests and metrics). */
  capacity(store: string): number | undefined {
    return this.#windows.get(store)?.capacity;
  }
}

/**
 * Waits until `storage` reaches revision `rv`, as waitUntilFreshAndBlock waits for the cache to catch up:
 * true at once when it already has, false after {@link watchCacheBlockTimeoutMs} without it (the caller then
 * answers 504 Too large resource version).
 */
export function waitUntilFresh(storage: Pick<Storage, 'revision' | 'subscribeAll'>, clock: Pick<Clock, 'afterFunc'>, rv: number): Promise<boolean> {
  if (storage.revision >= rv) return Promise.resolve(true);
  return new Promise((resolve) => {
    const unsubscribe = storage.subscribeAll(() => {
      if (storage.revision < rv) return;
      timer.stop();
      unsubscribe();
      resolve(true);
    });
    const timer = clock.afterFunc(watchCacheBlockTimeoutMs, () => {
      unsubscribe();
      resolve(false);
    });
  });
}
