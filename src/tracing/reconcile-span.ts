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
import { tracer, tracingEnabled, withActiveContext } from './tracing.ts';

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

/**
 * Runs one unit of work of a loop that is not a Manager controller — the embedded server's in-process
 * controllers (the workload controllers, the garbage collector, the namespace controller) and its
 * scheduler and kubelet stand-ins — under a span of the same shape and attribute names as the Manager's
 * reconcile span: a root span `reconcile <controller>` with `kubeloom.controller`, `kubeloom.request`
 * and `kubeloom.result` (`success`, `error`, or what `resultOf` names for a thrown value, e.g. a
 * requeue). These loops have no event causes, so the span has no links and no queue-wait child. What
 * `fn` writes through a client while it runs (its client and server spans) descends from the span.
 * With tracing off it only calls `fn`.
 */
export function traceReconcile<R>(controller: string, key: string, fn: () => R, resultOf?: (thrown: unknown) => string | undefined): R {
  if (!tracingEnabled()) return fn();
  const span = startReconcileSpan(controller, key, [], undefined, 0);
  const failed = (err: unknown): void => {
    const result = resultOf?.(err);
    if (result !== undefined) span.end(result);
    else span.end('error', err);
  };
  let out: R;
  try {
    out = span.run(fn);
  } catch (err) {
    failed(err);
    throw err;
  }
  if (out instanceof Promise) {
    return out.then(
      (v: unknown) => {
        span.end('success');
        return v;
      },
      (err: unknown) => {
        failed(err);
        throw err;
      },
    ) as R;
  }
  span.end('success');
  return out;
}
