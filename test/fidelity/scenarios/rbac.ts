/**
 * rbac.authorization.k8s.io/v1: Roles, ClusterRoles, RoleBindings, ClusterRoleBindings — every verb,
 * create-on-update, validation, and the immutable roleRef.
 */
import type { Scenario } from '../scenario.ts';
import { clusterRole, role, roleBinding } from './objects.ts';

const rbac = '/apis/rbac.authorization.k8s.io/v1';

export const rbacScenarios: Scenario[] = [
  {
    id: 'rbac/role-verbs',
    title: 'Role: create, get, list, update, patch, delete (Status answer)',
    steps: [
      { req: `POST ${rbac}/namespaces/{{ns}}/roles`, body: role('reader'), save: { rv: 'metadata.resourceVersion' } },
      { req: `GET ${rbac}/namespaces/{{ns}}/roles`, pick: ['kind', 'apiVersion', 'items.*.metadata.name'] },
      { req: `PUT ${rbac}/namespaces/{{ns}}/roles/reader`, body: { ...role('reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]), metadata: { name: 'reader', resourceVersion: '{{rv}}' } }, pick: ['rules', 'metadata.generation'] },
      { req: `PATCH ${rbac}/namespaces/{{ns}}/roles/reader`, type: 'json', body: [{ op: 'add', path: '/rules/-', value: { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] } }], pick: ['rules'] },
      { req: `DELETE ${rbac}/namespaces/{{ns}}/roles/reader` },
    ],
  },
  {
    id: 'rbac/put-creates',
    title: 'RBAC objects are created by PUT (AllowCreateOnUpdate), ConfigMaps are not',
    steps: [
      { req: `PUT ${rbac}/namespaces/{{ns}}/roles/made`, body: role('made'), pick: ['metadata.name', 'rules'] },
      { req: `PUT ${rbac}/namespaces/{{ns}}/rolebindings/made`, body: roleBinding('made', 'made'), pick: ['metadata.name', 'roleRef', 'subjects'] },
    ],
  },
  {
    id: 'rbac/role-validation',
    title: 'Role validation: a rule without verbs, a rule without resources, nonResourceURLs in a Role',
    steps: [
      { req: `POST ${rbac}/namespaces/{{ns}}/roles`, body: role('a', [{ apiGroups: [''], resources: ['pods'], verbs: [] }]) },
      { req: `POST ${rbac}/namespaces/{{ns}}/roles`, body: role('b', [{ apiGroups: [''], verbs: ['get'] }]) },
      { req: `POST ${rbac}/namespaces/{{ns}}/roles`, body: role('c', [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]) },
    ],
  },
  {
    id: 'rbac/rolebinding-roleref-immutable',
    title: 'RoleBinding: create, roleRef cannot change, missing roleRef name is invalid',
    steps: [
      { req: `POST ${rbac}/namespaces/{{ns}}/roles`, body: role('reader'), keep: 'status' },
      { req: `POST ${rbac}/namespaces/{{ns}}/rolebindings`, body: roleBinding('rb', 'reader') },
      { req: `PATCH ${rbac}/namespaces/{{ns}}/rolebindings/rb`, type: 'merge', body: { roleRef: { name: 'other' } } },
      { req: `POST ${rbac}/namespaces/{{ns}}/rolebindings`, body: { ...roleBinding('bad', ''), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: '' } } },
      { req: `POST ${rbac}/namespaces/{{ns}}/rolebindings`, body: { ...roleBinding('bad2', 'x'), subjects: [{ kind: 'User' }] } },
    ],
  },
  {
    id: 'rbac/clusterrole-verbs',
    title: 'ClusterRole and ClusterRoleBinding: cluster-scoped create, get, patch, delete',
    namespace: false,
    steps: [
      { req: `POST ${rbac}/clusterroles`, body: clusterRole('fid-cr-{{r}}'), pick: ['metadata.name', 'rules'] },
      {
        req: `POST ${rbac}/clusterrolebindings`,
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'fid-crb-{{r}}' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fid-cr-{{r}}' }, subjects: [{ kind: 'Group', name: 'fid-group', apiGroup: 'rbac.authorization.k8s.io' }] },
        pick: ['metadata.name', 'roleRef', 'subjects'],
      },
      { req: `PATCH ${rbac}/clusterroles/fid-cr-{{r}}`, type: 'merge', body: { metadata: { labels: { fid: '{{r}}' } } }, pick: ['metadata.labels'] },
      { req: `GET ${rbac}/clusterroles?labelSelector=fid%3D{{r}}`, pick: ['kind', 'items.*.metadata.name'] },
      { req: `GET ${rbac}/namespaces/default/clusterroles/fid-cr-{{r}}` },
      { req: `DELETE ${rbac}/clusterrolebindings/fid-crb-{{r}}` },
      { req: `DELETE ${rbac}/clusterroles/fid-cr-{{r}}` },
    ],
    cleanup: [{ req: `DELETE ${rbac}/clusterrolebindings/fid-crb-{{r}}` }, { req: `DELETE ${rbac}/clusterroles/fid-cr-{{r}}` }],
  },
  {
    id: 'rbac/aggregated-clusterrole',
    title: 'ClusterRole with an aggregationRule is stored with its selectors',
    namespace: false,
    steps: [
      {
        req: `POST ${rbac}/clusterroles`,
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'fid-agg-{{r}}' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'fid-agg': '{{r}}' } }] } },
        pick: ['metadata.name', 'aggregationRule', 'rules'],
      },
    ],
    cleanup: [{ req: `DELETE ${rbac}/clusterroles/fid-agg-{{r}}` }],
  },
];
