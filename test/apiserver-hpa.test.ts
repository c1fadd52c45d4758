/**
 * HorizontalPodAutoscalers over HTTP: one object served as autoscaling/v1 and autoscaling/v2 with
 * conversion between them (pkg/apis/autoscaling/v1/conversion.go), each version's defaults, upstream
 * validation messages (pkg/apis/autoscaling/validation/validation.go), the status subresource and the
 * `kubectl get hpa` Table (pkg/printers/internalversion/printers.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';

const v1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const v2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' };
const cpu = (percent: number): Json => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: percent } } });
type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

test('v2 metrics that v1 cannot express travel in the metrics annotation, so a v1 read-modify-write keeps them', async () => {
  const s = await startApiServer();
  try {
    const others: Json[] = [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
      { type: 'Pods', pods: { metric: { name: 'packets-per-second', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '1k' } } },
      { type: 'Object', object: { describedObject: { kind: 'Ingress', name: 'main-route', apiVersion: 'networking.k8s.io/v1' }, target: { type: 'Value', value: '10k' }, metric: { name: 'requests-per-second' } } },
      { type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'worker_tasks' } } }, target: { type: 'AverageValue', averageValue: '30' } } },
    ];
    const spec = { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10, metrics: [cpu(60), ...others] };
    assert.equal((await call(s, 'POST', v2, { body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'multi' }, spec } })).status, 201);
    const asV1 = (await call(s, 'GET', `${v1}/multi`)).body as Body;
    assert.deepEqual(asV1.spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 });
    // The v1 MetricSpecs' encoding, byte for byte as kube-apiserver v1.24 answered for the same object.
    assert.deepEqual(asV1.metadata.annotations, {
      'autoscaling.alpha.kubernetes.io/metrics': "[{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"500Mi\"}},{\"type\":\"Pods\",\"pods\":{\"metricName\":\"packets-per-second\",\"targetAverageValue\":\"1k\",\"selector\":{\"matchLabels\":{\"a\":\"b\"}}}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Ingress\",\"name\":\"main-route\",\"apiVersion\":\"networking.k8s.io/v1\"},\"metricName\":\"requests-per-second\",\"targetValue\":\"10k\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue_messages_ready\",\"metricSelector\":{\"matchLabels\":{\"queue\":\"worker_tasks\"}},\"targetAverageValue\":\"30\"}}]",
    });
    asV1.spec.maxReplicas = 12;
    assert.equal((await call(s, 'PUT', `${v1}/multi`, { body: asV1 })).status, 200);
    const again = (await call(s, 'GET', `${v2}/multi`)).body as Body;
    // As upstream converts it back: the annotation's metrics first, then v1's cpu target.
    assert.deepEqual(again.spec.metrics, [...others, cpu(60)]);
    assert.equal(again.spec.maxReplicas, 12);
    assert.equal(again.metadata.annotations, undefined);
  } finally {
    await s.stop();
  }
});

test('every current metric travels in the current-metrics annotation; through v1 the annotation wins over the cpu percentage', async () => {
  const s = await startApiServer();
  try {
    assert.equal((await call(s, 'POST', v2, { body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'cur' }, spec: { scaleTargetRef: ref, maxReplicas: 10 } } })).status, 201);
    const stored = (await call(s, 'GET', `${v2}/cur`)).body as Body;
    const written = await call(s, 'PUT', `${v2}/cur/status`, { body: { ...stored, status: {"currentReplicas": 3, "desiredReplicas": 4, "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "250m", "averageUtilization": 55}}}, {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "400Mi"}}}, {"type": "Pods", "pods": {"metric": {"name": "packets-per-second", "selector": {"matchLabels": {"a": "b"}}}, "current": {"averageValue": "900"}}}, {"type": "Object", "object": {"metric": {"name": "requests-per-second"}, "current": {"value": "8k"}, "describedObject": {"kind": "Ingress", "name": "main-route", "apiVersion": "networking.k8s.io/v1"}}}, {"type": "External", "external": {"metric": {"name": "queue_messages_ready", "selector": {"matchLabels": {"queue": "worker_tasks"}}}, "current": {"averageValue": "25"}}}]} } });
    assert.equal(written.status, 200, JSON.stringify(written.body));
    // As kube-apiserver v1.24 answered for the same status (v1 MetricStatuses; Go's zero Quantity "0" where v1 has no pointer).
    const asV1 = (await call(s, 'GET', `${v1}/cur`)).body as Body;
    assert.deepEqual(asV1.status, { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 55 });
    assert.equal(asV1.metadata.annotations['autoscaling.alpha.kubernetes.io/current-metrics'], "[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"currentAverageUtilization\":55,\"currentAverageValue\":\"250m\"}},{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"currentAverageValue\":\"400Mi\"}},{\"type\":\"Pods\",\"pods\":{\"metricName\":\"packets-per-second\",\"currentAverageValue\":\"900\",\"selector\":{\"matchLabels\":{\"a\":\"b\"}}}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Ingress\",\"name\":\"main-route\",\"apiVersion\":\"networking.k8s.io/v1\"},\"metricName\":\"requests-per-second\",\"currentValue\":\"8k\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue_messages_ready\",\"metricSelector\":{\"matchLabels\":{\"queue\":\"worker_tasks\"}},\"currentValue\":\"0\",\"currentAverageValue\":\"25\"}}]");
    // A v1 status write: the annotation's metrics replace the status's (the new cpu percentage is not taken).
    asV1.status = { ...asV1.status, currentReplicas: 5, currentCPUUtilizationPercentage: 60 };
    assert.equal((await call(s, 'PUT', `${v1}/cur/status`, { body: asV1 })).status, 200);
    assert.deepEqual(((await call(s, 'GET', `${v2}/cur`)).body as Body).status, {"currentReplicas": 5, "desiredReplicas": 4, "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "250m", "averageUtilization": 55}}}, {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "400Mi"}}}, {"type": "Pods", "pods": {"metric": {"name": "packets-per-second", "selector": {"matchLabels": {"a": "b"}}}, "current": {"averageValue": "900"}}}, {"type": "Object", "object": {"metric": {"name": "requests-per-second"}, "current": {"value": "8k"}, "describedObject": {"kind": "Ingress", "name": "main-route", "apiVersion": "networking.k8s.io/v1"}}}, {"type": "External", "external": {"metric": {"name": "queue_messages_ready", "selector": {"matchLabels": {"queue": "worker_tasks"}}}, "current": {"value": "0", "averageValue": "25"}}}]});
  } finally {
    await s.stop();
  }
});

test('an autoscaling/v1 HPA reads back as autoscaling/v2 with its cpu target as a Resource metric, and back', async () => {
  const s = await startApiServer();
  try {
    const created = await call(s, 'POST', v1, { body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'api' }, spec: { scaleTargetRef: ref, maxReplicas: 4, targetCPUUtilizationPercentage: 80 } } });
    assert.equal(created.status, 201);
    const body = created.body as Body;
    assert.equal(body.apiVersion, 'autoscaling/v1');
    assert.deepEqual(body.spec, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 80 });
    assert.deepEqual(body.status, { currentReplicas: 0, desiredReplicas: 0 });

    const asV2 = (await call(s, 'GET', `${v2}/api`)).body as Body;
    assert.equal(asV2.apiVersion, 'autoscaling/v2');
    assert.deepEqual(asV2.spec, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 4, metrics: [cpu(80)] });
    assert.deepEqual(asV2.status, { desiredReplicas: 0 });

    // A v2 change (a behavior, a new target) shows in v1 as the cpu target and the behavior annotation.
    const patched = await call(s, 'PATCH', `${v2}/api`, { contentType: 'application/merge-patch+json', body: { spec: { metrics: [cpu(50)], behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } } });
    assert.equal(patched.status, 200);
    const behavior = (patched.body as Body).spec.behavior;
    assert.deepEqual(behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    const back = (await call(s, 'GET', `${v1}/api`)).body as Body;
    assert.equal(back.spec.targetCPUUtilizationPercentage, 50);
    // The internal struct's encoding, with Go field names (as kube-apiserver v1.24 answered the same patch).
    assert.deepEqual(back.metadata.annotations, {
      'autoscaling.alpha.kubernetes.io/behavior':
        '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}]}}',
    });

    // Writing through v1 keeps the behavior (it travels in the annotation) and changes the cpu target.
    back.spec.targetCPUUtilizationPercentage = 70;
    assert.equal((await call(s, 'PUT', `${v1}/api`, { body: back })).status, 200);
    const again = (await call(s, 'GET', `${v2}/api`)).body as Body;
    assert.deepEqual(again.spec.metrics, [cpu(70)]);
    assert.deepEqual(again.spec.behavior, behavior);
    assert.equal(again.metadata.annotations, undefined);

    // The status subresource: v1's current cpu utilization is v2's current Resource metric.
    const st = await call(s, 'PUT', `${v1}/api/status`, { body: { ...back, metadata: { name: 'api' }, status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 42 } } });
    assert.equal(st.status, 200, JSON.stringify(st.body));
    const status = ((await call(s, 'GET', `${v2}/api`)).body as Body).status;
    assert.deepEqual(status, { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42 } } }] });

    const list = (await call(s, 'GET', v1)).body as Body;
    assert.equal(list.kind, 'HorizontalPodAutoscalerList');
    assert.equal(list.items[0].spec.targetCPUUtilizationPercentage, 70);
    assert.equal(list.items[0].status.currentCPUUtilizationPercentage, 42);
  } finally {
    await s.stop();
  }
});

test('defaults: minReplicas 1 in both versions, an 80% cpu metric when none is given', async () => {
  const s = await startApiServer();
  try {
    const viaV1 = await call(s, 'POST', v1, { body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' }, spec: { scaleTargetRef: ref, maxReplicas: 2 } } });
    assert.deepEqual((viaV1.body as Body).spec, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 2, targetCPUUtilizationPercentage: 80 });
    const viaV2 = await call(s, 'POST', v2, { body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'b' }, spec: { scaleTargetRef: ref, maxReplicas: 2 } } });
    assert.deepEqual((viaV2.body as Body).spec, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 2, metrics: [cpu(80)] });
  } finally {
    await s.stop();
  }
});

test('validation errors are worded as kube-apiserver v1.24 words them, on the internal (v2) field paths (recorded from the real server)', async () => {
  const s = await startApiServer();
  try {
    const bad = await call(s, 'POST', v1, { body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x' }, spec: { scaleTargetRef: { kind: '', name: 'a/b' }, minReplicas: 3, maxReplicas: 2, targetCPUUtilizationPercentage: 0 } } });
    assert.equal(bad.status, 422);
    const b = bad.body as Body;
    assert.equal(
      b.message,
      'HorizontalPodAutoscaler.autoscaling "x" is invalid: [spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`, spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Invalid value: "a/b": may not contain \'/\', spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0]',
    );
    const zero = await call(s, 'POST', v2, { body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'y' }, spec: { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 0, metrics: [{ type: 'Pods', resource: { name: 'cpu' } }] } } });
    assert.equal(zero.status, 422);
    assert.deepEqual(
      ((zero.body as Body).details.causes as Body[]).map((c) => `${c.field}: ${c.message}`),
      [
        'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
        'spec.maxReplicas: Invalid value: 0: must be greater than 0',
        'spec.metrics[0].resource.target.type: Required value: must specify a metric target type',
        'spec.metrics[0].resource.target.type: Invalid value: "": must be either Utilization, Value, or AverageValue',
        'spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization',
        'spec.metrics[0].pods: Required value: must populate information for the given metric source',
        'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
      ],
    );
  } finally {
    await s.stop();
  }
});

test('the Table of kubectl get hpa: reference, targets, min and max pods, replicas', async () => {
  const s = await startApiServer();
  try {
    await call(s, 'POST', v1, { body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'api' }, spec: { scaleTargetRef: ref, maxReplicas: 4, targetCPUUtilizationPercentage: 80 } } });
    const table = (await call(s, 'GET', v2, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).body as Body;
    assert.deepEqual(
      (table.columnDefinitions as Body[]).map((c) => c.name),
      ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'],
    );
    assert.deepEqual((table.rows[0].cells as unknown[]).slice(0, 6), ['api', 'Deployment/api', '<unknown>/80%', '1', 4, 0]);
  } finally {
    await s.stop();
  }
});

test('discovery serves horizontalpodautoscalers in autoscaling/v2 (preferred) and v1 with one storage hash', async () => {
  const s = await startApiServer();
  try {
    const group = (await call(s, 'GET', '/apis/autoscaling')).body as Body;
    assert.deepEqual(group.preferredVersion, { groupVersion: 'autoscaling/v2', version: 'v2' });
    for (const version of ['v1', 'v2']) {
      const list = (await call(s, 'GET', `/apis/autoscaling/${version}`)).body as Body;
      const hpa = (list.resources as Body[]).find((r) => r.name === 'horizontalpodautoscalers')!;
      assert.deepEqual([hpa.kind, hpa.shortNames, hpa.categories, hpa.storageVersionHash], ['HorizontalPodAutoscaler', ['hpa'], ['all'], 'qwQve8ut294=']);
      assert.ok((list.resources as Body[]).some((r) => r.name === 'horizontalpodautoscalers/status'));
    }
  } finally {
    await s.stop();
  }
});
