import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeProtobuf, ProtobufDecodeError } from './decode.ts';
import { canEncodeProtobuf, encodeProtobuf, encodeProtobufWatchEvent, ProtobufEncodeError } from './encode.ts';

type Obj = Record<string, unknown>;
const here = dirname(fileURLToPath(import.meta.url));
const testdata = (name: string): Buffer => readFileSync(join(here, 'testdata', name));

test('real kube-apiserver v1.24 answers decode to exactly what its JSON answers parse to (a Pod, a FlowSchemaList, a 404 Status, a PartialObjectMetadataList)', () => {
  for (const name of ['real-pod', 'real-flowschemas', 'real-status-404', 'real-namespaces-metadata']) {
    const body = Buffer.from(testdata(`${name}.pb.b64`).toString('ascii'), 'base64');
    assert.deepEqual(decodeProtobuf(body), JSON.parse(testdata(`${name}.json`).toString('utf8')), name);
  }
});

/** Every built-in object kube-apiserver answered in the fidelity corpus, with its placeholders made concrete. */
function corpusObjects(): Array<{ where: string; obj: Obj }> {
  const root = join(here, '../../../test/fidelity/golden');
  const out: Array<{ where: string; obj: Obj }> = [];
  const fullObject = (o: Obj): boolean => {
    // Scenarios may project objects (no creationTimestamp): only whole objects are what a server sends.
    const meta = o.metadata as Obj | undefined;
    if (Array.isArray(o.items)) return (o.items as Obj[]).every(fullObject);
    if (meta === undefined || /"\[[^"\]]*=[^"\]]*\]":/.test(JSON.stringify(o))) return false; // lists the normaliser keyed by a field
    return Object.keys(meta).length === 0 || 'creationTimestamp' in meta || o.kind === 'Status';
  };
  const walk = (v: unknown, where: string): void => {
    if (Array.isArray(v)) for (const x of v) walk(x, where);
    else if (typeof v === 'object' && v !== null) {
      const o = v as Obj;
      if (typeof o.kind === 'string' && typeof o.apiVersion === 'string' && canEncodeProtobuf(o.apiVersion, o.kind) && fullObject(o)) out.push({ where, obj: o });
      for (const k of Object.keys(o)) walk(o[k], where);
    }
  };
  for (const area of readdirSync(root)) {
    for (const file of readdirSync(join(root, area))) {
      const text = readFileSync(join(root, area, file), 'utf8').replaceAll('"{microtime}"', '"2024-05-06T07:08:09.123456Z"').replaceAll('"{time}"', '"2024-05-06T07:08:09Z"');
      for (const step of (JSON.parse(text) as { steps: Array<{ step: string; type?: string; body?: unknown }> }).steps) {
        // Custom resources have no protobuf form; answers recorded from protobuf are not JSON answers.
        if (step.step.includes('.fidelity.kubeloom.test/') || step.type !== 'application/json') continue;
        walk(step.body, `${area}/${file}: ${step.step}`);
      }
    }
  }
  return out;
}

test('differential: every built-in object of the fidelity corpus, encoded to protobuf and decoded, deep-equals its JSON', () => {
  const objects = corpusObjects();
  const kinds = new Set(objects.map((o) => o.obj.kind));
  assert.ok(objects.length > 250 && kinds.size > 15, `${objects.length} objects of ${kinds.size} kinds`);
  for (const { where, obj } of objects) assert.deepEqual(decodeProtobuf(encodeProtobuf(obj)), obj, where);
});

test('JSON rules: omitempty zeros dropped, zero pointers kept, structs always present, nil slices and pointers without omitempty are null', () => {
  const pod = {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name: 'p', creationTimestamp: null },
    spec: { containers: [{ name: 'c', image: 'i', resources: {} }], priority: 0, enableServiceLinks: false },
    status: {},
  };
  assert.deepEqual(decodeProtobuf(encodeProtobuf(pod)), pod);
  const deployment = decodeProtobuf(encodeProtobuf({ kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'd' } }));
  // DeploymentSpec.selector is a pointer without omitempty; template a struct; status a struct with omitempty.
  assert.deepEqual(deployment, {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'd', creationTimestamp: null },
    spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, strategy: {} },
    status: {},
  });
  const list = decodeProtobuf(encodeProtobuf({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] }));
  assert.deepEqual(list, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] });
});

