/**
 * The embedded server's in-process loops are traced as the Manager's reconciles are (same span name
 * shape and attribute names): a workload controller's sync, the scheduler stand-in's bind and the
 * kubelet stand-in's status write each run under a root span `reconcile <controller>`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { newClientset } from '../../kubernetes/index.ts';
import { eventually } from '../../testing/eventually.ts';
import { startApiServer } from '../index.ts';

test('workload controllers, the scheduler and the kubelet stand-ins: one reconcile span per sync, bind and status write, with the Manager’s attribute names', async (t) => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  t.after(() => trace.disable());
  const server = await startApiServer({ controllers: { scheduler: true, kubelet: true, workloads: ['replicaset'], onError: () => undefined } });
  const client = newClientset({ host: server.url, qps: -1 });
  t.after(async () => {
    await client.close();
    await server.stop();
  });
  await client.appsV1().replicaSets('default').create({ metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
  const pod = await eventually(
    async () => {
      const pods = await client.coreV1().pods('default').list();
      const running = pods.items.find((p) => p.status?.phase === 'Running');
      assert.ok(running);
      return running;
    },
    { timeoutMs: 10_000 },
  );
  const podKey = `default/${pod.metadata!.name!}`;
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  const reconciles = (controller: string, request: string): ReadableSpan[] => spans().filter((s) => s.name === `reconcile ${controller}` && s.attributes['kubeloom.request'] === request);
  await eventually(() => reconciles('kubelet', podKey).length > 0 && reconciles('replicaset', 'default/web').length > 0, { timeoutMs: 5_000 });

  const sync = reconciles('replicaset', 'default/web')[0]!;
  assert.ok(sync, 'a span for the ReplicaSet sync');
  assert.equal(sync.kind, SpanKind.CONSUMER);
  assert.equal(sync.parentSpanContext, undefined);
  assert.equal(sync.attributes['kubeloom.controller'], 'replicaset');
  assert.equal(sync.attributes['kubeloom.result'], 'success');
  // The pod create the sync made is its child (the controllers reach the server through a REST client).
  const syncs = reconciles('replicaset', 'default/web').map((s) => s.spanContext().spanId);
  assert.ok(spans().some((s) => s.parentSpanContext !== undefined && syncs.includes(s.parentSpanContext.spanId) && s.attributes['http.request.method'] === 'POST'));

  const bind = reconciles('scheduler', podKey);
  assert.equal(bind.length, 1, 'one bind');
  assert.deepEqual([bind[0]!.attributes['kubeloom.controller'], bind[0]!.attributes['kubeloom.result'], bind[0]!.kind], ['scheduler', 'success', SpanKind.CONSUMER]);
  const status = reconciles('kubelet', podKey);
  assert.ok(status.length >= 1);
  assert.ok(status.every((s) => s.attributes['kubeloom.controller'] === 'kubelet' && s.attributes['kubeloom.result'] === 'success' && s.parentSpanContext === undefined));
});
