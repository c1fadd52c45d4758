/**
 * HTTP spans at both ends of a Kubernetes API call (kubeloom; the models are client-go's
 * transport.WrapperFunc with otelhttp, which k8s.io/component-base/tracing installs when a
 * TracerProvider is configured, and kube-apiserver's WithTracing filter). The client span carries the
 * W3C `traceparent` header to the server; the server span continues the trace it names, so one trace
 * shows a reconcile, its API calls and what the server did for each.
 *
 * Attribute names follow the OpenTelemetry HTTP semantic conventions (http.request.method,
 * http.response.status_code, url.full, server.address, server.port, url.path).
 */
import { SpanKind, SpanStatusCode, trace, ROOT_CONTEXT, type Span } from '@opentelemetry/api';
import { activeContext, formatTraceparent, parseTraceparent, tracer, tracingEnabled } from './tracing.ts';

/** The end of an HTTP span: the status code, or the error that left no response. */
export interface HttpSpanEnd {
  /** Ends the span with the response's status code (5xx for a client, 5xx for a server mark an error). */
  end(statusCode: number): void;
  /** Ends the span with an error that left no response. */
  fail(err: unknown): void;
}

function ender(span: Span, errorFrom: number): HttpSpanEnd {
  let ended = false;
  return {
    end(statusCode) {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', statusCode);
      if (statusCode >= errorFrom) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    fail(err) {
      if (ended) return;
      ended = true;
      const message = err instanceof Error ? err.message : typeof err === 'string' ? err : 'request failed';
      span.recordException(err instanceof Error ? err : message);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      span.end();
    },
  };
}

/**
 * Starts the client span of one HTTP attempt and sets `traceparent` in `headers`; undefined (and
 * nothing touched) when no tracer provider is registered.
 */
export function startClientSpan(method: string, url: URL | string, headers: Record<string, string | string[]>): HttpSpanEnd | undefined {
  if (!tracingEnabled()) return undefined;
  const u = typeof url === 'string' ? new URL(url) : url;
  const span = tracer().startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': method, 'url.full': u.href, 'server.address': u.hostname, 'server.port': Number(u.port || (u.protocol === 'https:' ? 443 : 80)) },
    },
    activeContext(),
  );
  const sc = span.spanContext();
  if (trace.isSpanContextValid(sc)) headers['traceparent'] = formatTraceparent(sc);
  // Client spans mark 4xx as errors too (OpenTelemetry HTTP conventions).
  return ender(span, 400);
}

/**
 * Starts the server span of one request, continuing the trace of its `traceparent` header (a new trace
 * without one); undefined when no tracer provider is registered.
 */
export function startServerSpan(method: string, path: string, traceparent: string | string[] | undefined, name?: string): HttpSpanEnd | undefined {
  if (!tracingEnabled()) return undefined;
  const remote = parseTraceparent(traceparent);
  const parent = remote === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, remote);
  const span = tracer().startSpan(name ?? `${method} ${path}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } }, parent);
  return ender(span, 500);
}

/**
 * Records a server span for one request of a Node HTTP server, ended when the response closes: the
 * embedded API server's one-line hook. Does nothing when no tracer provider is registered.
 */
export function traceServerRequest(req: { method?: string | undefined; url?: string | undefined; headers: Record<string, string | string[] | undefined> }, res: { statusCode: number; once(event: 'close', listener: () => void): unknown }): void {
  if (!tracingEnabled()) return;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const span = startServerSpan(req.method ?? 'GET', q < 0 ? url : url.slice(0, q), req.headers['traceparent']);
  res.once('close', () => span?.end(res.statusCode));
}
