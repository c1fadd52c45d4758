/**
 * RBAC enforcement: requests made as users, groups and service accounts with no or few permissions
 * (impersonated by the cluster admin with Impersonate-User and Impersonate-Group), answered 403 as
 * kube-apiserver words it for namespaced and cluster-scoped resources, named objects, subresources,
 * watches and non-resource URLs; a Role and RoleBinding granting a verb, after which the request is
 * allowed; and the escalation checks refusing a Role with more than its creator holds and a binding to
 * a role the creator cannot bind.
 *
 * Upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go
 * (forbiddenMessage), pkg/endpoints/filters/impersonation.go, plugin/pkg/auth/authorizer/rbac/rbac.go,
 * pkg/registry/rbac/role/policybased/storage.go, pkg/registry/rbac/validation/rule.go.
 */
import type { Scenario } from '../scenario.ts';
import { configMap, pod, role, roleBinding } from './objects.ts';

const alice = { 'Impersonate-User': 'fid-alice' };
const bob = { 'Impersonate-User': 'fid-bob', 'Impersonate-Group': 'fid-team' };
const sa = { 'Impersonate-User': 'system:serviceaccount:{{ns}}:default' };
const cms = '/api/v1/namespaces/{{ns}}/configmaps';
const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/{{ns}}';

/** A RoleBinding of `roleName` to one subject. */
function binding(name: string, roleName: string, subject: Record<string, string>): Record<string, unknown> {
  return { ...roleBinding(name, roleName), subjects: [subject] };
}

