/**
 * The span of one reconcile (kubeloom; controller-runtime has none): a root span named
 * `reconcile <controller>` linked to the span of every event that led to it (several coalesced events:
 * several links), with a child span for the time the request waited in the queue, and the reconcile's
 * API calls as children (their client spans, then the server's). It is a new trace, not a child of an
 * event: one reconcile answers many events, as a message consumer answers many producers, which
 * OpenTelemetry models with links.
 */
import { SpanKind, SpanStatusCode, trace, ROOT_CONTEXT, type Link, type Span } from '@opentelemetry/api';
import { errorMessage, type ReconcileCause } from '../reconcile/causes.ts';
import { tracer, withActiveContext } from './tracing.ts';

/** A started reconcile span. */
export interface ReconcileSpan {
  /** Its trace id. */
  readonly traceId: string;
  /** Runs `fn` with the span active, so API calls made inside are its children. */
  run<R>(fn: () => R): R;
  /** Ends it with the reconcile's result. */
  end(result: string, err?: unknown): void;
}

/**
 * Starts a reconcile's span; `queuedSince` is when the request was first enqueued (the earliest cause),
 * which starts the queue-wait child span. Call only when tracing is enabled.
 */
export function startReconcileSpan(controller: string, key: string, causes: readonly ReconcileCause[], queuedSince: number | undefined, now: number): ReconcileSpan {
  const t = tracer();
  const links: Link[] = [];
  for (const c of causes) if (c.spanContext !== undefined) links.push({ context: c.spanContext, attributes: { 'k8s.event.type': c.type, 'k8s.object.kind': c.kind, 'k8s.object.name': c.name } });
  const span: Span = t.startSpan(
    `reconcile ${controller}`,
    { kind: SpanKind.CONSUMER, root: true, links, attributes: { 'kubeloom.controller': controller, 'kubeloom.request': key, 'kubeloom.causes': causes.length } },
    ROOT_CONTEXT,
  );
  const ctx = trace.setSpan(ROOT_CONTEXT, span);
  if (queuedSince !== undefined && queuedSince <= now) {
    t.startSpan('queue wait', { startTime: queuedSince, attributes: { 'kubeloom.request': key } }, ctx).end(now);
  }
  return {
    traceId: span.spanContext().traceId,
    run: (fn) => withActiveContext(ctx, fn),
    end(result, err) {
      span.setAttribute('kubeloom.result', result);
      if (err !== undefined) {
        span.recordException(err instanceof Error ? err : errorMessage(err));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
      }
      span.end();
    },
  };
}
