/**
 * The contracts of the events.k8s.io/v1 recorder (client-go tools/events interfaces.go).
 */
import type { Event } from '../../api/events/v1.ts';
import type { RequestOptions } from '../../apimachinery/options.ts';
import type { EventSubject, EventTypeValue } from './util.ts';

/**
 * Records events about objects. Calls never block and never throw: events are queued and written in the
 * background, and problems (an unknown type, a full queue) are logged.
 */
export interface EventRecorder {
  /**
   * Records that `action` was taken on `regarding` (optionally involving `related`) for `reason`.
   *
   * @param eventType 'Normal' or 'Warning'; anything else is logged and dropped.
   * @param reason Why the action was taken, UpperCamelCase and machine-readable, e.g. 'FailedCreate'.
   * @param action What was done (or failed), UpperCamelCase, e.g. 'Create'.
   * @param note A human-readable description (at most 1 kB is accepted by the API server).
   */
  eventf(regarding: EventSubject, related: EventSubject | undefined, eventType: EventTypeValue, reason: string, action: string, note: string): void;
}

/**
 * Where events.k8s.io/v1 Events are written (events.EventSink). Each call rejects with a StatusError
 * when the server refuses it; any other rejection is taken as a transient failure and retried.
 */
export interface EventSink {
  /** Creates `event` in its namespace. */
  create(event: Event, options?: RequestOptions): Promise<Event>;
  /** Replaces `event`. */
  update(event: Event, options?: RequestOptions): Promise<Event>;
  /** Applies a strategic merge patch to the event named `event.metadata.name` in its namespace. */
  patch(event: Event, patch: Record<string, unknown>, options?: RequestOptions): Promise<Event>;
}
