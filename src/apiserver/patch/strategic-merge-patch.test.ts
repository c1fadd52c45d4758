/* eslint-disable @typescript-eslint/no-explicit-any -- the cases pick parts of untyped JSON results */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';
import { PatchError } from './errors.ts';

const podKind = { group: '', version: 'v1', kind: 'Pod' };
const deploymentKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

function pod(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'web' }, finalizers: ['a.example/x', 'b.example/y'] },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }, { containerPort: 443 }] },
        { name: 'sidecar', image: 'side:1', args: ['--a', '--b'] },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
      tolerations: [{ key: 'k1', operator: 'Exists' }],
    },
  };
}

// [name, patch, expected spec/metadata excerpt chosen by `pick`]
const podCases: Array<[string, Record<string, unknown>, (o: any) => unknown, unknown]> = [
  ['containers merge by name; untouched fields stay', { spec: { containers: [{ name: 'app', image: 'app:2' }] } },
    (o) => o.spec.containers.map((c: any) => [c.name, c.image, c.env?.length]), [['app', 'app:2', 2], ['sidecar', 'side:1', undefined]]],
  ['a new container is merged in before the live ones (upstream order)', { spec: { containers: [{ name: 'new', image: 'n:1' }] } },
    (o) => o.spec.containers.map((c: any) => c.name), ['new', 'app', 'sidecar']],
  ['env merges by name inside a merged container', { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }] }] } },
    (o) => o.spec.containers[0].env, [{ name: 'A', value: '1' }, { name: 'B', value: 'two' }, { name: 'C', value: '3' }]],
  ['ports merge by containerPort', { spec: { containers: [{ name: 'app', ports: [{ containerPort: 443, name: 'https' }] }] } },
    (o) => o.spec.containers[0].ports, [{ containerPort: 80 }, { containerPort: 443, name: 'https' }]],
  ['$patch: delete removes one element by merge key', { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } },
    (o) => o.spec.containers.map((c: any) => c.name), ['app']],
  ['$patch: replace in a list replaces the whole list', { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'o:1' }] } },
    (o) => o.spec.containers, [{ name: 'only', image: 'o:1' }]],
  ['$patch: replace in a map replaces the map', { metadata: { labels: { $patch: 'replace', tier: 'x' } } },
    (o) => o.metadata.labels, { tier: 'x' }],
  ['$patch: delete in a map empties it', { metadata: { labels: { $patch: 'delete' } } }, (o) => o.metadata.labels, {}],
  ['$patch: merge in a map merges', { metadata: { labels: { $patch: 'merge', tier: 'x' } } }, (o) => o.metadata.labels, { app: 'web', tier: 'x' }],
  ['null deletes a member', { metadata: { labels: { app: null } } }, (o) => o.metadata.labels, {}],
  ['a list without merge key (args) is replaced', { spec: { containers: [{ name: 'sidecar', args: ['--c'] }] } },
    (o) => o.spec.containers[1].args, ['--c']],
  ['tolerations are replaced, not merged', { spec: { tolerations: [{ key: 'k2', operator: 'Exists' }] } },
    (o) => o.spec.tolerations, [{ key: 'k2', operator: 'Exists' }]],
  ['finalizers merge as a set (new ones first, as upstream orders them)', { metadata: { finalizers: ['c.example/z', 'a.example/x'] } },
    (o) => o.metadata.finalizers, ['c.example/z', 'a.example/x', 'b.example/y']],
  ['$deleteFromPrimitiveList removes finalizers', { metadata: { $deleteFromPrimitiveList: undefined, '$deleteFromPrimitiveList/finalizers': ['a.example/x'] } },
    (o) => o.metadata.finalizers, ['b.example/y']],
  ['$setElementOrder orders a merged list', { spec: { $setElementOrder: undefined, '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }], containers: [{ name: 'app', image: 'app:3' }] } },
    (o) => o.spec.containers.map((c: any) => `${c.name}=${c.image}`), ['sidecar=side:1', 'app=app:3']],
  ['$setElementOrder orders a primitive list', { metadata: { '$setElementOrder/finalizers': ['b.example/y', 'a.example/x'] } },
    (o) => o.metadata.finalizers, ['b.example/y', 'a.example/x']],
  ['$retainKeys drops unlisted members of the live map', { spec: { volumes: [{ name: 'data', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/d' } }] } },
    (o) => o.spec.volumes, [{ name: 'data', hostPath: { path: '/d' } }]],
  ['directives in a field the live object lacks leave no trace', { spec: { initContainers: [{ name: 'i', $patch: 'delete' }, { name: 'j', image: 'j' }] } },
    (o) => o.spec.initContainers, [{ name: 'j', image: 'j' }]],
  ['a type change replaces the value', { spec: { volumes: 'none' } }, (o) => o.spec.volumes, 'none'],
];

test('applyStrategicMergePatch: Pod patches follow the built-in patch strategies', () => {
  for (const [name, patch, pick, want] of podCases) {
    const cleaned = JSON.parse(JSON.stringify(patch)) as Record<string, unknown>;
    assert.deepEqual(pick(applyStrategicMergePatch(pod(), cleaned, podKind)), want, name);
  }
});

test('applyStrategicMergePatch: pod templates inside workloads merge the same way', () => {
  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
    spec: { replicas: 1, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } } },
  };
  const patched = applyStrategicMergePatch(deployment, { spec: { replicas: 2, template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } }, deploymentKind);
  assert.deepEqual(patched, {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
    spec: { replicas: 2, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:2' }] } } },
  });
  const job = { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }] } } } };
  assert.deepEqual(applyStrategicMergePatch(job, { spec: { template: { spec: { containers: [{ name: 'a', command: ['x'] }] } } } }, { group: 'batch', version: 'v1', kind: 'Job' }),
    { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1', command: ['x'] }] } } } });
  const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } };
  assert.deepEqual(applyStrategicMergePatch(svc, { spec: { ports: [{ port: 80, targetPort: 9090 }] } }, { group: '', version: 'v1', kind: 'Service' }),
    { spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }] } });
});

