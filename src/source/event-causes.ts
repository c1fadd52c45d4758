/**
 * Delivering one event to an event handler with its cause recorded and, when tracing is on, traced
 * (kubeloom; see src/reconcile/causes.ts). The event's span starts when the reflector read the event
 * from the watch (src/tracing/watch-receipt.ts) and has a child for the time in the informer's queues
 * (`informer`) and one for the handler, which has one
 * child per request it enqueued; each request's cause keeps that enqueue span's context, and the
 * reconcile that request leads to links to it, one link per coalesced event.
 *
 * With no cause tracker for the queue (a queue not owned by a managed controller) and no tracer
 * provider, the handler gets the plain queue and nothing is allocated.
 */
import { trace, type Span } from '@opentelemetry/api';
import type { KubeObject } from '../apimachinery/object.ts';
import type { RequestQueue } from '../handler/handler.ts';
import { causeTrackerFor, type CauseTypeValue, type ReconcileCause } from '../reconcile/causes.ts';
import { requestKey } from '../reconcile/reconcile.ts';
import { activeContext, tracer, tracingEnabled } from '../tracing/tracing.ts';
import { contextForEvent } from '../tracing/write-context.ts';
import { watchReceivedAt } from '../tracing/watch-receipt.ts';

/** What a source knows of an event, for its cause. */
export interface EventInfo {
  /** create, update, delete or generic. */
  readonly type: CauseTypeValue;
  /** The Kind the source watches. */
  readonly kind: string;
  /** The event's object (the new one for updates). */
  readonly object: KubeObject;
  /** For creates: whether it came from the initial list. */
  readonly initialList?: boolean;
  /** Names of the predicates the event passed. */
  readonly predicates: readonly string[];
  /** Name of the event handler. */
  readonly handler: string;
}

/**
 * Runs `run` (the handler call) with a queue that records a cause for each request added to `base`
 * and, when tracing is on, spans for the event, the handler and each enqueue.
 */
export function deliverEvent(queue: object, base: RequestQueue, info: () => EventInfo, run: (q: RequestQueue) => void): void {
  const tracker = causeTrackerFor(queue);
  const traced = tracingEnabled();
  if (tracker === undefined && !traced) {
    run(base);
    return;
  }
  const i = info();
  const meta = i.object.metadata;
  const namespace = meta?.namespace ?? '';
  const name = meta?.name ?? '';
  const resourceVersion = meta?.resourceVersion ?? '';
  let eventSpan: Span | undefined;
  let handlerSpan: Span | undefined;
  if (traced) {
    const t = tracer();
    // The event's span starts when the reflector read it from the watch, when it noted that.
    const received = watchReceivedAt(i.object);
    eventSpan = t.startSpan(
      `${i.kind} ${i.type}`,
      {
        ...(received === undefined ? {} : { startTime: received }),
        attributes: {
          'k8s.event.type': i.type,
          'k8s.object.kind': i.kind,
          'k8s.namespace.name': namespace,
          'k8s.object.name': name,
          'k8s.object.resource_version': resourceVersion,
          'kubeloom.predicates': [...i.predicates],
          'kubeloom.initial_list': i.initialList === true,
        },
      },
      contextForEvent(resourceVersion),
    );
    const eventContext = trace.setSpan(activeContext(), eventSpan);
    // From the watch to the handler: the DeltaFIFO and the shared informer's processor queue.
    if (received !== undefined) t.startSpan('informer', { startTime: received }, eventContext).end();
    handlerSpan = t.startSpan(`handler ${i.handler}`, {}, eventContext);
  }
  const q: RequestQueue = {
    add(request, opts) {
      const key = requestKey(request);
      let spanContext;
      if (handlerSpan !== undefined) {
        const s = tracer().startSpan(`enqueue ${key}`, { attributes: { 'kubeloom.request': key } }, trace.setSpan(activeContext(), handlerSpan));
        spanContext = s.spanContext();
        s.end();
      }
      if (tracker !== undefined) {
        // One object shape for every cause (no spreads): this runs for every event of every controller.
        const cause: { -readonly [K in keyof ReconcileCause]: ReconcileCause[K] } = { type: i.type, kind: i.kind, namespace, name, resourceVersion, predicates: i.predicates, handler: i.handler, time: tracker.now() };
        if (i.initialList === true) cause.initialList = true;
        if (spanContext !== undefined) cause.spanContext = spanContext;
        tracker.record(key, cause);
      }
      base.add(request, opts);
    },
  };
  try {
    run(q);
  } finally {
    handlerSpan?.end();
    eventSpan?.end();
  }
}
