/**
 * The events.k8s.io/v1 event recorder (client-go tools/events event_recorder.go).
 */
import type { Event } from '../../api/events/v1.ts';
import type { ObjectReference } from '../../api/core/v1.ts';
import type { Clock } from '../../util/clock/clock.ts';
import type { EventRecorder } from './interfaces.ts';
import type { Logger } from './logger.ts';
import { formatMicroTime } from './meta-time.ts';
import { generateEventName, getReference, validateEventType, type EventSubject, type EventTypeValue, type UniqueNanos } from './util.ts';

/** What a recorder hands its events to (the broadcaster). */
export interface EventEmitter {
  /** Queues `event`; returns false when it had to be dropped. */
  emit(event: Event): boolean;
}

/** Options of a {@link RecorderImpl}. */
export interface RecorderOptions {
  /** The controller reporting, e.g. 'kubeloom.dev/podset-controller'. */
  reportingController: string;
  /** This instance of it, e.g. `${reportingController}-${hostname}`. */
  reportingInstance: string;
  emitter: EventEmitter;
  clock: Clock;
  nanos: UniqueNanos;
  logger: Logger;
}

/** An {@link EventRecorder} building events.k8s.io/v1 Events and passing them to a broadcaster. */
export class RecorderImpl implements EventRecorder {
  readonly #options: RecorderOptions;

  constructor(options: RecorderOptions) {
    this.#options = options;
  }

  eventf(regarding: EventSubject, related: EventSubject | undefined, eventType: EventTypeValue, reason: string, action: string, note: string): void {
    const { logger } = this.#options;
    let refRegarding: ObjectReference;
    try {
      refRegarding = getReference(regarding);
    } catch (err) {
      logger.error('could not construct reference, will not report event', { eventType, reason, note, err });
      return;
    }
    let refRelated: ObjectReference | undefined;
    if (related !== undefined) {
      try {
        refRelated = getReference(related);
      } catch (err) {
        // As upstream: an unusable related object is left out, the event is still recorded.
        logger.debug('could not construct reference to related object', { err });
      }
    }
    if (!validateEventType(eventType)) {
      logger.error('unsupported event type', { eventType });
      return;
    }
    this.#options.emitter.emit(this.#makeEvent(refRegarding, refRelated, eventType, reason, action, note));
  }

  #makeEvent(regarding: ObjectReference, related: ObjectReference | undefined, eventType: string, reason: string, action: string, note: string): Event {
    const now = this.#options.clock.now();
    const event: Event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {
        name: generateEventName(regarding.name ?? '', this.#options.nanos.next(now)),
        namespace: regarding.namespace || 'default',
      },
      eventTime: formatMicroTime(now),
      reportingController: this.#options.reportingController,
      reportingInstance: this.#options.reportingInstance,
      action,
      reason,
      regarding,
      note,
      type: eventType,
    };
    if (related !== undefined) event.related = related;
    return event;
  }
}
