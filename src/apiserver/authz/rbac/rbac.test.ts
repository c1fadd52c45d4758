import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../../../api/rbac/v1.ts';
import { userInfo, type UserInfo } from '../../authn/user.ts';
import type { Attributes } from '../request-info.ts';
import { forbidden } from '../authorizer.ts';
import { RbacAuthorizer } from './authorizer.ts';
import { confirmNoEscalation, covers } from './escalation.ts';
import { RuleResolver, type PolicySource } from './rule-resolver.ts';
import { ruleAllows } from './rules.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy.ts';

const rule = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]): PolicyRule => ({ apiGroups, resources, verbs, ...(resourceNames ? { resourceNames } : {}) });

function attrs(user: UserInfo, verb: string, resource: string, o: Partial<Attributes> = {}): Attributes {
  return { user, verb, resourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace: '', name: '', ...o };
}

const alice = userInfo('alice', { groups: ['dev', 'system:authenticated'] });

test('ruleAllows matches verbs, groups, resources, subresources, names and non-resource URLs as upstream', () => {
  const cases: Array<[PolicyRule, Partial<Attributes> & { verb: string; resource?: string }, boolean]> = [
    [rule([''], ['pods'], ['get']), { verb: 'get', resource: 'pods' }, true],
    [rule([''], ['pods'], ['get']), { verb: 'list', resource: 'pods' }, false],
    [rule([''], ['pods'], ['*']), { verb: 'deletecollection', resource: 'pods' }, true],
    [rule(['apps'], ['pods'], ['get']), { verb: 'get', resource: 'pods' }, false],
    [rule(['*'], ['pods'], ['get']), { verb: 'get', resource: 'pods', apiGroup: 'x.io' }, true],
    [rule([''], ['pods'], ['get']), { verb: 'get', resource: 'pods', subresource: 'log' }, false],
    [rule([''], ['pods/log'], ['get']), { verb: 'get', resource: 'pods', subresource: 'log' }, true],
    [rule([''], ['*/log'], ['get']), { verb: 'get', resource: 'pods', subresource: 'log' }, true],
    [rule([''], ['*/log'], ['get']), { verb: 'get', resource: 'pods' }, false],
    [rule([''], ['*'], ['get']), { verb: 'get', resource: 'pods', subresource: 'status' }, true],
    [rule([''], ['pods'], ['get'], ['a']), { verb: 'get', resource: 'pods', name: 'a' }, true],
    [rule([''], ['pods'], ['get'], ['a']), { verb: 'get', resource: 'pods', name: 'b' }, false],
    [rule([''], ['pods'], ['list'], ['a']), { verb: 'list', resource: 'pods' }, false],
    [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }, { verb: 'get', resourceRequest: false, path: '/healthz' }, true],
    [{ nonResourceURLs: ['/apis/*'], verbs: ['get'] }, { verb: 'get', resourceRequest: false, path: '/apis/apps/v1' }, true],
    [{ nonResourceURLs: ['/apis/*'], verbs: ['get'] }, { verb: 'get', resourceRequest: false, path: '/api' }, false],
    [{ nonResourceURLs: ['*'], verbs: ['*'] }, { verb: 'post', resourceRequest: false, path: '/x' }, true],
    [rule(['*'], ['*'], ['*']), { verb: 'get', resourceRequest: false, path: '/version' }, false],
  ];
  for (const [r, a, expected] of cases) {
    const full = attrs(alice, a.verb, a.resource ?? '', a);
    assert.equal(ruleAllows(full, r), expected, `${JSON.stringify(r)} ${JSON.stringify(a)}`);
  }
});

function source(o: { roles?: Role[]; clusterRoles?: ClusterRole[]; roleBindings?: RoleBinding[]; clusterRoleBindings?: ClusterRoleBinding[] }): PolicySource {
  return {
    getRole: (ns, name) => o.roles?.find((r) => r.metadata?.namespace === ns && r.metadata.name === name),
    getClusterRole: (name) => o.clusterRoles?.find((r) => r.metadata?.name === name),
    listRoleBindings: (ns) => (o.roleBindings ?? []).filter((b) => b.metadata?.namespace === ns),
    listClusterRoleBindings: () => o.clusterRoleBindings ?? [],
  };
}

