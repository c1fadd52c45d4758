import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trackUpdate } from './managed-fields.ts';
import { registerCustomResourceMergeSchema } from './patch-merge-keys.ts';

const t0 = '2024-01-01T00:00:00Z';
const t1 = '2024-01-01T00:01:00Z';
const t2 = '2024-01-01T00:02:00Z';

function pod(image = 'nginx', labels: Record<string, string> = { app: 'web' }): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u1', resourceVersion: '5', creationTimestamp: t0, labels },
    spec: { containers: [{ name: 'c', image, ports: [{ containerPort: 80 }] }] },
    status: { phase: 'Pending' },
  };
}

function managedFields(object: Record<string, unknown>): unknown {
  return (object.metadata as { managedFields?: unknown }).managedFields;
}

test('trackUpdate on create: the creator owns every field it set, in the exact upstream FieldsV1 form', () => {
  const created = trackUpdate(undefined, pod(), { manager: 'kubectl-create', now: t0, apiVersion: 'v1' });
  assert.equal(JSON.stringify(managedFields(created)), JSON.stringify([{
    manager: 'kubectl-create',
    operation: 'Update',
    apiVersion: 'v1',
    time: t0,
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"c"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
          },
        },
      },
    },
  }]));
  // Everything else in the object is kept as it was.
  assert.deepEqual({ ...created, metadata: { ...(created.metadata as object), managedFields: undefined } },
    { ...pod(), metadata: { ...(pod().metadata as object), managedFields: undefined } });
});

test('trackUpdate: a second manager takes the fields it changes; the first keeps the rest', () => {
  const created = trackUpdate(undefined, pod(), { manager: 'kubectl-create', now: t0, apiVersion: 'v1' });
  const next = { ...pod('nginx:2'), metadata: { ...(pod().metadata as object), managedFields: managedFields(created) } };
  const edited = trackUpdate(created, next, { manager: 'kubectl-edit', now: t1, apiVersion: 'v1' });
  assert.deepEqual(managedFields(edited), [
    {
      manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: t0, fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } } } },
      },
    },
    {
      manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1', time: t1, fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { 'f:image': {} } } } },
    },
  ]);
});

test('trackUpdate: writes of one manager merge into one entry; its time moves only when it changed something', () => {
  const opts = { manager: 'ctl', apiVersion: 'v1' };
  const created = trackUpdate(undefined, pod(), { ...opts, now: t0 });
  const same = trackUpdate(created, { ...pod(), metadata: { ...(pod().metadata as object) } }, { ...opts, now: t1 });
  assert.deepEqual(managedFields(same), managedFields(created));
  const relabelled = trackUpdate(created, pod('nginx', { app: 'web', tier: 'x' }), { ...opts, now: t2 });
  const entries = managedFields(relabelled) as Array<{ time: string; fieldsV1: { 'f:metadata': unknown } }>;
  assert.equal(entries.length, 1);
  assert.equal(entries[0]!.time, t2);
  assert.deepEqual(entries[0]!.fieldsV1['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } });
});

test('trackUpdate: a removed field leaves every set, and a manager left with nothing disappears', () => {
  const created = trackUpdate(undefined, pod('nginx', {}), { manager: 'a', now: t0, apiVersion: 'v1' });
  const labelled = trackUpdate(created, { ...pod('nginx', { team: 'x' }), metadata: { ...(pod().metadata as object), labels: { team: 'x' }, managedFields: managedFields(created) } },
    { manager: 'b', now: t1, apiVersion: 'v1' });
  assert.deepEqual((managedFields(labelled) as Array<{ manager: string }>).map((e) => e.manager), ['a', 'b']);
  const unlabelled = trackUpdate(labelled, { ...pod('nginx', {}), metadata: { ...(pod().metadata as object), labels: {}, managedFields: managedFields(labelled) } },
    { manager: 'a', now: t2, apiVersion: 'v1' });
  assert.deepEqual((managedFields(unlabelled) as Array<{ manager: string }>).map((e) => e.manager), ['a']);
});

test('trackUpdate: status is not owned through the main resource, and only status through /status', () => {
  const created = trackUpdate(undefined, pod(), { manager: 'ctl', now: t0, apiVersion: 'v1' });
  const running = { ...pod(), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }, metadata: { ...(pod().metadata as object), labels: { app: 'other' } } };
  const viaStatus = trackUpdate(created, running, { manager: 'kubelet', now: t1, apiVersion: 'v1', subresource: 'status' });
  assert.deepEqual((managedFields(viaStatus) as unknown[])[1], {
    manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: t1, fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } },
    subresource: 'status',
  });
  const viaMain = trackUpdate(created, { ...pod(), status: { phase: 'Running' } }, { manager: 'other', now: t1, apiVersion: 'v1' });
  assert.deepEqual(managedFields(viaMain), managedFields(created));
});

