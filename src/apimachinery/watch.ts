/**
 * Watch events, mirroring k8s.io/apimachinery/pkg/watch. A watch is an async iterable of events;
 * breaking out of the loop (or aborting the signal that started it) releases the connection.
 */
import type { Status } from '../api/meta/v1.ts';

/** Watch event types (watch.EventType). */
export const EventType = {
  Added: 'ADDED',
  Modified: 'MODIFIED',
  Deleted: 'DELETED',
  Bookmark: 'BOOKMARK',
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
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };

/** A stream of watch events. Iterate it once; `break` or an abort ends it and frees its resources. */
export type Watch<T> = AsyncIterable<WatchEvent<T>>;

/** The annotation a server puts on the bookmark that ends the initial events of a watch-list stream. */
export const InitialEventsEndAnnotation = 'k8s.io/initial-events-end';