const readPods: Role = { metadata: { name: 'read-pods', namespace: 'ns' }, rules: [rule([''], ['pods'], ['get', 'list', 'watch'])] };
const policy = source({
  roles: [readPods],
  clusterRoles: [{ metadata: { name: 'cm-reader' }, rules: [rule([''], ['configmaps'], ['get'])] }],
  roleBindings: [
    { metadata: { name: 'alice-pods', namespace: 'ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-pods' }, subjects: [{ kind: 'User', name: 'alice' }] },
    { metadata: { name: 'sa-pods', namespace: 'ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-pods' }, subjects: [{ kind: 'ServiceAccount', name: 'bot' }] },
    { metadata: { name: 'dangling', namespace: 'ns' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' }, subjects: [{ kind: 'Group', name: 'dev' }] },
  ],
  clusterRoleBindings: [{ metadata: { name: 'devs-cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' }, subjects: [{ kind: 'Group', name: 'dev' }] }],
});

test('RBAC allows by bindings to users, groups and ServiceAccounts, and explains denials with resolution errors', () => {
  const rbac = new RbacAuthorizer(new RuleResolver(policy));
  const bot = userInfo('system:serviceaccount:ns:bot', { groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'] });
  const bob = userInfo('bob', { groups: ['system:authenticated'] });
  assert.deepEqual(rbac.authorize(attrs(alice, 'list', 'pods', { namespace: 'ns' })), { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-pods/ns" of Role "read-pods" to User "alice"' });
  assert.deepEqual(rbac.authorize(attrs(alice, 'get', 'configmaps', { namespace: 'other', name: 'c' })), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "devs-cm" of ClusterRole "cm-reader" to Group "dev"' });
  assert.deepEqual(rbac.authorize(attrs(bot, 'watch', 'pods', { namespace: 'ns' })), { allowed: true, reason: 'RBAC: allowed by RoleBinding "sa-pods/ns" of Role "read-pods" to ServiceAccount "bot/ns"' });
  assert.deepEqual(rbac.authorize(attrs(bot, 'watch', 'pods', { namespace: 'other' })), { allowed: false, reason: '' });
  assert.deepEqual(rbac.authorize(attrs(alice, 'delete', 'pods', { namespace: 'ns', name: 'p' })), { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found' });
  assert.deepEqual(rbac.authorize(attrs(bob, 'list', 'pods', { namespace: 'ns' })), { allowed: false, reason: '' });
  const denied = forbidden(attrs(bob, 'list', 'pods', { namespace: 'ns' }), '');
  assert.deepEqual(denied.status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "ns"',
    reason: 'Forbidden',
    details: { kind: 'pods' },
    code: 403,
  });
  assert.equal(
    forbidden(attrs(alice, 'delete', 'pods', { namespace: 'ns', name: 'p' }), 'RBAC: role.rbac.authorization.k8s.io "gone" not found').status.message,
    'pods "p" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "ns": RBAC: role.rbac.authorization.k8s.io "gone" not found',
  );
  assert.equal(forbidden(attrs(bob, 'get', 'nodes', { subresource: 'proxy', name: 'n1' }), '').status.message, 'nodes "n1" is forbidden: User "bob" cannot get resource "nodes/proxy" in API group "" at the cluster scope');
  assert.equal(forbidden(attrs(bob, 'get', '', { resourceRequest: false, path: '/metrics' }), '').status.message, 'forbidden: User "bob" cannot get path "/metrics"');
  assert.deepEqual(rbac.rulesFor(alice, 'ns'), {
    resourceRules: [
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
    ],
    nonResourceRules: [],
    incomplete: false,
    evaluationError: 'role.rbac.authorization.k8s.io "gone" not found',
  });
});

test('covers and confirmNoEscalation list the permissions a writer lacks in upstream compact form', () => {
  const owner = [rule([''], ['pods', 'pods/*'], ['get', 'list']), rule(['apps'], ['*'], ['*']), { nonResourceURLs: ['/apis/*'], verbs: ['get'] }];
  assert.equal(covers(owner, [rule([''], ['pods'], ['get'])]).covered, true);
  // `pods/*` is no wildcard in RBAC; only `*/log` covers every resource's log.
  assert.equal(covers(owner, [rule([''], ['pods/log'], ['list'])]).covered, false);
  assert.equal(covers([rule([''], ['*/log'], ['list'])], [rule([''], ['pods/log'], ['list'])]).covered, true);
  assert.equal(covers(owner, [rule(['apps'], ['deployments/scale'], ['update'], ['d'])]).covered, true);
  assert.equal(covers(owner, [{ nonResourceURLs: ['/apis/apps'], verbs: ['get'] }]).covered, true);
  assert.equal(covers(owner, [{ nonResourceURLs: ['/api'], verbs: ['get'] }]).covered, false);
  assert.equal(covers([rule([''], ['pods'], ['get'], ['a'])], [rule([''], ['pods'], ['get'])]).covered, false);
  const resolver = new RuleResolver(policy);
  assert.equal(confirmNoEscalation(resolver, alice, 'other', [rule([''], ['configmaps'], ['get'])]), undefined);
  assert.equal(
    confirmNoEscalation(resolver, userInfo('alice', { groups: ['system:authenticated'] }), 'ns', [rule(['', 'apps'], ['pods', 'secrets'], ['get', 'create']), { nonResourceURLs: ['/x'], verbs: ['get'] }]),
    'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["pods"], Verbs:["create"]}\n' +
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "create"]}\n' +
      '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "create"]}\n' +
      '{APIGroups:["apps"], Resources:["secrets"], Verbs:["get" "create"]}\n' +
      '{NonResourceURLs:["/x"], Verbs:["get"]}',
  );
});

test('the bootstrap policy binds cluster-admin to system:masters and discovery to every user, and aggregates admin/edit/view', () => {
  const roles = bootstrapClusterRoles();
  const byName = new Map(roles.map((r) => [r.metadata!.name!, r]));
  assert.deepEqual(byName.get('cluster-admin')!.rules, [rule(['*'], ['*'], ['*']), { nonResourceURLs: ['*'], verbs: ['*'] }]);
  assert.deepEqual(byName.get('admin')!.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }] });
  assert.deepEqual(byName.get('admin')!.rules, []);
  assert.equal(byName.get('view')!.metadata!.labels!['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
  const bindings = bootstrapClusterRoleBindings();
  const subjects = Object.fromEntries(bindings.map((b) => [b.metadata!.name!, b.subjects!.map((s) => `${s.kind}:${s.name}`)]));
  assert.deepEqual(subjects['cluster-admin'], ['Group:system:masters']);
  assert.deepEqual(subjects['system:discovery'], ['Group:system:authenticated']);
  assert.deepEqual(subjects['system:public-info-viewer'], ['Group:system:authenticated', 'Group:system:unauthenticated']);
});
