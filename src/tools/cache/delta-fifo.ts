/**
 * DeltaFIFO (client-go tools/cache delta_fifo.go): a queue of per-key delta lists. Every change to
 * an object is appended to that object's Deltas; the key sits in the queue once, at the position of
 * its first unconsumed change, so a consumer sees everything that happened to an object since it
 * last processed it, including deletions.
 *
 * SharedIndexInformer runs on {@link RealFIFO}, as upstream does now; DeltaFIFO remains for
 * controllers that want per-key merging, and keeps the API the informer design was written
 * against (including `addIfNotPresent` and {@link RequeueError}, which upstream has since removed).
 */
import {
  DeltaType,
  EnqueueError,
  FIFOClosedError,
  RequeueError,
  Waiters,
  newest,
  type Deltas,
  type ObjectDelta,
  type ObjectDeltaType,
  type PopProcessFunc,
  type Queue,
  type TransformFunc,
} from './delta.ts';
import { DeletedFinalStateUnknown, KeyError, metaNamespaceKeyFunc } from './key-functions.ts';
import { RingBuffer } from './ring-buffer.ts';
import { defaultLookupErrorHandler, lookupKnown, type KeyListerGetter, type LookupErrorHandler } from './store.ts';

/** Options of a {@link DeltaFIFO} (cache.DeltaFIFOOptions). All optional. */
export interface DeltaFIFOOptions<T> {
  /** Computes keys; default {@link metaNamespaceKeyFunc}. Tombstones are keyed by their own key. */
  keyFunction?: (obj: T) => string;
  /**
   * The keys the consumer already knows (usually its indexer). Used by replace to emit deletions
   * for keys missing from a relist and by resync. Without it, deletions on replace are detected only
   * against what is still queued.
   */
  knownObjects?: KeyListerGetter<T>;
  /** Emit Replaced (instead of Sync, the backwards-compatible default) for replace items. */
  emitDeltaTypeReplaced?: boolean;
  /** Applied to every object entering the queue, except tombstones and resyncs. */
  transformer?: TransformFunc<T>;
  /**
   * Told when a knownObjects lookup throws (default: logged). The queue goes on as upstream: a
   * deletion is queued, a relist places a tombstone without object, a resync skips the key.
   */
  onLookupError?: LookupErrorHandler;
}

/**
 * Collapses the two newest deltas when they are both deletions, keeping the one with more
 * information: the real object rather than a tombstone (cache.dedupDeltas). Nothing else collapses.
 */
export function dedupDeltas<T>(deltas: Deltas<T>): Deltas<T> {
  const n = deltas.length;
  if (n < 2) return deltas;
  const a = deltas[n - 1]!;
  const b = deltas[n - 2]!;
  if (a.type !== DeltaType.Deleted || b.type !== DeltaType.Deleted) return deltas;
  deltas[n - 2] = b.object instanceof DeletedFinalStateUnknown ? a : b;
  deltas.length = n - 1;
  return deltas;
}

/**
 * A queue of {@link Deltas} keyed by object (cache.DeltaFIFO). Invariant: a key is in `queue` if
 * and only if it is in `items`, and `items` never holds an empty Deltas.
 *
 * @example
 * const fifo = new DeltaFIFO<Pod>({ knownObjects: indexer, emitDeltaTypeReplaced: true });
 * const deltas = await fifo.pop((d, isInInitialList) => handle(d, isInInitialList));
 */
