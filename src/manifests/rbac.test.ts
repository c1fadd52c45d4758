import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kinds } from '../client/kinds.ts';
import { defineCustomResource } from '../kubernetes/resource-spec.ts';
import type { ControllerRegistration } from '../builder/registrations.ts';
import { ManifestError } from './errors.ts';
import { controllerRules, managerRole, normalizeRules } from './rbac.ts';

const widgets = defineCustomResource({ group: 'apps.example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, subresources: ['status'] });
const controller = (c: Partial<ControllerRegistration>): ControllerRegistration => ({ name: 'c', for: undefined, owns: [], watches: [], finalizer: false, rbac: [], ...c });

test('normalizeRules unions verbs per group and resource, merges resources with equal verbs, sorts everything', () => {
  const rules = normalizeRules([
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['watch', 'get'] },
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'get'] },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
    { apiGroups: ['', 'batch'], resources: ['jobs'], verbs: ['create'] },
  ]);
  assert.deepEqual(rules, [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    { apiGroups: [''], resources: ['jobs'], verbs: ['create'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    { apiGroups: ['apps'], resources: ['deployments', 'statefulsets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create'] },
  ]);
  // Order of the input does not matter.
  assert.deepEqual(normalizeRules([...rules].reverse()), rules);
});

test('normalizeRules keeps rules with resourceNames apart and non-resource URLs last', () => {
  assert.deepEqual(
    normalizeRules([
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['b', 'a'], verbs: ['get'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ]),
    [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      { apiGroups: [''], resourceNames: ['a', 'b'], resources: ['configmaps'], verbs: ['get'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ],
  );
});

test('normalizeRules refuses wildcards: the role names the kinds it grants', () => {
  for (const rule of [{ apiGroups: ['*'], resources: ['pods'], verbs: ['get'] }, { apiGroups: [''], resources: ['*'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods'], verbs: ['*'] }]) {
    assert.throws(() => normalizeRules([rule]), (err: unknown) => err instanceof ManifestError && err.code === 'ERR_MANIFESTS' && /wildcard/.test(err.message));
  }
});

test('a controller gets read access to for/watches kinds, write access to owned kinds, status and finalizers of its kind, events, and its declared rules', () => {
  const c = controller({
    for: widgets,
    owns: [kinds.appsV1.deployments],
    watches: [kinds.coreV1.configMaps],
    rbac: [{ kind: kinds.coreV1.secrets, verbs: ['get'] }, { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] }],
  });
  assert.deepEqual(managerRole([c]).rules, [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
    { apiGroups: ['apps.example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps.example.com'], resources: ['widgets/finalizers'], verbs: ['update'] },
    { apiGroups: ['apps.example.com'], resources: ['widgets/status'], verbs: ['get', 'patch', 'update'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] },
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ]);
});

test('a finalizer controller may update and patch its kind; without owns or a finalizer no finalizers rule', () => {
  const withFinalizer = normalizeRules(controllerRules(controller({ for: kinds.coreV1.configMaps, finalizer: true })));
  assert.deepEqual(withFinalizer.filter((r) => r.apiGroups?.[0] === ''), [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'patch', 'update', 'watch'] }, { apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'] }]);
  const plain = normalizeRules(controllerRules(controller({ for: kinds.coreV1.configMaps })));
  assert.deepEqual(plain.filter((r) => r.apiGroups?.[0] === ''), [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }]);
});
