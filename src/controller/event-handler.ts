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
  onAdd(obj: T, isInInitialList: boolean): void;
  onUpdate(oldObj: T, newObj: T): void;
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
  add(key: string): void;
}
