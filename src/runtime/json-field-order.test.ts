import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFieldOrder, hasGoFieldOrder } from './json-field-order.ts';

test('goFieldOrder writes kind first, then Go struct order at every level, embedded structs in place, maps sorted', () => {
  const pod = goFieldOrder({
    spec: {
      containers: [{ readinessProbe: { periodSeconds: 5, httpGet: { port: 80, path: '/' } }, env: [{ value: '1', name: 'A' }], envFrom: [], name: 'c', resources: { requests: { memory: '1Mi', cpu: '1' } } }],
      nodeSelector: { z: '1', a: '2' },
    },
    metadata: { resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', name: 'p', labels: { b: '1', a: '2' } },
    apiVersion: 'v1',
    kind: 'Pod',
  });
  assert.equal(
    JSON.stringify(pod),
    '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","resourceVersion":"7","creationTimestamp":"2024-01-01T00:00:00Z","labels":{"a":"2","b":"1"}},' +
      '"spec":{"containers":[{"name":"c","envFrom":[],"env":[{"name":"A","value":"1"}],"resources":{"requests":{"cpu":"1","memory":"1Mi"}},' +
      // Probe embeds ProbeHandler: httpGet comes before Probe's own fields.
      '"readinessProbe":{"httpGet":{"path":"/","port":80},"periodSeconds":5}}],"nodeSelector":{"a":"2","z":"1"}}}',
  );
});

test('goFieldOrder orders metav1.Status (details before code) and keeps unknown kinds in place but TypeMeta and ObjectMeta', () => {
  assert.equal(
    JSON.stringify(goFieldOrder({ kind: 'Status', apiVersion: 'v1', code: 404, details: { kind: 'configmaps', name: 'x' }, reason: 'NotFound', message: 'm', status: 'Failure', metadata: {} })),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404}',
  );
  assert.equal(hasGoFieldOrder('example.com/v1', 'Widget'), false);
  assert.equal(
    JSON.stringify(goFieldOrder({ spec: { z: 1, a: 2 }, metadata: { resourceVersion: '1', name: 'w' }, apiVersion: 'example.com/v1', kind: 'Widget' })),
    '{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w","resourceVersion":"1"},"spec":{"z":1,"a":2}}',
  );
});

test('goFieldOrder leaves self-marshalling values (RawExtension, FieldsV1, quantities) as they are and orders CRD schemas', () => {
  const rev = goFieldOrder({ revision: 1, data: { z: 1, a: 2 }, metadata: { managedFields: [{ fieldsV1: { 'f:z': {}, 'f:a': {} }, manager: 'm' }] }, apiVersion: 'apps/v1', kind: 'ControllerRevision' });
  assert.equal(JSON.stringify(rev), '{"kind":"ControllerRevision","apiVersion":"apps/v1","metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:z":{},"f:a":{}}}]},"data":{"z":1,"a":2},"revision":1}');
  const crd = goFieldOrder({
    kind: 'CustomResourceDefinition',
    apiVersion: 'apiextensions.k8s.io/v1',
    spec: { versions: [{ schema: { openAPIV3Schema: { properties: { spec: { type: 'object', description: 'd' } }, type: 'object' } }, name: 'v1' }] },
  });
  assert.equal(JSON.stringify(crd), '{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"description":"d","type":"object"}}}}}]}}');
});

test('goFieldOrder with a twin keeps the twin\'s very values as they are, and orders everything else', () => {
  const stored = goFieldOrder({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { b: '1', a: '2' } }, spec: { nodeSelector: { z: '1', a: '2' }, containers: [{ name: 'c', image: 'i' }] } });
  const next = { ...stored, metadata: { resourceVersion: '8', ...(stored.metadata as Record<string, unknown>) }, status: { podIP: '10.0.0.1', phase: 'Running' } };
  const ordered = goFieldOrder(next, stored);
  assert.equal(JSON.stringify(ordered), JSON.stringify(goFieldOrder(structuredClone(next))));
  assert.equal(ordered.spec, stored.spec);
  assert.equal((ordered.metadata as { labels: unknown }).labels, (stored.metadata as { labels: unknown }).labels);
  assert.deepEqual(Object.keys(ordered.status as object), ['phase', 'podIP']);
});
