/**
 * The informer-facing shapes the controller helpers rely on, stated structurally so that any informer
 * with client-go's surface (tools/cache SharedIndexInformer) plugs in without an adapter.
 */
import type { DeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';

/**
 * Receives an informer's notifications (cache.ResourceEventHandler). `onDelete` may receive a
 * {@link DeletedFinalStateUnknown} tombstone when the delete was only noticed by a relist.
 */
export interface ResourceEventHandler<T> {
  /** An object was added; `isInInitialList` is true for objects of the informer's initial list. */
  onAdd(obj: T, isInInitialList: boolean): void;
  /** An object changed (also called on resyncs, with `oldObj === newObj`). */
  onUpdate(oldObj: T, newObj: T): void;
  /** An object was deleted; a tombstone when only a relist noticed the delete. */
  onDelete(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** Anything that can say whether its cache holds the initial state (an informer, a handler registration). */
export interface HasSynced {
  /** True once the cache holds the initial state. */
  hasSynced(): boolean;
  /** Whether it was started; informers and their registrations have it (used to name never-started informers). */
  hasStarted?(): boolean;
  /** What it caches, e.g. "pods" (informers and their registrations have it). */
  readonly objectDescription?: string;
}

/** Where enqueue helpers put keys: a {@link Controller}, a work queue, or any `add(key)`. */
export interface KeySink {
  /** Enqueues `key`. */
  add(key: string): void;
}
