/**
 * Event handlers (client-go tools/cache controller.go): what an informer notifies, adapters from
 * plain functions, and the filtering decorator.
 */
import type { DeletedFinalStateUnknown } from './key-functions.ts';

/**
 * Receives an informer's notifications (cache.ResourceEventHandler). Every method is optional.
 * Objects are the cache's own, deeply frozen: never mutate them (copy first, e.g. structuredClone).
 * A method may return a promise: the next notification for this handler waits for it.
 *
 * - `onAdd`: an object appeared; `isInInitialList` is true for objects of the initial list (and for
 *   the synthetic adds a handler receives when registered after the informer started).
 * - `onUpdate`: an object changed, or a resync/relist delivered it again (then old and new may be
 *   the same object).
 * - `onDelete`: an object is gone; after a relist noticed a missed deletion, it is a
 *   {@link DeletedFinalStateUnknown} tombstone holding the last known state.
 */
export interface ResourceEventHandler<T> {
  /** An object was added; `isInInitialList` is true for objects of the initial list. */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /** An object changed (or a resync re-delivered it, with `oldObj === newObj`). */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /** An object was deleted; a tombstone when only a relist noticed the delete. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/** Functions for {@link ResourceEventHandlerFuncs}; any may be omitted. */
export interface ResourceEventHandlerFuncsOptions<T> {
  /** Called for adds. */
  addFunc?: (obj: T) => void | Promise<void>;
  /** Called for updates. */
  updateFunc?: (oldObj: T, newObj: T) => void | Promise<void>;
  /** Called for deletes (possibly with a tombstone). */
  deleteFunc?: (obj: T | DeletedFinalStateUnknown<T>) => void | Promise<void>;
}

/** A handler from plain functions, ignoring `isInInitialList` (cache.ResourceEventHandlerFuncs). */
export class ResourceEventHandlerFuncs<T> implements ResourceEventHandler<T> {
  readonly #f: ResourceEventHandlerFuncsOptions<T>;
  constructor(funcs: ResourceEventHandlerFuncsOptions<T>) {
    this.#f = funcs;
  }
  /** Calls `addFunc`. */
  onAdd(obj: T): void | Promise<void> {
    return this.#f.addFunc?.(obj);
  }
  /** Calls `updateFunc`. */
  onUpdate(oldObj: T, newObj: T): void | Promise<void> {
    return this.#f.updateFunc?.(oldObj, newObj);
  }
  /** Calls `deleteFunc`. */
  onDelete(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void> {
    return this.#f.deleteFunc?.(obj);
  }
}

/** Options of a {@link FilteringResourceEventHandler}. */
export interface FilteringResourceEventHandlerOptions<T> {
  /** Must not mutate the object. Receives tombstones on delete. */
  filterFunc: (obj: T | DeletedFinalStateUnknown<T>) => boolean;
  /** Receives the notifications that pass the filter. */
  handler: ResourceEventHandler<T>;
}

/**
 * Passes on only the notifications for objects accepted by a filter
 * (cache.FilteringResourceEventHandler). An update that makes an object enter the filter becomes
 * an add (with isInInitialList false), one that makes it leave becomes a delete of the old object.
 */
export class FilteringResourceEventHandler<T> implements ResourceEventHandler<T> {
  readonly #filter: (obj: T | DeletedFinalStateUnknown<T>) => boolean;
  readonly #handler: ResourceEventHandler<T>;
  constructor(options: FilteringResourceEventHandlerOptions<T>) {
    this.#filter = options.filterFunc;
    this.#handler = options.handler;
  }
  /** Passes the add on if the filter accepts the object. */
  onAdd(obj: T, isInInitialList: boolean): void | Promise<void> {
    if (!this.#filter(obj)) return;
    return this.#handler.onAdd?.(obj, isInInitialList);
  }
  /** Passes the update on, or turns it into an add or a delete when the object enters or leaves the filter. */
  onUpdate(oldObj: T, newObj: T): void | Promise<void> {
    const newer = this.#filter(newObj);
    const older = this.#filter(oldObj);
    if (newer && older) return this.#handler.onUpdate?.(oldObj, newObj);
    if (newer) return this.#handler.onAdd?.(newObj, false);
    if (older) return this.#handler.onDelete?.(oldObj);
  }
  /** Passes the delete on if the filter accepts the object. */
  onDelete(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void> {
    if (!this.#filter(obj)) return;
    return this.#handler.onDelete?.(obj);
  }
}
