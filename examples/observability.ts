/**
 * Seeing inside a running controller: OpenTelemetry spans written to a file (no collector needed), why
 * each reconcile ran, and /debug/controllers. kubeloom depends only on @opentelemetry/api; the SDK here
 * (@opentelemetry/sdk-trace-base) is the program's choice. Runs against the cluster of KUBECONFIG and
 * writes only a ConfigMap named `observability-example`, deleted at the end.
 */
// #region tracing
import { appendFileSync } from 'node:fs';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';

// One JSON line per span: enough to follow a reconcile without Jaeger (`jq` reads it).
class FileSpanExporter implements SpanExporter {
  readonly path: string;
  constructor(path: string) {
    this.path = path;
  }
  export(spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    for (const s of spans) {
      const { traceId, spanId } = s.spanContext();
      appendFileSync(this.path, `${JSON.stringify({ traceId, spanId, parent: s.parentSpanContext?.spanId, name: s.name, links: s.links.map((l) => l.context.spanId), attributes: s.attributes })}\n`);
    }
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new FileSpanExporter('spans.jsonl'))] }));
// #endregion

// #region manager
import { loadKubeConfig, restConfigFrom } from 'kubeloom';
import { controllerManagedBy } from 'kubeloom/builder';
import { kinds } from 'kubeloom/client';
import { newManager, type ManagerIntrospection } from 'kubeloom/manager';

const mgr = newManager(await restConfigFrom(await loadKubeConfig()), {
  healthProbeBindAddress: '127.0.0.1:0',
  introspection: true, // /debug/controllers on the probe (and metrics) server; off by default
  dashboardBindAddress: '127.0.0.1:0', // dev mode: the web page (see docs/observability.md)
});
controllerManagedBy(mgr)
  .for(kinds.coreV1.configMaps)
  .named('observed')
  .complete(async (req, ctx) => {
    // Why it ran: every event coalesced into this reconcile, oldest first.
    for (const cause of ctx.causes ?? []) ctx.logger.info('cause', { type: cause.type, kind: cause.kind, rv: cause.resourceVersion, handler: cause.handler });
    if (req.name === 'observability-example') await ctx.client.patch(kinds.coreV1.configMaps, req, 'application/merge-patch+json', { metadata: { annotations: { observed: 'yes' } } });
  });
// #endregion

const stop = new AbortController();
const running = mgr.start(stop.signal);
await mgr.elected();
const client = mgr.getClient();
await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'observability-example' } });
// #region introspection
const doc = (await (await fetch(`http://${mgr.addresses().healthProbe}/debug/controllers`)).json()) as ManagerIntrospection;
console.log(doc.controllers.map((c) => `${c.name}: ${c.reconciles} reconciles, queue ${c.queue.depth}, busy ${c.workersBusy}/${c.workers}`));
console.log(`dashboard: http://${mgr.addresses().dashboard}/`);
// #endregion
while (mgr.introspect().controllers[0]!.reconciles < 2) await new Promise((resolve) => setTimeout(resolve, 50));
await client.delete(kinds.coreV1.configMaps, { namespace: 'default', name: 'observability-example' });
stop.abort();
await running;
