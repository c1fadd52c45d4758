import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyServerSideApply, checkAppliedConfiguration } from './server-side-apply.ts';
import { trackUpdate } from './managed-fields.ts';
import { ApplyConflictError, PatchError } from './errors.ts';

const t0 = '2024-01-01T00:00:00Z';
const t1 = '2024-01-01T00:01:00Z';
const t2 = '2024-01-01T00:02:00Z';
const apply = (manager: string, now: string, force = false) => ({ manager, now, force, apiVersion: 'apps/v1' });

type Obj = Record<string, unknown>;

function config(overrides: { replicas?: number | undefined; labels?: Record<string, string> | undefined; image?: string } = {}): Obj {
  const metadata: Obj = { name: 'web', namespace: 'default' };
  const labels = 'labels' in overrides ? overrides.labels : { app: 'web' };
  if (labels !== undefined) metadata.labels = labels;
  const spec: Obj = {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: overrides.image ?? 'nginx:1' }] } },
  };
  const replicas = 'replicas' in overrides ? overrides.replicas : 2;
  if (replicas !== undefined) spec.replicas = replicas;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec };
}

function managed(object: Obj): Array<{ manager: string; operation: string; time?: string; fieldsV1: unknown }> {
  return (object.metadata as { managedFields: Array<{ manager: string; operation: string; time?: string; fieldsV1: unknown }> }).managedFields;
}

function spec(object: Obj): Obj {
  return object.spec as Obj;
}

// What the server adds on create; apply must leave it alone.
function stored(object: Obj): Obj {
  return { ...object, metadata: { ...(object.metadata as Obj), uid: 'u1', resourceVersion: '10', creationTimestamp: t0 } };
}

test('applyServerSideApply creates the object and records exactly the applied fields', () => {
  const created = applyServerSideApply(undefined, config(), apply('kubectl', t0));
  assert.deepEqual(JSON.stringify(managed(created)), JSON.stringify([{
    manager: 'kubectl',
    operation: 'Apply',
    apiVersion: 'apps/v1',
    time: t0,
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    },
  }]));
  assert.deepEqual({ ...created, metadata: { ...(created.metadata as Obj), managedFields: undefined } },
    { ...config(), metadata: { ...(config().metadata as Obj), managedFields: undefined } });
});

test('re-applying an unchanged configuration changes nothing, not even the entry time', () => {
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  const again = applyServerSideApply(live, config(), apply('kubectl', t1));
  assert.deepEqual(again, live);
});

test('a field dropped from the configuration is removed when nobody else owns it', () => {
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  const next = applyServerSideApply(live, config({ replicas: undefined, labels: undefined }), apply('kubectl', t1));
  assert.equal('replicas' in spec(next), false);
  assert.equal('labels' in (next.metadata as Obj), false, 'an emptied labels map goes too');
  assert.equal((next.metadata as Obj).uid, 'u1');
  assert.deepEqual(managed(next).map((e) => [e.manager, e.time]), [['kubectl', t1]]);
  assert.deepEqual((managed(next)[0]!.fieldsV1 as Obj)['f:metadata'], undefined);
});

test('changing a field another manager owns is a conflict naming the manager and the field', () => {
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  const scaled = trackUpdate(live, { ...live, spec: { ...spec(live), replicas: 3 } }, { manager: 'kubectl-scale', now: t1, apiVersion: 'apps/v1' });
  assert.throws(() => applyServerSideApply(scaled, config(), apply('kubectl', t2)), (err: unknown) => {
    assert.ok(err instanceof ApplyConflictError);
    assert.deepEqual(err.conflicts.map(({ manager, field }) => ({ manager, field })), [{ manager: 'kubectl-scale', field: '.spec.replicas' }]);
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl-scale" using apps/v1: .spec.replicas');
    assert.deepEqual(err.causes(), [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-scale" using apps/v1', field: '.spec.replicas' }]);
    return true;
  });
});

test('conflicts list every field, grouped by owner, appliers named without version', () => {
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  assert.throws(() => applyServerSideApply(live, config({ replicas: 5, image: 'nginx:2' }), apply('ci', t1)), (err: unknown) => {
    assert.ok(err instanceof ApplyConflictError);
    assert.deepEqual(err.conflicts.map((c) => c.field), ['.spec.replicas', '.spec.template.spec.containers[name="nginx"].image']);
    assert.equal(err.message, 'Apply failed with 2 conflicts: conflicts with "kubectl":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image');
    return true;
  });
});

test('force takes the conflicting fields over from their owners', () => {
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  const scaled = trackUpdate(live, { ...live, spec: { ...spec(live), replicas: 3 } }, { manager: 'kubectl-scale', now: t1, apiVersion: 'apps/v1' });
  const forced = applyServerSideApply(scaled, config({ replicas: 4 }), apply('kubectl', t2, true));
  assert.equal(spec(forced).replicas, 4);
  // kubectl-scale owned nothing else, so its entry is gone.
  assert.deepEqual(managed(forced).map((e) => [e.manager, e.operation, e.time]), [['kubectl', 'Apply', t2]]);
  assert.deepEqual((managed(forced)[0]!.fieldsV1 as { 'f:spec': Obj })['f:spec']['f:replicas'], {});
});

test('applying the same value as another owner makes both co-owners; the field survives either dropping it', () => {
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  const shared = applyServerSideApply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2 } }, apply('hpa', t1));
  assert.deepEqual(managed(shared).map((e) => e.manager), ['kubectl', 'hpa']);
  assert.deepEqual(managed(shared)[1]!.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  const dropped = applyServerSideApply(shared, config({ replicas: undefined }), apply('kubectl', t2));
  assert.equal(spec(dropped).replicas, 2);
  assert.deepEqual(managed(dropped).map((e) => e.manager), ['kubectl', 'hpa']);
});

