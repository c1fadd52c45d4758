/**
 * Carrying a trace across an edit and the watch event it causes (kubeloom). Kubernetes watch events
 * carry no trace context, but every write returns the object's new resourceVersion, which the event
 * for that write carries too. The REST client notes, for each write made inside a traced operation
 * (a reconcile), the span it was made in under the resourceVersion it produced; a source that later
 * handles the event with that resourceVersion starts the event's span as a child of that span. So the
 * trace of a reconcile shows the events its own edits caused, and (through links) the reconciles those
 * events led to: one chain of edits.
 *
 * Only this process's writes are seen; the map is bounded (the oldest entries go first).
 */
import { trace, type Context, type SpanContext } from '@opentelemetry/api';
import { activeContext, tracingEnabled } from './tracing.ts';

/** How many writes are remembered. */
export const maxRememberedWrites = 4096;

const writes = new Map<string, SpanContext>();

/** Notes that a write inside the active span produced `resourceVersion` (a no-op without tracing). */
export function noteWrite(resourceVersion: string | undefined): void {
  if (resourceVersion === undefined || resourceVersion === '' || !tracingEnabled()) return;
  const sc = trace.getSpanContext(activeContext());
  if (sc === undefined || !trace.isSpanContextValid(sc)) return;
  if (writes.size >= maxRememberedWrites) writes.delete(writes.keys().next().value!);
  writes.set(resourceVersion, sc);
}

/** The context an event with `resourceVersion` should start its span in: the write's span, else the active one. */
export function contextForEvent(resourceVersion: string): Context {
  const sc = resourceVersion === '' ? undefined : writes.get(resourceVersion);
  return sc === undefined ? activeContext() : trace.setSpanContext(activeContext(), sc);
}

/** The resourceVersion of a decoded write response, if it is an object with one. */
export function writtenResourceVersion(body: unknown): string | undefined {
  const meta = (body as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  return typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : undefined;
}
