/**
 * The events a source hands to predicates and event handlers (controller-runtime pkg/event/event.go).
 * Objects are the cache's own, deeply frozen: never mutate them.
 */
import type { KubeObject } from '../apimachinery/object.ts';

/** An object appeared (event.CreateEvent); `isInInitialList` is true for the informer's initial list. */
export interface CreateEvent<T extends KubeObject = KubeObject> {
  /** The new object. */
  readonly object: T;
  /** True for objects of the initial list (and of a relist), which go to the queue at low priority. */
  readonly isInInitialList: boolean;
}

/** An object changed, or a resync delivered it again (event.UpdateEvent). */
export interface UpdateEvent<T extends KubeObject = KubeObject> {
  /** The object before the change. */
  readonly objectOld: T;
  /** The object after the change. */
  readonly objectNew: T;
}

/** An object was deleted (event.DeleteEvent). */
export interface DeleteEvent<T extends KubeObject = KubeObject> {
  /** The last known state of the object. */
  readonly object: T;
  /** True when a relist noticed the deletion and the final state is unknown (a tombstone). */
  readonly deleteStateUnknown: boolean;
}

/** An event from outside the cluster, e.g. a channel source (event.GenericEvent). */
export interface GenericEvent<T extends KubeObject = KubeObject> {
  /** The object the event is about. */
  readonly object: T;
}