test('associative lists merge by key: live-only elements stay in place, applied ones follow the configuration', () => {
  const live = applyServerSideApply(undefined, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
    spec: { containers: [{ name: 'a', image: 'a' }, { name: 'b', image: 'b' }, { name: 'c', image: 'c' }] },
  }, { manager: 'one', now: t0, force: false, apiVersion: 'v1' });
  const merged = applyServerSideApply(live, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
    spec: { containers: [{ name: 'd', image: 'd' }, { name: 'b', image: 'b' }] },
  }, { manager: 'two', now: t1, force: false, apiVersion: 'v1' });
  assert.deepEqual((spec(merged).containers as Obj[]).map((c) => c.name), ['a', 'd', 'b', 'c']);
  assert.deepEqual(managed(merged)[1]!.fieldsV1, { 'f:spec': { 'f:containers': {
    'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} },
    'k:{"name":"d"}': { '.': {}, 'f:image': {}, 'f:name': {} },
  } } });
});

test('a list element dropped from the configuration is removed, together with its fields', () => {
  const pod = (names: string[]): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', finalizers: names.map((n) => `x/${n}`) }, spec: { containers: names.map((name) => ({ name, image: name })) } });
  const opts = (now: string) => ({ manager: 'kubectl', now, force: false, apiVersion: 'v1' });
  const live = applyServerSideApply(undefined, pod(['a', 'b']), opts(t0));
  const next = applyServerSideApply(live, pod(['b']), opts(t1));
  assert.deepEqual(spec(next).containers, [{ name: 'b', image: 'b' }]);
  assert.deepEqual((next.metadata as Obj).finalizers, ['x/b']);
  assert.deepEqual(managed(next)[0]!.fieldsV1, {
    'f:metadata': { 'f:finalizers': { 'v:"x/b"': {} } },
    'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
  });
});

test('status is not owned through the main resource', () => {
  const created = applyServerSideApply(undefined, { ...config(), status: { replicas: 1 } }, apply('kubectl', t0));
  assert.equal(JSON.stringify(managed(created)[0]!.fieldsV1).includes('f:status'), false);
  const viaStatus = applyServerSideApply(stored(created), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { replicas: 2 } },
    { ...apply('controller', t1), subresource: 'status' });
  assert.deepEqual(managed(viaStatus)[1], {
    manager: 'controller', operation: 'Apply', apiVersion: 'apps/v1', time: t1, fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:replicas': {} } }, subresource: 'status',
  });
});

test('an object created without managedFields gets its fields owned by before-first-apply', () => {
  const untracked = stored(config());
  assert.throws(() => applyServerSideApply(untracked, config({ replicas: 3 }), apply('kubectl', t1)),
    (err: unknown) => err instanceof ApplyConflictError && err.conflicts[0]?.manager === 'before-first-apply');
});