test('applyStrategicMergePatch: conditions merge by type, ownerReferences by uid', () => {
  const live = { metadata: { ownerReferences: [{ uid: '1', name: 'a' }] }, status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'Initialized', status: 'True' }] } };
  const out = applyStrategicMergePatch(live, { metadata: { ownerReferences: [{ uid: '2', name: 'b' }] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }, podKind);
  assert.deepEqual(out, {
    metadata: { ownerReferences: [{ uid: '2', name: 'b' }, { uid: '1', name: 'a' }] },
    status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Initialized', status: 'True' }] },
  });
});

test('applyStrategicMergePatch: never mutates its inputs', () => {
  const doc = pod();
  const patch = { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }, { name: 'app', env: [{ name: 'A', $patch: 'delete' }] }] } };
  const docBefore = structuredClone(doc);
  const patchBefore = structuredClone(patch);
  applyStrategicMergePatch(doc, patch, podKind);
  assert.deepEqual(doc, docBefore);
  assert.deepEqual(patch, patchBefore);
});

const failures: Array<[string, unknown, number, string, string]> = [
  ['a patch that is not an object', [1], 400, 'BadRequest', 'cannot unmarshal array'],
  ['an element without its merge key', { spec: { containers: [{ image: 'x' }] } }, 500, '', 'map: map[image:x] does not contain declared merge key: name'],
  ['an unknown $patch value', { metadata: { labels: { $patch: 'frob' } } }, 500, '', 'unknown patch type: frob in map: map[$patch:frob]'],
  ['$patch: merge in a list', { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }, 500, '', 'merging lists cannot yet be specified in the patch'],
  ['lists of lists', { metadata: { ownerReferences: [['x']] } }, 422, 'Invalid', 'lists of lists are not supported'],
  ['elements of another type than the live ones', { metadata: { finalizers: [['x']] } }, 500, '', 'list element types are not identical'],
  ['a malformed $deleteFromPrimitiveList', { metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } }, 400, 'BadRequest', 'invalid patch format of primitive list'],
  ['$retainKeys not a list', { spec: { volumes: [{ name: 'data', $retainKeys: 'x' }] } }, 400, 'BadRequest', 'invalid patch format of retainKeys'],
  ['content outside $retainKeys', { spec: { volumes: [{ name: 'data', $retainKeys: ['name'], hostPath: {} }] } }, 400, 'BadRequest', 'invalid patch format of retainKeys'],
  ['a $setElementOrder that omits a patched element', { spec: { '$setElementOrder/containers': [{ name: 'app' }], containers: [{ name: 'other' }] } },
    500, '', "doesn't match $setElementOrder list"],
];

test('applyStrategicMergePatch: failures carry the status kube-apiserver answers', () => {
  for (const [name, patch, statusCode, reason, fragment] of failures) {
    assert.throws(() => applyStrategicMergePatch(pod(), patch, podKind), (err: unknown) => {
      assert.ok(err instanceof PatchError, name);
      assert.equal(err.statusCode, statusCode, name);
      assert.equal(err.reason, reason, name);
      assert.ok(err.message.includes(fragment), `${name}: ${err.message}`);
      return true;
    }, name);
  }
});

test('property: without lists or directives, a strategic merge patch is a JSON merge patch', async () => {
  const fc = (await import('fast-check')).default;
  const { applyMergePatch } = await import('./merge-patch.ts');
  const key = fc.constantFrom('a', 'b', 'c');
  const tree = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string({ maxLength: 2 }), fc.constant(null), tie('object')),
    object: fc.dictionary(key, tie('value'), { maxKeys: 3, noNullPrototype: true }),
  })).object;
  fc.assert(fc.property(tree, tree, (doc, patch) => {
    const kind = { group: '', version: 'v1', kind: 'ConfigMap' };
    assert.deepEqual(applyStrategicMergePatch(doc, patch, kind), applyMergePatch(doc, patch));
  }));
});