test('trackUpdate: managedFields sent by the client replace the recorded ones; one empty entry clears them', () => {
  const created = trackUpdate(undefined, pod(), { manager: 'ctl', now: t0, apiVersion: 'v1' });
  const cleared = trackUpdate(created, { ...pod(), metadata: { ...(pod().metadata as object), managedFields: [{}] } }, { manager: 'ctl', now: t1, apiVersion: 'v1' });
  assert.equal(managedFields(cleared), undefined);
  const kept = trackUpdate(created, { ...pod(), metadata: { ...(pod().metadata as object), managedFields: [] } }, { manager: 'ctl', now: t1, apiVersion: 'v1' });
  assert.deepEqual(managedFields(kept), managedFields(created));
});

test('trackUpdate: Update entries are per apiVersion; inputs are never modified', () => {
  const deployment = (replicas: number): Record<string, unknown> => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas } });
  const created = trackUpdate(undefined, deployment(1), { manager: 'ctl', now: t0, apiVersion: 'apps/v1' });
  const before = structuredClone(created);
  const input = deployment(2);
  const scaled = trackUpdate(created, input, { manager: 'ctl', now: t1, apiVersion: 'apps/v1beta2' });
  assert.deepEqual(created, before);
  assert.deepEqual(input, deployment(2));
  assert.deepEqual((managedFields(scaled) as Array<{ apiVersion: string; fieldsV1: unknown }>).map((e) => [e.apiVersion, e.fieldsV1]), [
    ['apps/v1beta2', { 'f:spec': { 'f:replicas': {} } }],
  ]);
});

test('trackUpdate: updates of an object without managed fields leave it untracked, as upstream', () => {
  const untracked = pod();
  const updated = trackUpdate(untracked, pod('nginx:2'), { manager: 'kubectl-edit', now: t1, apiVersion: 'v1' });
  assert.equal(managedFields(updated), undefined);
  assert.deepEqual(updated, pod('nginx:2'));
});

test('property: after any sequence of updates, managers own only fields the object has, and inputs stay untouched', async () => {
  const fc = (await import('fast-check')).default;
  const { FieldSet } = await import('./fieldpath.ts');
  const { collectNodes } = await import('./managed-fields.ts');
  const { schemaFor } = await import('./patch-merge-keys.ts');
  const name = fc.constantFrom('a', 'b', 'c');
  const podState = fc.record({
    labels: fc.dictionary(name, fc.constantFrom('1', '2'), { maxKeys: 3, noNullPrototype: true }),
    containers: fc.uniqueArray(fc.record({ name, image: fc.constantFrom('x', 'y') }, { requiredKeys: ['name'], noNullPrototype: true }), { selector: (c) => c.name, maxLength: 3 }),
  }).map(({ labels, containers }) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels }, spec: { containers } }));
  const step = fc.record({ manager: fc.constantFrom('m1', 'm2', 'm3'), state: podState });
  fc.assert(fc.property(podState, fc.array(step, { maxLength: 6 }), (initial, steps) => {
    let object: Record<string, unknown> = trackUpdate(undefined, initial, { manager: 'creator', now: t0, apiVersion: 'v1' });
    for (const { manager, state } of steps) {
      const previous = object;
      const previousBefore = structuredClone(previous);
      const input = { ...state, metadata: { ...state.metadata, managedFields: managedFields(object) } };
      const inputBefore = structuredClone(input);
      object = trackUpdate(previous, input, { manager, now: t1, apiVersion: 'v1' });
      assert.deepEqual(previous, previousBefore);
      assert.deepEqual(input, inputBefore);
    }
    const present = new Set([...collectNodes(object, schemaFor({ group: '', kind: 'Pod' })).values()].map((n) => JSON.stringify(n.path)));
    for (const entry of (managedFields(object) as Array<{ fieldsV1: unknown }> | undefined) ?? []) {
      for (const path of FieldSet.fromFieldsV1(entry.fieldsV1)) assert.ok(present.has(JSON.stringify(path)), `owned ${JSON.stringify(path)} is missing`);
    }
  }));
});