test('the configuration names its apiVersion and kind: version first, then managedFields, then a kind with a type, then the endpoint\'s', () => {
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', servedKinds: ['Deployment', 'StatefulSet'] };
  const failure = (applied: Obj): [number, string, string] | undefined => {
    try {
      checkAppliedConfiguration(applied, target);
      return undefined;
    } catch (err) {
      assert.ok(err instanceof PatchError);
      return [err.statusCode, err.reason, err.message];
    }
  };
  const managed = { name: 'web', managedFields: [] };
  assert.deepEqual(failure({ kind: 'Deployment', metadata: managed }), [400, 'BadRequest', 'Incorrect version specified in apply patch. Specified patch version: , expected: apps/v1']);
  assert.deepEqual(failure({ apiVersion: 'apps/v1', kind: 'Gadget', metadata: managed }), [400, 'BadRequest', 'metadata.managedFields must be nil']);
  assert.deepEqual(failure({ apiVersion: 'apps/v1', metadata: { name: 'web', namespace: 'ns' } }), [500, '', 'failed to create typed patch object (ns/web; apps/v1, Kind=): no corresponding type for apps/v1, Kind=']);
  assert.deepEqual(failure({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' } }), [500, '', 'failed to merge config: expected objects of the same type, but got Deployment and StatefulSet']);
  assert.equal(failure({ apiVersion: 'apps/v1', kind: 'Deployment' }), undefined);
  // Core group: `/v1` in the group/version/kind; without servedKinds only the endpoint's kind has a type.
  assert.throws(() => checkAppliedConfiguration({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } }, { apiVersion: 'v1', kind: 'ConfigMap' }),
    (err: unknown) => err instanceof PatchError && err.message === 'failed to create typed patch object (/a; /v1, Kind=Secret): no corresponding type for /v1, Kind=Secret');
});

test('the configuration must not carry managedFields and must match the endpoint version; inputs stay untouched', () => {
  const withManaged = { ...config(), metadata: { name: 'web', managedFields: [] } };
  assert.throws(() => applyServerSideApply(undefined, withManaged, apply('kubectl', t0)),
    (err: unknown) => err instanceof PatchError && err.statusCode === 400 && err.message === 'metadata.managedFields must be nil');
  assert.throws(() => applyServerSideApply(undefined, { ...config(), apiVersion: 'apps/v1beta1' }, apply('kubectl', t0)),
    (err: unknown) => err instanceof PatchError && err.statusCode === 400 && err.reason === 'BadRequest'
      && err.message === 'Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1');
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  const liveBefore = structuredClone(live);
  const applied = config({ replicas: 7 });
  applyServerSideApply(live, applied, apply('kubectl', t1));
  assert.deepEqual(live, liveBefore);
  assert.deepEqual(applied, config({ replicas: 7 }));
});

test('removing the last element of a list drops the list, as Go omits empty slices', () => {
  const pod = (env: Obj[]): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', env }] } });
  const opts = (now: string) => ({ manager: 'kubectl', now, force: false, apiVersion: 'v1' });
  const live = applyServerSideApply(undefined, pod([{ name: 'A', value: '1' }]), opts(t0));
  const next = applyServerSideApply(live, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, opts(t1));
  assert.deepEqual(spec(next).containers, [{ name: 'c', image: 'i' }]);
});

test('key fields with a default (port protocol TCP) identify the same element whether given or not', () => {
  const pod = (port: Obj): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', ports: [port] }] } });
  const live = applyServerSideApply(undefined, pod({ containerPort: 80 }), { manager: 'a', now: t0, force: false, apiVersion: 'v1' });
  const next = applyServerSideApply(live, pod({ containerPort: 80, protocol: 'TCP', name: 'http' }), { manager: 'b', now: t1, force: false, apiVersion: 'v1' });
  assert.deepEqual((spec(next).containers as Obj[])[0]!.ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
  assert.deepEqual(managed(next)[1]!.fieldsV1, { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:ports': {
    'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} },
  } } } } });
});

test('kubectl upgrading from client-side apply takes over the fields the last-applied annotation vouches for', () => {
  const lastApplied = JSON.stringify(config());
  const csa = { ...config(), metadata: { ...(config().metadata as Obj), annotations: { 'kubectl.kubernetes.io/last-applied-configuration': `${lastApplied}\n` } } };
  const live = stored(trackUpdate(undefined, csa, { manager: 'kubectl-client-side-apply', now: t0, apiVersion: 'apps/v1' }));
  const next = config({ replicas: 3, image: 'nginx:<2>' });
  // Another manager gets the conflicts as usual.
  assert.throws(() => applyServerSideApply(live, next, apply('ci', t1)), ApplyConflictError);
  const upgraded = applyServerSideApply(live, next, apply('kubectl', t1));
  assert.equal(spec(upgraded).replicas, 3);
  assert.deepEqual(managed(upgraded).map((e) => e.manager), ['kubectl', 'kubectl-client-side-apply']);
  assert.equal(((upgraded.metadata as Obj).annotations as Obj)['kubectl.kubernetes.io/last-applied-configuration'],
    '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"app":"web"},"name":"web","namespace":"default"},"spec":{"replicas":3,'
    + '"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:\\u003c2\\u003e","name":"nginx"}]}}}}\n');
  // A field changed by someone else since the last client-side apply still conflicts.
  const scaled = trackUpdate(live, { ...live, spec: { ...spec(live), replicas: 5 } }, { manager: 'scaler', now: t1, apiVersion: 'apps/v1' });
  assert.throws(() => applyServerSideApply(scaled, next, apply('kubectl', t2)),
    (err: unknown) => err instanceof ApplyConflictError && JSON.stringify(err.conflicts.map((c) => [c.manager, c.field])) === '[["scaler",".spec.replicas"]]');
});

