/**
 * RealFIFO (client-go tools/cache the_real_fifo.go): a queue that hands out every notification
 * from the reflector in arrival order, one delta per change, with no per-key merging. This is the
 * queue SharedIndexInformer runs on.
 *
 * With atomic events (upstream's AtomicFIFO gate, on by default here as there), a relist is queued
 * as one ReplacedAll item and a resync as one SyncAll item: the consumer swaps its whole cache at
 * once and derives the deletions itself, so it never observes a half-replaced cache; and a watch
 * bookmark is queued as a Bookmark item in order with the events (client-go 1.36's
 * RealFIFO.Bookmark), so the consumer knows which resourceVersion its cache has caught up with.
 *
 * Not kept: upstream's UnlockWhileProcessing (releasing the queue's lock while a popped batch is
 * processed, so the reflector can keep queueing). Here nothing holds a lock: the reflector queues
 * whenever the event loop runs it, already while an asynchronous batch is processed (docs/informers.md).
 */
import {
  DeltaType,
  FIFOClosedError,
  Waiters,
  type Delta,
  type ObjectDeltaType,
  type PopProcessFunc,
  type Queue,
  type ReplaceTransaction,
  type TransformFunc,
} from './delta.ts';
import { DeletedFinalStateUnknown, KeyError, metaNamespaceKeyFunc } from './key-functions.ts';
import { RingBuffer } from './ring-buffer.ts';
import { defaultLookupErrorHandler, lookupKnown, type KeyListerGetter, type LookupErrorHandler } from './store.ts';

/** Most deltas handed out by one {@link RealFIFO.popBatch} (upstream's defaultBatchSize). */
export const defaultBatchSize = 1000;

/** Options of a {@link RealFIFO} (cache.RealFIFOOptions). */
export interface RealFIFOOptions<T> {
  /** Computes keys; default {@link metaNamespaceKeyFunc}. */
  keyFunction?: (obj: T) => string;
  /**
   * Queue replace and resync as single ReplacedAll / SyncAll items (default true). When false the
   * queue expands them itself and `knownObjects` is required.
   */
  atomicEvents?: boolean;
  /** What the consumer knows; required when `atomicEvents` is false, forbidden otherwise. */
  knownObjects?: KeyListerGetter<T>;
  /** Applied once to every object arriving from the reflector (not to tombstones or resyncs). */
  transformer?: TransformFunc<T>;
  /** Most deltas per batch (default {@link defaultBatchSize}). */
  batchSize?: number;
  /**
   * Told when a knownObjects lookup throws (default: logged). As upstream, a relist then places a
   * tombstone without object and a resync skips the key.
   */
  onLookupError?: LookupErrorHandler;
}

const batchable: Readonly<Record<string, boolean>> = { Sync: true, Replaced: true, Added: true, Updated: true, Deleted: true };

/**
 * An in-order queue of deltas (cache.RealFIFO).
 *
 * @example
 * const fifo = new RealFIFO<Pod>();
 * await fifo.popBatch((deltas, isInInitialList) => { for (const d of deltas) apply(d, isInInitialList); });
 */
export class RealFIFO<T> implements Queue<T, Delta<T>[]> {
  readonly #items = new RingBuffer<Delta<T>>(64);
  readonly #keyFunc: (obj: T) => string;
  readonly #atomic: boolean;
  readonly #knownObjects: KeyListerGetter<T> | undefined;
  readonly #transformer: TransformFunc<T> | undefined;
  readonly #batchSize: number;
  readonly #onLookupError: LookupErrorHandler;
  readonly #waiters = new Waiters();
  #populated = false;
  #initialPopulationCount = 0;
  #closed = false;

