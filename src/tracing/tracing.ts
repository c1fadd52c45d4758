/**
 * OpenTelemetry tracing for kubeloom (kubeloom; client-go has no tracing of its own, kube-apiserver's
 * is the model for the server side: k8s.io/component-base/tracing and the apiserver's WithTracing
 * filter). kubeloom depends only on `@opentelemetry/api`: spans go to whatever tracer provider the
 * program registered (`trace.setGlobalTracerProvider`, or an SDK's `register()`), and nowhere when none
 * is. With no provider registered nothing is allocated: every hook asks {@link tracingEnabled} first,
 * one comparison with the API's no-op provider.
 *
 * The active span is carried by the OpenTelemetry context manager the program registered and, besides,
 * by a kubeloom AsyncLocalStorage, so the API calls a reconcile makes are its children even in a program
 * that registered a tracer provider without a context manager.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, ProxyTracerProvider, trace, TraceFlags, type Context, type SpanContext, type Tracer } from '@opentelemetry/api';
import { kubeloomVersion } from '../version.ts';

/** The instrumentation scope name of kubeloom's spans. */
export const tracerName = 'kubeloom';

// A ProxyTracerProvider without a delegate hands out the API's one no-op provider: what the global
// provider delegates to until a program registers one.
const noopProvider = new ProxyTracerProvider().getDelegate();

let cachedDelegate: unknown;
let cachedTracer: Tracer | undefined;

/** Whether a tracer provider is registered: the one question every tracing hook asks first. */
export function tracingEnabled(): boolean {
  const p = trace.getTracerProvider();
  const d = p instanceof ProxyTracerProvider ? p.getDelegate() : p;
  return d !== noopProvider;
}

/** kubeloom's tracer from the registered provider (looked up again when the provider changes). */
export function tracer(): Tracer {
  const p = trace.getTracerProvider();
  const d = p instanceof ProxyTracerProvider ? p.getDelegate() : p;
  if (cachedTracer === undefined || cachedDelegate !== d) {
    cachedDelegate = d;
    cachedTracer = trace.getTracer(tracerName, kubeloomVersion);
  }
  return cachedTracer;
}

const store = new AsyncLocalStorage<Context>();

/** The context spans started now should descend from: kubeloom's own, else the registered manager's. */
export function activeContext(): Context {
  return store.getStore() ?? context.active();
}

/** Runs `fn` with `ctx` active, for kubeloom's hooks and for the program's context manager alike. */
export function withActiveContext<R>(ctx: Context, fn: () => R): R {
  return context.with(ctx, () => store.run(ctx, fn));
}

const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The W3C `traceparent` header value of a span context (version 00). */
export function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1) === 1 ? '01' : '00'}`;
}

/**
 * The remote span context of a W3C `traceparent` header value; undefined when it is missing or
 * malformed (version ff, all-zero ids), as the W3C Trace Context spec asks receivers to ignore it.
 */
export function parseTraceparent(value: string | string[] | undefined): SpanContext | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const m = traceparentPattern.exec(v.trim().toLowerCase());
  if (m === null || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined;
  if (/^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16) & TraceFlags.SAMPLED, isRemote: true };
}
