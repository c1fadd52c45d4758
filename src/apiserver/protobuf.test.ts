import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from './protobuf.ts';

// Minimal protobuf writer for the test vectors.
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}
function bytesField(field: number, payload: number[] | string): number[] {
  const b = typeof payload === 'string' ? [...Buffer.from(payload)] : payload;
  return [...varint(field * 8 + 2), ...varint(b.length), ...b];
}
function varintField(field: number, n: number): number[] {
  return [...varint(field * 8), ...varint(n)];
}
function envelope(apiVersion: string, kind: string, raw: number[]): Uint8Array {
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...bytesField(1, [...bytesField(1, apiVersion), ...bytesField(2, kind)]), ...bytesField(2, raw)]);
}

// The decoder gives the fields present on the wire, by their JSON names (an empty string or an empty Time
// message included); the request decoder then passes the result through the kind's Go struct, which drops them.
test('decodes a ConfigMap as kubectl create configmap sends it', () => {
  const meta = [...bytesField(1, 'cfg'), ...bytesField(2, ''), ...bytesField(3, 'team'), ...bytesField(11, [...bytesField(1, 'app'), ...bytesField(2, 'web')]), ...bytesField(8, [])];
  const raw = [...bytesField(1, meta), ...bytesField(2, [...bytesField(1, 'a'), ...bytesField(2, 'b')]), ...bytesField(2, [...bytesField(1, 'c'), ...bytesField(2, 'd')]), ...bytesField(3, [...bytesField(1, 'bin'), ...bytesField(2, [0, 255])])];
  assert.deepEqual(decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', raw)), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', generateName: '', namespace: 'team', labels: { app: 'web' }, creationTimestamp: null },
    data: { a: 'b', c: 'd' },
    binaryData: { bin: 'AP8=' },
  });
});

test('decodes Namespace, Secret and ServiceAccount; timestamps and zero values', () => {
  const ns = decodeKubernetesProtobuf(envelope('v1', 'Namespace', [...bytesField(1, [...bytesField(1, 'demo'), ...bytesField(8, varintField(1, 1_700_000_000))]), ...bytesField(2, bytesField(1, 'kubernetes'))]));
  assert.deepEqual(ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo', creationTimestamp: '2023-11-14T22:13:20Z' }, spec: { finalizers: ['kubernetes'] } });
  const secret = decodeKubernetesProtobuf(envelope('v1', 'Secret', [...bytesField(1, bytesField(1, 's')), ...bytesField(2, [...bytesField(1, 'p'), ...bytesField(2, 'pw')]), ...bytesField(3, ''), ...varintField(5, 1)]));
  assert.deepEqual(secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { p: 'cHc=' }, type: '', immutable: true });
  const sa = decodeKubernetesProtobuf(envelope('v1', 'ServiceAccount', [...bytesField(1, bytesField(1, 'robot')), ...bytesField(3, bytesField(1, 'pull'))]));
  assert.deepEqual(sa, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' }, imagePullSecrets: [{ name: 'pull' }] });
});

test('decodes every kind of the scheme from the same field table: a Deployment as kubectl create deployment sends it', () => {
  const container = [...bytesField(1, 'nginx'), ...bytesField(2, 'nginx')];
  const podSpec = bytesField(2, container);
  const template = [...bytesField(1, bytesField(11, [...bytesField(1, 'app'), ...bytesField(2, 'web')])), ...bytesField(2, podSpec)];
  const selector = bytesField(1, [...bytesField(1, 'app'), ...bytesField(2, 'web')]);
  const spec = [...varintField(1, 3), ...bytesField(2, selector), ...bytesField(3, template)];
  const d = decodeKubernetesProtobuf(envelope('apps/v1', 'Deployment', [...bytesField(1, bytesField(1, 'web')), ...bytesField(2, spec)]));
  assert.deepEqual(d, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
  });
});

test('refuses unknown kinds and malformed bodies', () => {
  assert.throws(() => decodeKubernetesProtobuf(envelope('example.com/v1', 'Widget', [])), ProtobufDecodeError);
  assert.throws(() => decodeKubernetesProtobuf(Uint8Array.from([1, 2, 3, 4])), ProtobufDecodeError);
  assert.throws(() => decodeKubernetesProtobuf(Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x7f])), ProtobufDecodeError);
  assert.throws(() => decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', [...bytesField(1, [0x0a, 0x02, 0xff, 0xfe])])), ProtobufDecodeError);
});