test('custom resources: ownership follows the registered structural schema (list-map keys, status without the status subresource)', () => {
  registerCustomResourceMergeSchema(
    { group: 'own.example.com', version: 'v1', kind: 'Dial' },
    {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } }, tags: { type: 'array', items: { type: 'string' } } } },
        status: { type: 'object', properties: { phase: { type: 'string' } } },
      },
    },
    false,
  );
  const dial = { apiVersion: 'own.example.com/v1', kind: 'Dial', metadata: { name: 'd', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }], tags: ['a'] }, status: { phase: 'Up' } };
  const created = trackUpdate(undefined, dial, { manager: 'm', now: t0, apiVersion: 'own.example.com/v1' });
  const fields = (managedFields(created) as Array<{ fieldsV1: unknown }>)[0]!.fieldsV1;
  assert.deepEqual(fields, {
    'f:spec': { '.': {}, 'f:ports': { '.': {}, 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:tags': {} },
    'f:status': { '.': {}, 'f:phase': {} },
  });
});

test('property: compareObjects gives the same answer when the versions share unchanged subtrees as when they are separate copies', async () => {
  const fc = (await import('fast-check')).default;
  const { compareObjects } = await import('./managed-fields.ts');
  const { schemaFor } = await import('./patch-merge-keys.ts');
  const schema = schemaFor({ group: '', kind: 'Pod' });
  const name = fc.constantFrom('a', 'b', 'c');
  const podState = fc.record({
    labels: fc.dictionary(name, fc.constantFrom('1', '2'), { maxKeys: 3, noNullPrototype: true }),
    containers: fc.uniqueArray(fc.record({ name, image: fc.constantFrom('x', 'y') }, { requiredKeys: ['name'], noNullPrototype: true }), { selector: (c) => c.name, maxLength: 3 }),
    phase: fc.option(fc.constantFrom('Pending', 'Running'), { nil: undefined }),
  }).map(({ labels, containers, phase }) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels }, spec: { containers }, status: phase === undefined ? {} : { phase, conditions: [{ type: 'Ready', status: 'True' }] } }));
  // Which parts of the second version are the first version's own objects (as an in-process writer spreads the stored one).
  const sharing = fc.record({ labels: fc.boolean(), spec: fc.boolean(), containers: fc.boolean(), status: fc.boolean() });
  const keys = (c: ReturnType<typeof compareObjects>): string[][] => [c.added, c.removed, c.modified].map((set) => [...set].map((p) => JSON.stringify(p)).sort());
  fc.assert(fc.property(podState, podState, sharing, (before, other, share) => {
    const spec = share.spec ? before.spec : { ...other.spec, containers: share.containers ? before.spec.containers : other.spec.containers };
    const after = { ...other, metadata: { ...other.metadata, labels: share.labels ? before.metadata.labels : other.metadata.labels }, spec, status: share.status ? before.status : other.status };
    assert.deepEqual(keys(compareObjects(before, after, schema)), keys(compareObjects(structuredClone(before), structuredClone(after), schema)));
  }));
  // And it prunes: the shared spec is not walked (a spec that is its own twin yields no node below it).
  const p = pod();
  const shared = { ...p, status: { phase: 'Running' } };
  const c = compareObjects(p, shared, schema);
  assert.deepEqual([...c.modified].map((x) => x.join('.')), ['f:status.f:phase']);
  assert.equal(c.added.size + c.removed.size, 0);
});