export class DeltaFIFO<T> implements Queue<T, Deltas<T>> {
  readonly #items = new Map<string, Deltas<T>>();
  readonly #queue = new RingBuffer<string>();
  readonly #keyFunc: (obj: T) => string;
  readonly #knownObjects: KeyListerGetter<T> | undefined;
  readonly #emitReplaced: boolean;
  readonly #transformer: TransformFunc<T> | undefined;
  readonly #onLookupError: LookupErrorHandler;
  readonly #waiters = new Waiters();
  /** True once the first replace happened, or an add/update/delete came first. */
  #populated = false;
  /** Keys of the first replace not yet popped. */
  #initialPopulationCount = 0;
  #closed = false;

  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.#keyFunc = options.keyFunction ?? metaNamespaceKeyFunc;
    this.#knownObjects = options.knownObjects;
    this.#emitReplaced = options.emitDeltaTypeReplaced ?? false;
    this.#transformer = options.transformer;
    this.#onLookupError = options.onLookupError ?? defaultLookupErrorHandler;
  }

  /** The key of an object, a tombstone or a Deltas (its newest object) (DeltaFIFO.KeyOf). */
  keyOf(obj: T | DeletedFinalStateUnknown<T> | Deltas<T>): string {
    let o: unknown = obj;
    if (Array.isArray(o)) {
      const n = newest(o as Deltas<T>);
      if (n === undefined) throw new KeyError(obj, 'zero length Deltas object');
      o = n.object;
    }
    if (o instanceof DeletedFinalStateUnknown) return o.key;
    try {
      return this.#keyFunc(o as T);
    } catch (err) {
      if (err instanceof KeyError) throw err;
      throw new KeyError(obj, err instanceof Error ? err.message : String(err), { cause: err });
    }
  }

  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  /** Queues an Added delta for `obj`. */
  add(obj: T): void {
    this.#populated = true;
    this.#queueAction(DeltaType.Added, obj);
  }

  /** Queues an Updated delta for `obj`. */
  update(obj: T): void {
    this.#populated = true;
    this.#queueAction(DeltaType.Updated, obj);
  }

  /**
   * Queues a deletion, unless the object is unknown both to the queue and to knownObjects: then the
   * relist already reported it and a second report is suppressed.
   */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const id = this.keyOf(obj);
    this.#populated = true;
    const inItems = this.#items.has(id);
    if (this.#knownObjects === undefined) {
      if (!inItems) return;
    } else if (!inItems) {
      // A lookup that fails cannot tell the object is gone: the deletion is queued (dedup drops a repeat).
      let known: boolean;
      try {
        known = this.#knownObjects.getByKey(id) !== undefined;
      } catch {
        known = true;
      }
      if (!known) return;
    }
    this.#queueAction(DeltaType.Deleted, obj);
  }

  /**
   * Puts popped deltas back unless the key was queued again meanwhile, in which case the newer
   * deltas win (DeltaFIFO.AddIfNotPresent).
   */
  addIfNotPresent(deltas: Deltas<T>): void {
    const id = this.keyOf(deltas);
    this.#populated = true;
    this.#addIfNotPresent(id, deltas);
  }

  /** The newest object of every queued key (DeltaFIFO.List). */
  list(): (T | DeletedFinalStateUnknown<T>)[] {
    const out: (T | DeletedFinalStateUnknown<T>)[] = [];
    for (const deltas of this.#items.values()) out.push(newest(deltas)!.object);
    return out;
  }

  /** The keys of every queued object. */
  listKeys(): string[] {
    return Array.from(this.#items.keys());
  }

  /** A copy of the Deltas queued for `obj`'s key. */
  get(obj: T | DeletedFinalStateUnknown<T>): Deltas<T> | undefined {
    return this.getByKey(this.keyOf(obj));
  }

  /** A copy of the Deltas queued for `key`. */
  getByKey(key: string): Deltas<T> | undefined {
    const d = this.#items.get(key);
    return d === undefined ? undefined : d.slice();
  }

  /** True once {@link DeltaFIFO.close} was called. */
  isClosed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
    this.#waiters.broadcast();
  }

  /**
   * Waits for a key, removes it with its Deltas and calls `process` with them. If `process` throws
   * {@link RequeueError}, the deltas are put back (if the key was not queued again) and the pop
   * rejects with the error's cause, or resolves when there is none; any other error rejects the pop
   * and the deltas are dropped, as upstream.
   */
  async pop(process: PopProcessFunc<Deltas<T>>): Promise<Deltas<T>> {
    while (this.#queue.length === 0) {
      if (this.#closed) throw new FIFOClosedError();
      await this.#waiters.wait();
    }
    const isInInitialList = !this.hasSynced();
    const id = this.#queue.shift()!;
    const item = this.#items.get(id)!;
    this.#items.delete(id);
    try {
      process(item, isInInitialList);
    } catch (err) {
      if (err instanceof RequeueError) {
        this.#addIfNotPresent(id, item);
        // The cause surfaces unchanged, whatever its type.
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        if (err.cause !== undefined) throw err.cause;
        return item;
      }
      throw err;
    } finally {
      if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
    }
    return item;
  }

  /**
   * Queues a Sync (or Replaced) delta for every object of a relist, then a Deleted
   * DeletedFinalStateUnknown for every key that is queued or known but missing from the list. A
   * transformer that throws fails it with an {@link EnqueueError} (`couldn't enqueue object: ...`),
   * as upstream wraps it; add and update let the transformer's error through as it is.
   */
  replace(list: readonly T[], _resourceVersion: string): void {
    const keys = new Set<string>();
    const action = this.#emitReplaced ? DeltaType.Replaced : DeltaType.Sync;
    for (const item of list) {
      const key = this.keyOf(item);
      keys.add(key);
      try {
        this.#queueAction(action, item, DeltaType.Replaced);
      } catch (err) {
        // Only the transformer throws here; upstream wraps its error, unlike Add/Update's.
        throw new EnqueueError(err);
      }
    }
    let queuedDeletions = 0;
    for (const [k, oldItem] of this.#items) {
      if (keys.has(k)) continue;
      // Missing from the relist: the watch missed its deletion while disconnected.
      let deletedObj = newest(oldItem)?.object;
      if (deletedObj instanceof DeletedFinalStateUnknown) deletedObj = deletedObj.obj;
      queuedDeletions++;
      this.#queueAction(DeltaType.Deleted, new DeletedFinalStateUnknown<T>(k, deletedObj));
    }
    if (this.#knownObjects !== undefined) {
      for (const k of this.#knownObjects.listKeys()) {
        if (keys.has(k) || this.#items.has(k)) continue;
        queuedDeletions++;
        this.#queueAction(DeltaType.Deleted, new DeletedFinalStateUnknown<T>(k, lookupKnown(this.#knownObjects, k, this.#onLookupError)));
      }
    }
    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = keys.size + queuedDeletions;
    }
  }

  /** Queues a Sync delta for every known object that has nothing queued (DeltaFIFO.Resync). */
  resync(): void {
    if (this.#knownObjects === undefined) return;
    for (const key of this.#knownObjects.listKeys()) {
      const obj = lookupKnown(this.#knownObjects, key, this.#onLookupError);
      if (obj === undefined) continue;
      // A queued change is newer than what the consumer knows: a Sync would carry stale state.
      const id = this.keyOf(obj);
      if (this.#items.has(id)) continue;
      this.#queueAction(DeltaType.Sync, obj);
    }
  }

  #addIfNotPresent(id: string, deltas: Deltas<T>): void {
    if (this.#items.has(id)) return;
    this.#queue.push(id);
    this.#items.set(id, deltas);
    this.#waiters.broadcast();
  }

  #queueAction(type: ObjectDeltaType, obj: T | DeletedFinalStateUnknown<T>, internalType: ObjectDeltaType = type): void {
    const id = this.keyOf(obj);
    // Tombstones and resynced objects came from the cache and were transformed already.
    if (this.#transformer !== undefined && !(obj instanceof DeletedFinalStateUnknown) && internalType !== DeltaType.Sync) {
      obj = this.#transformer(obj);
    }
    const delta: ObjectDelta<T> = { type, object: obj };
    const existing = this.#items.get(id);
    if (existing === undefined) {
      this.#items.set(id, [delta]);
      this.#queue.push(id);
    } else {
      existing.push(delta);
      dedupDeltas(existing);
    }
    this.#waiters.broadcast();
  }
}
