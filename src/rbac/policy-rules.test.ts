import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyRule } from '../api/rbac/v1.ts';
import { compactRules, diffRules, describeAtom, mergeRules, normalizeRules, ruleAtoms, rulesAgree } from './policy-rules.ts';

const atom = (apiGroup: string, resource: string, verb: string, resourceNames: string[] = []) => ({ apiGroup, resource, verb, resourceNames });

test('compactRules merges resources sharing a group and verbs, then groups sharing resources and verbs, and sorts everything', () => {
  const rules = compactRules([
    atom('apps', 'deployments', 'watch'),
    atom('apps', 'deployments', 'list'),
    atom('apps', 'statefulsets', 'list'),
    atom('apps', 'statefulsets', 'watch'),
    atom('', 'pods', 'list'),
    atom('', 'pods', 'watch'),
    atom('apps', 'deployments/status', 'update'),
    atom('batch', 'jobs', 'create'),
    atom('', 'events', 'create'),
    atom('batch', 'jobs', 'create'),
  ]);
  assert.deepEqual(rules, [
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
    { apiGroups: ['apps'], resources: ['deployments', 'statefulsets'], verbs: ['list', 'watch'] },
    { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['update'] },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create'] },
  ]);
  // Same resources and verbs in two groups: one rule with both groups (exact: the cross product is the atoms).
  assert.deepEqual(compactRules([atom('a.io', 'widgets', 'get'), atom('b.io', 'widgets', 'get')]), [{ apiGroups: ['a.io', 'b.io'], resources: ['widgets'], verbs: ['get'] }]);
});

test('compactRules never grants a combination that was not asked for', () => {
  const atoms = [atom('', 'pods', 'list'), atom('', 'secrets', 'get'), atom('apps', 'pods', 'get')];
  const rules = compactRules(atoms);
  assert.deepEqual(new Set(ruleAtoms(rules).map(describeAtom)), new Set(atoms.map(describeAtom)));
  assert.equal(rules.length, 3);
});

test('compactRules keeps resourceNames in rules of their own, and non-resource URLs grouped by verbs', () => {
  const rules = compactRules([atom('coordination.k8s.io', 'leases', 'get', ['lock']), atom('coordination.k8s.io', 'leases', 'update', ['lock']), atom('coordination.k8s.io', 'leases', 'create')], [
    { verb: 'get', url: '/metrics' },
    { verb: 'get', url: '/healthz' },
  ]);
  assert.deepEqual(rules, [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['lock'], verbs: ['get', 'update'] },
    { nonResourceURLs: ['/healthz', '/metrics'], verbs: ['get'] },
  ]);
});

test('normalizeRules and mergeRules give the same rules for the same permissions written differently', () => {
  const a: PolicyRule[] = [{ apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['watch', 'list', 'list'] }];
  const b: PolicyRule[] = [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  ];
  assert.deepEqual(normalizeRules(a), normalizeRules(b));
  assert.deepEqual(mergeRules(b.slice(0, 1), b.slice(1)), [{ apiGroups: [''], resources: ['configmaps', 'pods'], verbs: ['list', 'watch'] }]);
});

test('diffRules reports used-but-not-granted and granted-but-unused permissions, both sorted', () => {
  const granted: PolicyRule[] = [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'delete'] },
  ];
  const used: PolicyRule[] = [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] },
    { apiGroups: ['apps'], resources: ['deployments', 'deployments/status'], verbs: ['create', 'update'] },
  ];
  const d = diffRules(granted, used);
  assert.deepEqual(d.missing.map(describeAtom), ['update apps/deployments', 'create apps/deployments/status', 'update apps/deployments/status']);
  assert.deepEqual(d.unused.map(describeAtom), ['get configmaps', 'delete apps/deployments']);
  assert.equal(rulesAgree(d), false);
  assert.equal(rulesAgree(diffRules(used, used)), true);
});

test('diffRules: a granted wildcard covers what is used yet is itself reported unused; names narrow a grant', () => {
  const d = diffRules([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get'] }]);
  assert.deepEqual(d.missing, []);
  assert.deepEqual(d.unused.map(describeAtom), ['* */*']);
  const sub = diffRules([{ apiGroups: [''], resources: ['*/status'], verbs: ['update'] }], [{ apiGroups: [''], resources: ['pods/status'], verbs: ['update'] }]);
  assert.deepEqual(sub.missing, []);
  const named = diffRules([{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }], [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] },
  ]);
  assert.deepEqual(named.missing.map(describeAtom), ['get configmaps']);
  assert.deepEqual(named.unused, []);
});

test('diffRules compares non-resource URLs by RBAC matching (prefix stars)', () => {
  const d = diffRules([{ nonResourceURLs: ['/healthz*'], verbs: ['get'] }], [{ nonResourceURLs: ['/healthz/ready', '/metrics'], verbs: ['get'] }]);
  assert.deepEqual(d.missingNonResource, [{ verb: 'get', url: '/metrics' }]);
  assert.deepEqual(d.unusedNonResource, [{ verb: 'get', url: '/healthz*' }]);
});
