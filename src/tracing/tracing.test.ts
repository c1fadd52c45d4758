import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { PatchType } from '../apimachinery/options.ts';
import { startApiServer } from '../apiserver/index.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { kinds } from '../client/kinds.ts';
import { newManager } from '../manager/manager.ts';
import { eventually } from '../testing/eventually.ts';
import { formatTraceparent, parseTraceparent, tracingEnabled } from './tracing.ts';

test('traceparent: formatted and parsed as W3C Trace Context says; malformed headers are ignored', () => {
  const sc = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
  assert.equal(formatTraceparent(sc), '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  assert.deepEqual(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), { ...sc, isRemote: true });
  assert.deepEqual(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-future'), { ...sc, traceFlags: 0, isRemote: true });
  for (const bad of [undefined, '', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', 'garbage']) {
    assert.equal(parseTraceparent(bad), undefined, String(bad));
  }
});

test('One trace per reconcile: linked to each coalesced event, with its queue wait, its API calls (client and server spans) and the events its own edits caused', async (t) => {
  assert.equal(tracingEnabled(), false);
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  t.after(() => trace.disable());
  assert.equal(tracingEnabled(), true);

  const server = await startApiServer();
  t.after(() => server.stop());
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: { debug() {}, info() {}, error() {} } });
  const client = mgr.getClient();
  await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'traced' }, data: { n: '0' } });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const runs: string[] = [];
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps)
    .named('traced')
    .withOptions({ needLeaderElection: false })
    .complete(async (req, ctx) => {
      if (req.name !== 'traced') return;
      runs.push(ctx.causes?.map((c) => c.type).join(',') ?? '');
      if (runs.length === 1) await gate;
      // The second reconcile edits the object: an API call inside the reconcile, and an event caused by it.
      if (runs.length === 2) await client.patch(kinds.coreV1.configMaps, { namespace: 'default', name: 'traced' }, PatchType.Merge, { metadata: { annotations: { reconciled: 'yes' } } });
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await eventually(() => runs.length === 1, { timeoutMs: 5_000 });
  await client.patch(kinds.coreV1.configMaps, { namespace: 'default', name: 'traced' }, PatchType.Merge, { data: { n: '1' } });
  await client.patch(kinds.coreV1.configMaps, { namespace: 'default', name: 'traced' }, PatchType.Merge, { data: { n: '2' } });
  await eventually(() => mgr.introspect().controllers[0]!.queue.pending.find((p) => p.key === 'default/traced')?.causes === 2, { timeoutMs: 5_000 });
  release();
  await eventually(() => runs.length === 3, { timeoutMs: 5_000 });
  assert.deepEqual(runs, ['create', 'update,update', 'update']);

  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const byId = (id: string | undefined): ReadableSpan | undefined => spans().find((s) => s.spanContext().spanId === id);
  const reconciles = (): ReadableSpan[] => spans().filter((s) => s.name === 'reconcile traced' && s.attributes['kubeloom.request'] === 'default/traced');
  await eventually(() => reconciles().length === 3, { timeoutMs: 5_000 });
  const [, second, third] = reconciles();
  assert.equal(second!.kind, SpanKind.CONSUMER);
  assert.equal(second!.parentSpanContext, undefined);
  // Two coalesced updates: two links, each to the enqueue span of an event span 'ConfigMap update'.
  assert.equal(second!.links.length, 2);
  for (const link of second!.links) {
    const enqueue = byId(link.context.spanId)!;
    assert.equal(enqueue.name, 'enqueue default/traced');
    const handler = byId(enqueue.parentSpanContext?.spanId)!;
    assert.equal(handler.name, 'handler EnqueueRequestForObject');
    const event = byId(handler.parentSpanContext?.spanId)!;
    assert.equal(event.name, 'ConfigMap update');
    assert.equal(event.attributes['k8s.object.name'], 'traced');
    // The event's span starts when the reflector read it: its informer child spans the queues up to the handler.
    const informer = spans().filter((s) => s.name === 'informer' && s.parentSpanContext?.spanId === event.spanContext().spanId);
    assert.equal(informer.length, 1);
    assert.deepEqual(informer[0]!.startTime, event.startTime);
  }
  const traceId = second!.spanContext().traceId;
  const inTrace = spans().filter((s) => s.spanContext().traceId === traceId);
  const childOf = (parent: ReadableSpan, name: (n: string) => boolean): ReadableSpan[] => inTrace.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId && name(s.name));
  assert.equal(childOf(second!, (n) => n === 'queue wait').length, 1);
  // The PATCH: a client span under the reconcile, a server span under the client span.
  const patch = childOf(second!, (n) => n === 'PATCH');
  assert.equal(patch.length, 1);
  assert.equal(patch[0]!.kind, SpanKind.CLIENT);
  assert.equal(patch[0]!.attributes['http.response.status_code'], 200);
  const serverSpans = childOf(patch[0]!, () => true);
  assert.equal(serverSpans.length, 1);
  assert.equal(serverSpans[0]!.kind, SpanKind.SERVER);
  assert.equal(serverSpans[0]!.attributes['url.path'], '/api/v1/namespaces/default/configmaps/traced');
  // The event the PATCH caused is in the same trace, under the reconcile; the third reconcile links to it.
  const caused = childOf(second!, (n) => n === 'ConfigMap update');
  assert.equal(caused.length, 1);
  const linkedEnqueue = byId(third!.links[0]!.context.spanId)!;
  assert.equal(linkedEnqueue.spanContext().traceId, traceId);
  // The reconcile's record carries its trace id (the dashboard shows it).
  const record = mgr.introspectionSources().runnables().flatMap((r) => ('recentReconciles' in r ? (r as { recentReconciles(): Array<{ key: string; traceId?: string }> }).recentReconciles() : [])).filter((r) => r.key === 'default/traced');
  assert.equal(record[1]!.traceId, traceId);
});
