import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../api/core/v1.ts';
import { ProtobufListDecoder } from '../../rest/protobuf-list-decoder.ts';
import { kindDesc } from './descriptors.ts';
import { ProtoReader, readMessage } from './decode.ts';
import { encodeProtobuf } from './encode.ts';
import { PartInterner } from './part-interner.ts';

type Obj = Record<string, unknown>;

function pod(i: number, image = 'registry.example/web:v1'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `web-${i}`, namespace: 'ns', uid: `uid-${i}`, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs-uid', controller: true }] },
    spec: {
      containers: [
        {
          name: 'web',
          image,
          env: [{ name: 'MODE', value: 'prod' }],
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          readinessProbe: { httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' }, periodSeconds: 5 },
          resources: { requests: { cpu: '100m', memory: '64Mi' } },
        },
      ],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: { phase: 'Pending', qosClass: 'Burstable' },
  };
}

function decode(pods: Pod[], shareParts: boolean, chunk = 97): Pod[] {
  const body = encodeProtobuf({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '7' }, items: pods });
  const decoder = new ProtobufListDecoder<Pod>({ shareParts });
  const out: Pod[] = [];
  for (let i = 0; i < body.length; i += chunk) decoder.write(body.subarray(i, i + chunk), out);
  decoder.end();
  return out;
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

test('a protobuf list decoded with shareParts equals the list decoded without; a repeated part is one frozen value, the items stay distinct and mutable', () => {
  const pods = Array.from({ length: 20 }, (_, i) => pod(i));
  const plain = decode(pods, false);
  const shared = decode(pods, true);
  assert.deepEqual(shared, plain);
  const [a, b] = shared as [Pod, Pod];
  assert.equal(a.spec, b.spec);
  assert.equal(a.status, b.status);
  assert.equal(a.metadata!.ownerReferences![0], b.metadata!.ownerReferences![0]);
  assert.ok(isDeepFrozen(a.spec) && isDeepFrozen(a.status));
  // The items, and the parts that differ (metadata: name, uid), are each object's own.
  assert.notEqual(a, b);
  assert.notEqual(a.metadata, b.metadata);
  assert.ok(!Object.isFrozen(a) && !Object.isFrozen(a.metadata));
  a.metadata!.labels!['extra'] = 'x';
  assert.equal(b.metadata!.labels!['extra'], undefined);
  // Without shareParts nothing is shared or frozen.
  assert.notEqual(plain[0]!.spec, plain[1]!.spec);
  assert.ok(!Object.isFrozen(plain[0]!.spec));
});

test('a message type that does not repeat stops being looked up; the parts inside it that repeat are still shared', () => {
  // The first 100 Pods have an image each: their Container and PodSpec never repeat, their probe and
  // env do. The decoder gives up on Containers and PodSpecs, so those of the last 100 Pods, identical
  // again, are no longer shared.
  const pods = Array.from({ length: 200 }, (_, i) => pod(i, i < 100 ? `registry.example/web:v${i}` : 'registry.example/web:same'));
  const shared = decode(pods, true);
  assert.deepEqual(shared, decode(pods, false));
  const first = shared[0]!;
  const last = shared[199]!;
  assert.deepEqual(shared[198]!.spec, last.spec);
  assert.notEqual(shared[198]!.spec!.containers[0], last.spec!.containers[0]);
  // Never reused, so never frozen; the probe, env and toleration inside them are.
  const [c0, cN] = [first.spec!.containers[0]!, last.spec!.containers[0]!];
  assert.ok(!Object.isFrozen(c0) && !Object.isFrozen(cN) && !Object.isFrozen(last.spec));
  assert.ok(isDeepFrozen(cN.readinessProbe));
  assert.equal(cN.readinessProbe, c0.readinessProbe);
  assert.equal(cN.env![0], c0.env![0]);
  assert.equal(last.spec!.tolerations![0], first.spec!.tolerations![0]);
});

test('PartInterner remembers at most maxBytes of distinct parts, and keeps sharing those', () => {
  const desc = kindDesc('v1', 'Pod')!;
  // Decodes one Pod's message through `interner`, as the list decoder decodes each item.
  const decodeWith = (interner: PartInterner, p: Pod): Pod => {
    const body = encodeProtobuf(p as Obj);
    const { rawStart, rawEnd } = envelopeRaw(body);
    return readMessage(new ProtoReader(body, rawStart, undefined, interner), desc, rawEnd, desc.create()) as Pod;
  };
  // Nothing fits in one byte: nothing is remembered, shared or frozen.
  const tiny = new PartInterner({ maxBytes: 1 });
  const [a, b] = [decodeWith(tiny, pod(1)), decodeWith(tiny, pod(2))];
  assert.equal(tiny.hits, 0);
  assert.notEqual(a.spec, b.spec);
  assert.deepEqual(a.spec, b.spec);
  assert.ok(!Object.isFrozen(a.spec!.tolerations![0]));
  const roomy = new PartInterner();
  const [c, d] = [decodeWith(roomy, pod(3)), decodeWith(roomy, pod(4))];
  assert.ok(roomy.hits > 0);
  assert.equal(c.spec, d.spec);
  assert.ok(isDeepFrozen(c.spec));
});

/** The raw field of a protobuf body's runtime.Unknown (after the 4-byte magic). */
function envelopeRaw(body: Buffer): { rawStart: number; rawEnd: number } {
  const r = new ProtoReader(body, 4);
  while (r.pos < body.length) {
    const tag = r.uint32();
    const end = r.end(body.length);
    if (tag === 18) return { rawStart: r.pos, rawEnd: end };
    r.pos = end;
  }
  throw new Error('no raw field');
}
