/**
 * Deltas and the queue contract shared by {@link DeltaFIFO} and {@link RealFIFO} (client-go
 * tools/cache delta_fifo.go, fifo.go and the_real_fifo.go).
 */
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { DeletedFinalStateUnknown } from './key-functions.ts';

/** The kinds of change a delta records (cache.DeltaType). */
export const DeltaType = {
  /** The object was added. */
  Added: 'Added',
  /** The object was updated. */
  Updated: 'Updated',
  /** The object was deleted. */
  Deleted: 'Deleted',
  /** The object was in a relist (only when the queue emits Replaced; Sync otherwise). */
  Replaced: 'Replaced',
  /** A periodic resync of a known object (or a relist item on queues not emitting Replaced). */
  Sync: 'Sync',
  /** A whole relist as one atomic item (RealFIFO); its object is a {@link ReplacedAllInfo}. */
  ReplacedAll: 'ReplacedAll',
  /** A whole resync as one item (RealFIFO); its object is a {@link SyncAllInfo}. */
  SyncAll: 'SyncAll',
  /**
   * A watch bookmark's resourceVersion, queued in order with the events (RealFIFO with atomic events,
   * client-go 1.36's Bookmark delta); its object is a {@link BookmarkInfo}.
   */
  Bookmark: 'Bookmark',
} as const;

/** One of the {@link DeltaType} values. */
export type DeltaTypeValue = (typeof DeltaType)[keyof typeof DeltaType];

/** The delta types that carry one object. */
export type ObjectDeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/** A change to one object. A Deleted delta may carry a tombstone instead of the object. */
export interface ObjectDelta<T> {
  /** What happened. */
  readonly type: ObjectDeltaType;
  /** The object, or a tombstone for a delete noticed by a relist. */
  readonly object: T | DeletedFinalStateUnknown<T>;
}

/** The payload of a ReplacedAll delta: the relisted objects (already transformed) and the list's resourceVersion. */
export interface ReplacedAllInfo<T> {
  /** The resourceVersion of the list. */
  readonly resourceVersion: string;
  /** Every object of the list. */
  readonly objects: readonly T[];
}

/** The payload of a SyncAll delta. */
export interface SyncAllInfo {
  /** Marks a resync of every cached object. */
  readonly kind: 'SyncAll';
}

/** The payload of a Bookmark delta. */
export interface BookmarkInfo {
  /** The bookmark's resourceVersion: every change up to it has been queued before it. */
  readonly resourceVersion: string;
}

/** Any delta a queue can hand out (cache.Delta). */
export type Delta<T> =
  | ObjectDelta<T>
  | {
      /** A relist replaced the whole state (RealFIFO's atomic replace). */
      readonly type: 'ReplacedAll';
      /** The new list and its resourceVersion. */
      readonly object: ReplacedAllInfo<T>;
    }
  | {
      /** A resync of every cached object. */
      readonly type: 'SyncAll';
      /** The marker of the resync. */
      readonly object: SyncAllInfo;
    }
  | {
      /** The watch reached a resourceVersion (a bookmark). */
      readonly type: 'Bookmark';
      /** The bookmark's resourceVersion. */
      readonly object: BookmarkInfo;
    };

/** The deltas of one object, oldest first (cache.Deltas). Never empty when handed out. */
export type Deltas<T> = ObjectDelta<T>[];

/** The oldest delta, or undefined for an empty list (Deltas.Oldest). */
export function oldest<T>(deltas: readonly ObjectDelta<T>[]): ObjectDelta<T> | undefined {
  return deltas[0];
}

/** The newest delta, or undefined for an empty list (Deltas.Newest). */
export function newest<T>(deltas: readonly ObjectDelta<T>[]): ObjectDelta<T> | undefined {
  return deltas[deltas.length - 1];
}

/**
 * Transforms an object before it enters a queue (cache.TransformFunc). Called exactly once per
 * object that arrives from the server; never for tombstones or resynced cache objects.
 */
export type TransformFunc<T> = (obj: T) => T;

/** Consumes what a pop handed out; `isInInitialList` is true while the first relist is being drained. */
export type PopProcessFunc<D> = (item: D, isInInitialList: boolean) => void;

/** Thrown by pops once the queue is closed and empty (cache.ErrFIFOClosed). */
export class FIFOClosedError extends KubeloomError {
  constructor() {
    super('ERR_FIFO_CLOSED', 'DeltaFIFO: manipulating with closed queue');
  }
}

/**
 * A relist item could not be queued (DeltaFIFO.Replace's `couldn't enqueue object: <err>`): the
 * transformer threw. `cause` is what it threw.
 */
export class EnqueueError extends KubeloomError {
  constructor(cause: unknown) {
    super('ERR_CACHE_ENQUEUE', `couldn't enqueue object: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * Thrown from a {@link DeltaFIFO.pop} process function to put the popped deltas back in the queue
 * (cache.ErrRequeue). The pop then rejects with `cause` if given, or resolves normally.
 */
export class RequeueError extends KubeloomError {
  constructor(options?: { cause?: unknown }) {
    super('ERR_REQUEUE', 'requeue', options);
  }
}

/** The subset of a store a reflector writes to (cache.ReflectorStore). */
export interface ReflectorStore<T> {
  /** An object was added. */
  add(obj: T): void;
  /** An object was updated. */
  update(obj: T): void;
  /** An object was deleted. */
  delete(obj: T): void;
  /** The full list replaces what is known (after a LIST). */
  replace(list: readonly T[], resourceVersion: string): void;
  /** Re-delivers every known object (periodic resync). */
  resync(): void;
  /**
   * Told the resourceVersion of every watch bookmark, when the store wants it (the optional
   * cache.ReflectorBookmarkStore).
   */
  bookmark?(resourceVersion: string): void;
  /**
   * Optional: a replace whose objects arrive in batches, as a streamed LIST decodes them, so that
   * the store can prepare each batch (keys, transform) while the rest is on the wire. Nothing
   * changes until {@link ReplaceTransaction.commit}; a transaction never committed has no effect.
   */
  beginReplace?(): ReplaceTransaction<T>;
}

/** A replace in progress (see {@link ReflectorStore.beginReplace}). */
export interface ReplaceTransaction<T> {
  /** Adds objects in list order; throws (as `replace` would) for an object the store cannot take. */
  add(objects: readonly T[]): void;
  /** Applies the replace, exactly as `replace(allObjects, resourceVersion)` would. Once. */
  commit(resourceVersion: string): void;
}

/**
 * A producer/consumer queue fed by a reflector (cache.Queue). Pops wait until an item is available
 * and reject with {@link FIFOClosedError} once the queue is closed and empty.
 */
export interface Queue<T, D> extends ReflectorStore<T> {
  /** Waits for the next item, removes it and hands it to `process` synchronously. */
  pop(process: PopProcessFunc<D>): Promise<D>;
  /** True once the first replace's items were all popped (or an add/update/delete came first). */
  hasSynced(): boolean;
  /** Closes the queue: waiting pops reject with {@link FIFOClosedError}. */
  close(): void;
  /** True once the queue was closed. */
  isClosed(): boolean;
}

/** Resolves waiting consumers when the queue changes; a tiny condition variable. */
export class Waiters {
  #waiting: (() => void)[] = [];

  /** A promise resolved at the next {@link Waiters.broadcast}. */
  wait(): Promise<void> {
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Wakes every waiter. */
  broadcast(): void {
    if (this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w();
  }
}
