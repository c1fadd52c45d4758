/**
 * Events (client-go tools/events and tools/record).
 *
 * The top level is the events.k8s.io/v1 recorder: {@link EventBroadcaster} and {@link EventRecorder},
 * with series aggregation. The core/v1 recorder with its event correlator is the `record` namespace:
 * `import { record } from 'kubeloom/tools/events'; new record.EventBroadcaster()`.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export {
  DEFAULT_RETRY_SLEEP_MS,
  EventBroadcaster,
  MAX_QUEUED_EVENTS,
  MAX_TRIES_PER_EVENT,
  SERIES_FINISH_MS,
  SERIES_REFRESH_MS,
  SinkAlreadyStartedError,
} from './event-broadcaster.ts';
export type { EventBroadcasterOptions, NewRecorderOptions } from './event-broadcaster.ts';
export type { EventRecorder, EventSink } from './interfaces.ts';
export { EventType, InvalidReferenceError, UniqueNanos, generateEventName, getReference, validateEventType } from './util.ts';
export type { EventSubject, EventTypeValue } from './util.ts';
export { formatMicroTime, formatTime, parseTime } from './meta-time.ts';
export { defaultLogger, noopLogger } from './logger.ts';
export type { LogFields, Logger } from './logger.ts';
export { FakeEventSink } from './fake-event-sink.ts';
export type { EventSinkCall, EventSinkFault } from './fake-event-sink.ts';
export { EventNamespaceError, newCoreEventSink, newEventSink } from './event-sink.ts';
export type { EventsClient } from './event-sink.ts';
export * as record from './record/index.ts';