test('more than ten Update managers: the oldest merge into ancient-changes', () => {
  let object: Obj = trackUpdate(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { l1: 'x' } } },
    { manager: 'm1', now: '2024-01-01T00:00:01Z', apiVersion: 'v1' });
  for (let i = 2; i <= 12; i++) {
    const labels = { ...((object.metadata as Obj).labels as Obj), [`l${i}`]: 'x' };
    object = trackUpdate(object, { ...object, metadata: { ...(object.metadata as Obj), labels } },
      { manager: `m${i}`, now: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`, apiVersion: 'v1' });
  }
  const entries = managed(object);
  assert.deepEqual(entries.map((e) => [e.manager, e.time]), [
    ['ancient-changes', '2024-01-01T00:00:03Z'],
    ...Array.from({ length: 9 }, (_, k) => [`m${k + 4}`, `2024-01-01T00:00:${String(k + 4).padStart(2, '0')}Z`]),
  ]);
  assert.deepEqual(entries[0]!.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:l1': {}, 'f:l2': {}, 'f:l3': {} } } });
});

test('a configuration with an unkeyed or duplicated associative list element is rejected', () => {
  const pod = (containers: Obj[]): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers } });
  const opts = { manager: 'kubectl', now: t0, force: false, apiVersion: 'v1' };
  assert.throws(() => applyServerSideApply(undefined, pod([{ image: 'x' }]), opts), (err: unknown) => err instanceof PatchError && err.statusCode === 500
    && err.message === 'failed to create typed patch object (default/p; /v1, Kind=Pod): .spec.containers: element 0: associative list with keys has an element '
      + 'that omits all key fields ["name"] (and doesn\'t have default values for any key fields)');
  assert.throws(() => applyServerSideApply(undefined, pod([{ name: 'a' }, { name: 'a' }]), opts),
    (err: unknown) => err instanceof PatchError && err.message.endsWith('.spec.containers: duplicate entries for key [name="a"]'));
});

test('property: re-applying a configuration is a no-op, and the result carries every applied value', async () => {
  const fc = (await import('fast-check')).default;
  const name = fc.constantFrom('a', 'b', 'c', 'd');
  const container = fc.record({ name, image: fc.constantFrom('x:1', 'x:2'), env: fc.uniqueArray(fc.record({ name, value: fc.constantFrom('1', '2') }), { selector: (e) => e.name, maxLength: 3 }) });
  const cfg = fc.record({
    labels: fc.dictionary(name, fc.constantFrom('1', '2'), { maxKeys: 3, noNullPrototype: true }),
    replicas: fc.option(fc.nat(5), { nil: undefined }),
    containers: fc.uniqueArray(container, { selector: (c) => c.name, minLength: 1, maxLength: 3 }),
  }).map(({ labels, replicas, containers }): Obj => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels },
    spec: { ...(replicas === undefined ? {} : { replicas }), template: { spec: { containers } } },
  }));
  fc.assert(fc.property(cfg, cfg, (first, second) => {
    const live = applyServerSideApply(undefined, first, apply('a', t0));
    const next = applyServerSideApply(live, second, apply('a', t1));
    assert.deepEqual(applyServerSideApply(next, second, apply('a', t2)), next);
    // The second configuration's values are all there, and nothing of the first survives that it dropped.
    const strip = (o: Obj): Obj => ({ ...o, metadata: { ...(o.metadata as Obj), managedFields: undefined } });
    const fresh = applyServerSideApply(undefined, second, apply('a', t0));
    assert.deepEqual(JSON.stringify(sortedLists(strip(next))), JSON.stringify(sortedLists(strip(fresh))));
  }), { numRuns: 300 });
});

// Deep copy with object keys sorted and containers/env sorted by name, so order differences do not matter.
function sortedLists(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(sortedLists);
    return items.every((i) => typeof i === 'object' && i !== null && 'name' in i)
      ? [...items].sort((a, b) => String((a as Obj).name).localeCompare(String((b as Obj).name)))
      : items;
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedLists((value as Obj)[k])]));
  }
  return value;
}

test('status sent through the main resource neither conflicts with nor takes over status owners', () => {
  const live = stored(applyServerSideApply(undefined, config(), apply('kubectl', t0)));
  const withStatus = applyServerSideApply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { replicas: 2 } },
    { ...apply('controller', t1), subresource: 'status' });
  const reapplied = applyServerSideApply(withStatus, { ...config(), status: { replicas: 7 } }, apply('kubectl', t2));
  const controller = managed(reapplied).find((e) => e.manager === 'controller');
  assert.deepEqual(controller?.fieldsV1, { 'f:status': { 'f:replicas': {} } });
  assert.equal(JSON.stringify(managed(reapplied).find((e) => e.manager === 'kubectl')?.fieldsV1).includes('f:status'), false);
});