  constructor(options: RealFIFOOptions<T> = {}) {
    this.#keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.#atomic = options.atomicEvents ?? true;
    this.#knownObjects = options.knownObjects;
    this.#transformer = options.transformer;
    this.#batchSize = Math.max(1, options.batchSize ?? defaultBatchSize);
    this.#onLookupError = options.onLookupError ?? defaultLookupErrorHandler;
    if (this.#atomic && this.#knownObjects !== undefined) throw new TypeError('RealFIFO: knownObjects must not be provided when atomicEvents is true');
    if (!this.#atomic && this.#knownObjects === undefined) throw new TypeError('RealFIFO: knownObjects is required when atomicEvents is false');
  }

  /** Number of queued deltas. */
  get length(): number {
    return this.#items.length;
  }

  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /** Queues an Added delta. */
  add(obj: T): void {
    this.#populated = true;
    this.#append(DeltaType.Added, obj, false);
  }

  /** Queues an Updated delta. */
  update(obj: T): void {
    this.#populated = true;
    this.#append(DeltaType.Updated, obj, false);
  }

  /** Queues a Deleted delta. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#populated = true;
    this.#append(DeltaType.Deleted, obj, false);
  }

  /** True once the FIFO was closed. */
  isClosed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
    this.#waiters.broadcast();
  }

  /** Waits for the next delta and hands it to `process` as a one-element list. */
  async pop(process: PopProcessFunc<Delta<T>[]>): Promise<Delta<T>[]> {
    while (this.#items.length === 0) {
      if (this.#closed) throw new FIFOClosedError();
      await this.#waiters.wait();
    }
    const isInInitialList = !this.hasSynced();
    const item = [this.#items.shift()!];
    try {
      process(item, isInInitialList);
    } finally {
      if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
    }
    return item;
  }

  /**
   * Waits for deltas and hands as many as can go together to `process` (RealFIFO.PopBatch): up to
   * the batch size, at most one delta per key, never across the end of the initial list, and a
   * ReplacedAll or SyncAll delta always alone. Resolves with the number of deltas popped.
   */
  async popBatch(process: PopProcessFunc<Delta<T>[]>): Promise<number> {
    while (this.#items.length === 0) {
      if (this.#closed) throw new FIFOClosedError();
      await this.#waiters.wait();
    }
    const isInInitialList = !this.hasSynced();
    const first = this.#items.at(0)!;
    let count: number;
    if (!batchable[first.type] || this.#items.length === 1) {
      count = 1;
    } else {
      const limit = Math.min(this.#batchSize, this.#items.length, this.#initialPopulationCount > 0 ? this.#initialPopulationCount : Infinity);
      const seen = new Set<string>();
      count = 0;
      while (count < limit) {
        const d = this.#items.at(count)!;
        if (!batchable[d.type]) break;
        const key = this.#keyOfObject(d.object as T | DeletedFinalStateUnknown<T>);
        if (seen.has(key)) break;
        seen.add(key);
        count++;
      }
    }
    const batch = new Array<Delta<T>>(count);
    for (let i = 0; i < count; i++) batch[i] = this.#items.shift()!;
    try {
      process(batch, isInInitialList);
    } finally {
      if (this.#initialPopulationCount > 0) this.#initialPopulationCount = Math.max(0, this.#initialPopulationCount - count);
    }
    return count;
  }

  /**
   * Queues a relist. Atomically: one ReplacedAll item holding the transformed objects. Otherwise:
   * a Deleted tombstone for every queued or known key missing from the list (queued keys first, in
   * queue order, carrying their last queued object), then a Replaced delta per object in list order.
   */
  replace(list: readonly T[], resourceVersion: string): void {
    if (this.#atomic) {
      const tx = this.beginReplace();
      tx.add(list);
      tx.commit(resourceVersion);
      return;
    }
    const deletions: DeletedFinalStateUnknown<T>[] = [];
    reconcileReplacement(this.#items, this.#knownObjects!, list, (o) => this.#keyOfObject(o), (tomb) => deletions.push(tomb), () => {}, this.#onLookupError);
    // Keys are validated before anything is queued, so a bad object leaves the queue untouched.
    for (const obj of list) this.#keyOfObject(obj);
    for (const tomb of deletions) this.#append(DeltaType.Deleted, tomb, true);
    for (const obj of list) this.#append(DeltaType.Replaced, obj, false);
    this.#afterReplace();
  }

  /**
   * A relist arriving in batches. Atomically, each batch's keys are validated and its objects
   * transformed as it arrives, and the commit queues the one ReplacedAll item; otherwise the batches
   * are collected and the commit is {@link RealFIFO.replace}. An object whose key cannot be computed
   * makes `add` throw, and the transaction can then only be dropped, as `replace` refuses such a list.
   */
  beginReplace(): ReplaceTransaction<T> {
    const objects: T[] = [];
    let done = false;
    const transform = this.#atomic ? this.#transformer : undefined;
    return {
      add: (batch) => {
        if (done) throw new TypeError('RealFIFO: replace transaction already committed');
        // As upstream, a list holding an object whose key cannot be computed is refused whole (the
        // reflector then retries the list) rather than queued and dropped later.
        if (this.#atomic) for (let i = 0; i < batch.length; i++) this.#keyOfObject(batch[i]!);
        if (transform !== undefined) for (let i = 0; i < batch.length; i++) objects.push(transform(batch[i]!));
        else for (let i = 0; i < batch.length; i++) objects.push(batch[i]!);
      },
      commit: (resourceVersion) => {
        if (done) throw new TypeError('RealFIFO: replace transaction already committed');
        done = true;
        if (!this.#atomic) {
          this.replace(objects, resourceVersion);
          return;
        }
        this.#items.push({ type: DeltaType.ReplacedAll, object: { resourceVersion, objects } });
        this.#waiters.broadcast();
        this.#afterReplace();
      },
    };
  }

  #afterReplace(): void {
    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = this.#items.length;
    }
  }

  /**
   * Queues a watch bookmark's resourceVersion as one Bookmark item, behind every change queued before
   * it (atomic events only; otherwise the bookmark is ignored, as a DeltaFIFO ignores it).
   */
  bookmark(resourceVersion: string): void {
    if (!this.#atomic) return;
    this.#items.push({ type: DeltaType.Bookmark, object: { resourceVersion } });
    this.#waiters.broadcast();
  }

  /** Queues a resync: one SyncAll item atomically, else a Sync delta per known object with nothing queued. */
  resync(): void {
    if (this.#atomic) {
      this.#items.push({ type: DeltaType.SyncAll, object: { kind: 'SyncAll' } });
      this.#waiters.broadcast();
      return;
    }
    const known = this.#knownObjects!;
    const queued = new Set<string>();
    for (const d of this.#items) queued.add(this.#keyOfObject(d.object as T | DeletedFinalStateUnknown<T>));
    for (const key of known.listKeys()) {
      // A queued change is newer than the known object: a Sync would carry stale state.
      if (queued.has(key)) continue;
      const obj = lookupKnown(known, key, this.#onLookupError);
      if (obj === undefined) continue;
      this.#append(DeltaType.Sync, obj, true);
    }
  }

  #keyOfObject(obj: T | DeletedFinalStateUnknown<T>): string {
    if (obj instanceof DeletedFinalStateUnknown) return obj.key;
    try {
      return this.#keyFunc(obj);
    } catch (err) {
      if (err instanceof KeyError) throw err;
      throw new KeyError(obj, err instanceof Error ? err.message : String(err), { cause: err });
    }
  }

  #append(type: ObjectDeltaType, obj: T | DeletedFinalStateUnknown<T>, skipTransform: boolean): void {
    // The key must be computable, or the queue could not reconcile a later relist.
    this.#keyOfObject(obj);
    if (this.#transformer !== undefined && !skipTransform && !(obj instanceof DeletedFinalStateUnknown)) obj = this.#transformer(obj);
    this.#items.push({ type, object: obj });
    this.#waiters.broadcast();
  }
}

/**
 * Compares a relist with what is queued and known (cache.reconcileReplacement). For keys missing
 * from `newItems` it calls `onDelete` with a tombstone: first the queued ones, in first-queued
 * order, carrying their last queued object (skipped when that last delta is already a deletion);
 * then the known ones with nothing queued, carrying the known object. Then it calls `onReplace` for
 * every new item in list order. ReplacedAll / SyncAll items in the queue are ignored.
 */
export function reconcileReplacement<T>(
  queued: Iterable<Delta<T>>,
  knownObjects: KeyListerGetter<T>,
  newItems: readonly T[],
  keyOf: (obj: T | DeletedFinalStateUnknown<T>) => string,
  onDelete: (tombstone: DeletedFinalStateUnknown<T>) => void,
  onReplace: (obj: T) => void,
  onLookupError: LookupErrorHandler = defaultLookupErrorHandler,
): void {
  const newKeys = new Set<string>();
  for (const obj of newItems) newKeys.add(keyOf(obj));
  const lastQueued = new Map<string, Delta<T>>();
  for (const d of queued) {
    if (d.type === DeltaType.ReplacedAll || d.type === DeltaType.SyncAll || d.type === DeltaType.Bookmark) continue;
    lastQueued.set(keyOf(d.object), d);
  }
  for (const [key, last] of lastQueued) {
    if (newKeys.has(key) || last.type === DeltaType.Deleted) continue;
    onDelete(new DeletedFinalStateUnknown<T>(key, last.object as T));
  }
  for (const key of knownObjects.listKeys()) {
    if (newKeys.has(key) || lastQueued.has(key)) continue;
    // A lookup that throws leaves a tombstone without object, as upstream.
    onDelete(new DeletedFinalStateUnknown<T>(key, lookupKnown(knownObjects, key, onLookupError)));
  }
  for (const obj of newItems) onReplace(obj);
}
