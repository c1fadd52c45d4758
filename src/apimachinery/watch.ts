/**
 * Watch events, mirroring k8s.io/apimachinery/pkg/watch. A watch is an async iterable of events;
 * breaking out of the loop (or aborting the signal that started it) releases the connection.
 */
import type { Status } from '../api/meta/v1.ts';

/** Watch event types (watch.EventType). */
export const EventType = {
  /** An object was created. */
  Added: 'ADDED',
  /** An object was changed. */
  Modified: 'MODIFIED',
  /** An object was deleted. */
  Deleted: 'DELETED',
  /** No change: the object carries only the current resourceVersion. */
  Bookmark: 'BOOKMARK',
  /** The watch failed; the object is a Status. */
  Error: 'ERROR',
} as const;

/** One of the {@link EventType} values. */
export type EventTypeValue = (typeof EventType)[keyof typeof EventType];

/**
 * One event of a watch stream. For ADDED/MODIFIED/DELETED `object` is the resource; for BOOKMARK it
 * carries only kind, apiVersion and metadata.resourceVersion (and annotations such as
 * `k8s.io/initial-events-end`); for ERROR it is a `Status`.
 */
export type WatchEvent<T> =
  | {
      /** What happened to the object. */
      type: 'ADDED' | 'MODIFIED' | 'DELETED';
      /** The object as it is now (as it was last, for DELETED). */
      object: T;
    }
  | {
      /** A progress marker: nothing changed. */
      type: 'BOOKMARK';
      /** Carries only `metadata.resourceVersion` (and annotations). */
      object: T;
    }
  | {
      /** The watch failed (e.g. 410 Expired): re-list, then watch again. */
      type: 'ERROR';
      /** The server's Status explaining the failure. */
      object: Status;
    };

/** A stream of watch events. Iterate it once; `break` or an abort ends it and frees its resources. */
export type Watch<T> = AsyncIterable<WatchEvent<T>>;

/**
 * A watch iterator that can also hand over every event it has already decoded at once (those of
 * one network chunk), so that a consumer handling events synchronously (the reflector) awaits once
 * per chunk rather than once per event. `next()` and `nextBatch()` may be mixed; events come out
 * once, in order.
 */
export interface WatchEventBatchIterator<T> extends AsyncIterator<WatchEvent<T>> {
  /**
   * Resolves with the next events, at least one, in order; with undefined once the stream ended.
   * Rejects as `next()` does (after every event decoded before the failure was handed over).
   */
  nextBatch(): Promise<ReadonlyArray<WatchEvent<T>> | undefined>;
}

/** True when `iterator` offers {@link WatchEventBatchIterator.nextBatch}. */
export function isWatchEventBatchIterator<T>(iterator: AsyncIterator<WatchEvent<T>>): iterator is WatchEventBatchIterator<T> {
  return typeof (iterator as Partial<WatchEventBatchIterator<T>>).nextBatch === 'function';
}

/** The annotation a server puts on the bookmark that ends the initial events of a watch-list stream. */
export const InitialEventsEndAnnotation = 'k8s.io/initial-events-end';
