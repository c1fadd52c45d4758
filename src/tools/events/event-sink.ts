/**
 * Sinks writing events through API clients (client-go events.EventSinkImpl and record's
 * EventSinkImpl): each call goes to the client of the event's own namespace; patches are strategic
 * merge patches, as upstream sends them.
 */
import type { Event as CoreEvent } from '../../api/core/v1.ts';
import type { Event } from '../../api/events/v1.ts';
import { KubeloomError } from '../../apimachinery/errors.ts';
import { PatchType, type PatchTypeValue, type RequestOptions } from '../../apimachinery/options.ts';
import type { EventSink } from './interfaces.ts';
import type { EventSink as CoreEventSink } from './record/event.ts';

/**
 * The Event operations a sink needs from a namespaced client; the typed clientset's
 * `eventsV1().events(namespace)` and `coreV1().events(namespace)` satisfy it.
 */
export interface EventsClient<E> {
  /** Creates an Event. */
  create(event: E, options?: RequestOptions): Promise<E>;
  /** Replaces an Event. */
  update(event: E, options?: RequestOptions): Promise<E>;
  /** Patches the Event named `name`. */
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: RequestOptions): Promise<E>;
}

/** An event without a namespace cannot be written (upstream refuses it the same way, client-side). */
export class EventNamespaceError extends KubeloomError {
  constructor(verb: string) {
    super('ERR_EVENT_NAMESPACE', `can't ${verb} an event with empty namespace`);
  }
}

interface Namespaced {
  metadata?: { namespace?: string; name?: string };
}

function sinkOver<E extends Namespaced>(events: (namespace: string) => EventsClient<E>) {
  const ns = (event: E, verb: string): string => {
    const namespace = event.metadata?.namespace ?? '';
    if (namespace === '') throw new EventNamespaceError(verb);
    return namespace;
  };
  return {
    create: async (event: E, options?: RequestOptions): Promise<E> => events(ns(event, 'create')).create(event, options),
    update: async (event: E, options?: RequestOptions): Promise<E> => events(ns(event, 'update')).update(event, options),
    patch: async (event: E, patch: Record<string, unknown>, options?: RequestOptions): Promise<E> =>
      events(ns(event, 'patch')).patch(event.metadata?.name ?? '', PatchType.StrategicMerge, patch, options),
  };
}

/**
 * An events.k8s.io/v1 {@link EventSink} over a client per namespace.
 *
 * @example
 * broadcaster.startRecordingToSink(newEventSink((ns) => clientset.eventsV1().events(ns)));
 */
export function newEventSink(events: (namespace: string) => EventsClient<Event>): EventSink {
  return sinkOver(events);
}

/**
 * A core/v1 sink (for `record.EventBroadcaster`) over a client per namespace.
 *
 * @example
 * broadcaster.startRecordingToSink(newCoreEventSink((ns) => clientset.coreV1().events(ns)));
 */
export function newCoreEventSink(events: (namespace: string) => EventsClient<CoreEvent>): CoreEventSink {
  return sinkOver(events);
}
