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
