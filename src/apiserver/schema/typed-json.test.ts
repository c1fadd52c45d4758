import { test } from 'node:test';
import assert from 'node:assert/strict';
import { structOfKind } from './scheme.ts';
import { decodeTyped, GoDecodeError } from './typed-json.ts';

test('decoding into the Go struct drops unknown fields and empty omitempty collections, and writes zero values', () => {
  const cm = decodeTyped(structOfKind('v1', 'ConfigMap')!, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: {}, finalizers: [] }, data: { k: 'v' }, bogus: 1 });
  assert.deepEqual(cm, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null }, data: { k: 'v' } });
});

test('quantities are written in canonical form; a Pod gets its non-omitempty status', () => {
  const pod = decodeTyped(structOfKind('v1', 'Pod')!, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1000m', memory: '1024Mi' } } }] },
  });
  assert.deepEqual((pod.spec as { containers: Array<{ resources: unknown }> }).containers[0]!.resources, { limits: { cpu: '1', memory: '1Gi' } });
  assert.deepEqual(pod.status, {});
});

test("a value of the wrong JSON type fails as encoding/json's UnmarshalTypeError", () => {
  assert.throws(
    () => decodeTyped(structOfKind('apps/v1', 'Deployment')!, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 'three' } }),
    (err: unknown) => err instanceof GoDecodeError && err.message === 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
  );
});

test('with the stored version as twin, the parts shared with it are kept as they are and the rest is decoded: the same JSON as a full decode', () => {
  const s = structOfKind('v1', 'Pod')!;
  const stored = decodeTyped(s, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'web' }, creationTimestamp: '2024-06-01T00:00:00Z' },
    spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1000m' } } }] },
  });
  // An in-process status write: the stored spec and labels, a new status with times and quantities to canonicalise.
  const candidate = {
    ...stored,
    metadata: { ...(stored.metadata as Record<string, unknown>) },
    status: { phase: 'Running', startTime: '2024-06-01T00:00:01.250Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-06-01T00:00:01+00:00' }] },
  };
  const shared = decodeTyped(s, candidate, stored);
  assert.equal(JSON.stringify(shared), JSON.stringify(decodeTyped(s, structuredClone(candidate))));
  assert.equal(shared.spec, stored.spec);
  assert.equal((shared.metadata as { labels: unknown }).labels, (stored.metadata as { labels: unknown }).labels);
  assert.deepEqual((shared.status as { startTime: string }).startTime, '2024-06-01T00:00:01Z');
  // A value that is not the twin's own object is decoded, even when it is equal.
  const copied = decodeTyped(s, { ...candidate, spec: structuredClone(stored.spec) }, stored);
  assert.notEqual(copied.spec, stored.spec);
  assert.deepEqual(copied.spec, stored.spec);
});