export const authz: Scenario[] = [
  {
    id: 'authz/forbidden-messages',
    title: 'Forbidden: every verb, scope and kind of request as a user with no permissions',
    steps: [
      { req: `POST ${cms}`, body: configMap('c1'), keep: 'status' },
      { req: 'POST /api/v1/namespaces/{{ns}}/pods', body: pod('p1'), keep: 'status' },
      { req: `GET ${cms}`, headers: alice },
      { req: `GET ${cms}/c1`, headers: alice },
      { req: `POST ${cms}`, body: configMap('c2'), headers: alice },
      { req: `PUT ${cms}/c1`, body: configMap('c1'), headers: alice },
      { req: `PATCH ${cms}/c1`, type: 'merge', body: { data: { a: '2' } }, headers: alice },
      { req: `DELETE ${cms}/c1`, headers: alice },
      { req: `DELETE ${cms}`, headers: alice },
      { req: `GET ${cms}?watch=true&timeoutSeconds=1`, headers: alice },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods/p1/status', headers: alice },
      { req: 'GET /api/v1/namespaces/{{ns}}/pods/p1/log', headers: alice },
      { req: 'GET /apis/apps/v1/deployments', headers: alice },
      { req: 'GET /apis/apps/v1/namespaces/{{ns}}/deployments/web/scale', headers: alice },
      { req: 'GET /api/v1/nodes/fid-node', headers: alice },
      { req: 'POST /api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fid-never-{{r}}' } }, headers: alice },
      { req: 'GET /api/v1/namespaces/{{ns}}', headers: alice },
      { req: 'GET /metrics', headers: alice },
      { req: 'GET /logs/', headers: alice },
      { req: 'GET /version', headers: alice, keep: 'status' },
      { req: 'GET /api', headers: alice, keep: 'status' },
    ],
  },
  {
    id: 'authz/groups-and-service-accounts',
    title: 'Forbidden messages for an impersonated group member and a service account; a binding to the group or the account allows the request',
    steps: [
      { req: `POST ${cms}`, body: configMap('c1'), keep: 'status' },
      { req: `GET ${cms}`, headers: bob },
      { req: `GET ${cms}`, headers: sa },
      { req: 'GET /apis/apps/v1/namespaces/{{ns}}/deployments', headers: sa },
      { req: `POST ${rbac}/roles`, body: role('reader'), keep: 'status' },
      { req: `POST ${rbac}/rolebindings`, body: binding('team', 'reader', { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'fid-team' }), keep: 'status' },
      { req: `POST ${rbac}/rolebindings`, body: binding('robot', 'reader', { kind: 'ServiceAccount', name: 'default', namespace: '{{ns}}' }), keep: 'status' },
      { req: `GET ${cms}`, headers: bob, until: 200, pick: ['items.*.metadata.name'] },
      { req: `GET ${cms}`, headers: sa, until: 200, pick: ['items.*.metadata.name'] },
      { req: `DELETE ${cms}/c1`, headers: bob },
      { req: `GET ${cms}`, headers: { 'Impersonate-User': 'fid-carol' } },
    ],
  },
  {
    id: 'authz/role-grants-verb',
    title: 'A Role and RoleBinding grant get and list: those requests are allowed, others still forbidden; resourceNames limit the grant',
    steps: [
      { req: `POST ${cms}`, body: configMap('c1'), keep: 'status' },
      { req: `POST ${cms}`, body: configMap('c2'), keep: 'status' },
      { req: `GET ${cms}/c1`, headers: alice },
      { req: `POST ${rbac}/roles`, body: role('reader'), keep: 'status' },
      { req: `POST ${rbac}/rolebindings`, body: binding('alice', 'reader', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'fid-alice' }), keep: 'status' },
      { req: `GET ${cms}/c1`, headers: alice, until: 200, pick: ['metadata.name', 'data'] },
      { req: `GET ${cms}`, headers: alice, pick: ['items.*.metadata.name'] },
      { req: `PATCH ${cms}/c1`, type: 'merge', body: { data: { a: '2' } }, headers: alice },
      { req: 'GET /api/v1/namespaces/{{ns}}/secrets', headers: alice },
      { req: `POST ${rbac}/roles`, body: role('editor', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['update', 'patch'], resourceNames: ['c2'] }]), keep: 'status' },
      { req: `POST ${rbac}/rolebindings`, body: binding('alice-edit', 'editor', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'fid-alice' }), keep: 'status' },
      { req: `PATCH ${cms}/c2`, type: 'merge', body: { data: { a: '2' } }, headers: alice, until: 200, pick: ['data'] },
      { req: `PATCH ${cms}/c1`, type: 'merge', body: { data: { a: '3' } }, headers: alice },
      { req: `GET ${cms}/c1`, headers: { 'Impersonate-User': 'fid-alice', 'Impersonate-Group': 'fid-other' }, pick: ['metadata.name'] },
    ],
  },
  {
    id: 'authz/escalation',
    title: 'RBAC escalation checks: creating a Role with permissions the creator lacks, binding a role the creator does not hold; allowed within its own permissions',
    steps: [
      { req: `POST ${rbac}/roles`, body: role('manager', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]), keep: 'status' },
      { req: `POST ${rbac}/roles`, body: role('big', [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]), keep: 'status' },
      { req: `POST ${rbac}/rolebindings`, body: binding('alice', 'manager', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'fid-alice' }), keep: 'status' },
      { req: `GET ${rbac}/roles/manager`, headers: alice, until: 200, keep: 'status' },
      { req: `POST ${rbac}/roles`, body: role('more', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'delete'] }, { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] }]), headers: alice },
      { req: `POST ${rbac}/roles`, body: role('same', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]), headers: alice, pick: ['metadata.name', 'rules'] },
      { req: `POST ${rbac}/rolebindings`, body: binding('to-big', 'big', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'fid-alice' }), headers: alice },
      { req: `POST ${rbac}/rolebindings`, body: binding('to-same', 'same', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'fid-dave' }), headers: alice, pick: ['metadata.name', 'roleRef', 'subjects'] },
      { req: `POST ${rbac}/rolebindings`, body: { ...binding('to-cluster', 'cluster-admin', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'fid-alice' }), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' } }, headers: alice },
    ],
  },
];