test('special types: times at Go JSON precision, quantities, int-or-string, bytes, raw extensions, int64, maps', () => {
  const event = {
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    metadata: { name: 'e', namespace: 'ns', creationTimestamp: '2024-05-06T07:08:09Z', deletionGracePeriodSeconds: -3, generation: 2 ** 40 },
    eventTime: '2024-05-06T07:08:09.000001Z',
    regarding: {},
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  };
  assert.deepEqual(decodeProtobuf(encodeProtobuf(event)), event);
  // metav1.Time's JSON has whole seconds: nanoseconds on the wire are not shown.
  const withNanos = decodeProtobuf(encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { creationTimestamp: '2024-05-06T07:08:09.987654321Z' } }));
  assert.equal((withNanos.metadata as Obj).creationTimestamp, '2024-05-06T07:08:09Z');
  const secret = { kind: 'Secret', apiVersion: 'v1', metadata: { name: 's', creationTimestamp: null, labels: { b: '2', a: '1' } }, data: { k: Buffer.from([0, 255, 7]).toString('base64'), empty: '' }, type: 'Opaque' };
  assert.deepEqual(decodeProtobuf(encodeProtobuf(secret)), secret);
  const revision = { kind: 'ControllerRevision', apiVersion: 'apps/v1', metadata: { name: 'r', creationTimestamp: null }, data: { spec: { n: [1, 'x', null] } }, revision: 3 };
  assert.deepEqual(decodeProtobuf(encodeProtobuf(revision)), revision);
  const service = {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: { name: 's', creationTimestamp: null },
    spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081, protocol: 'UDP' }] },
    status: { loadBalancer: {} },
  };
  const back = decodeProtobuf(encodeProtobuf(service));
  assert.deepEqual((back.spec as { ports: unknown }).ports, [
    { port: 80, targetPort: 'http' },
    { port: 81, targetPort: 8081, protocol: 'UDP' },
  ]);
  const quota = { kind: 'ResourceQuota', apiVersion: 'v1', metadata: { name: 'q', creationTimestamp: null }, spec: { hard: { cpu: '1500m', memory: '1Gi' } }, status: {} };
  assert.deepEqual(decodeProtobuf(encodeProtobuf(quota)), quota);
});

test('a watch frame holds the WatchEvent message with the object in its own envelope; bodies without the magic or of unknown kinds are refused', () => {
  const frame = encodeProtobufWatchEvent('ADDED', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', creationTimestamp: null } });
  assert.equal(frame.readUInt32BE(0), frame.length - 4);
  assert.deepEqual([...frame.subarray(4, 11)], [0x0a, 5, ...Buffer.from('ADDED')]);
  assert.throws(() => decodeProtobuf(Buffer.from('{"kind":"Pod"}')), (err: unknown) => err instanceof ProtobufDecodeError && /expected prefix \[107 56 115 0\]/.test(err.message));
  assert.throws(() => encodeProtobuf({ kind: 'Widget', apiVersion: 'example.com/v1' }), ProtobufEncodeError);
  assert.throws(() => decodeProtobuf(encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1' }).subarray(0, 12)), ProtobufDecodeError);
});

test('interned fieldsV1: values that differ only in an owner uid each decode to their own value, and equal ones are shared', async () => {
  const { ManagedFieldsInterner } = await import('../../rest/managed-fields-interner.ts');
  // 40 values of ~2.5 KB that differ only in 36 bytes (a uid), as the Pods of 40 Deployments do: they
  // once all shared one hash bucket; a lookup must still return the value of exactly these bytes.
  const fieldsFor = (d: number): Record<string, unknown> => {
    const fields: Record<string, unknown> = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } };
    (fields['f:metadata'] as Record<string, unknown>)[`f:ownerReferences`] = { [`k:{"uid":"00000000-0000-0000-0000-${String(d).padStart(12, '0')}"}`]: {} };
    const spec: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++) spec[`f:field-${i}-padding-padding`] = {};
    fields['f:spec'] = spec;
    return fields;
  };
  const items = Array.from({ length: 80 }, (_, i) => ({
    metadata: { name: `p${i}`, managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: fieldsFor(i % 40) }] },
    spec: { containers: [] },
  }));
  const body = encodeProtobuf({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items });
  const interner = new ManagedFieldsInterner();
  const decoded = decodeProtobuf(body, { interner }).items as Array<{ metadata: { managedFields: Array<{ fieldsV1: unknown }> } }>;
  for (let i = 0; i < 80; i++) assert.deepEqual(decoded[i]!.metadata.managedFields[0]!.fieldsV1, fieldsFor(i % 40), `item ${i}`);
  assert.equal(decoded[0]!.metadata.managedFields[0]!.fieldsV1, decoded[40]!.metadata.managedFields[0]!.fieldsV1);
  assert.notEqual(decoded[0]!.metadata.managedFields[0]!.fieldsV1, decoded[1]!.metadata.managedFields[0]!.fieldsV1);
});

test('a RawExtension is written with the escapes Go writes (<, >, &, U+2028, U+2029), so its bytes read back equal a Go client\'s', () => {
  const bytes = Buffer.from(encodeProtobuf({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { note: 'a <b> & c\u2028' }, revision: 1 })).toString('latin1');
  assert.ok(bytes.includes('{"note":"a \\u003cb\\u003e \\u0026 c\\u2028"}'), bytes);
});
