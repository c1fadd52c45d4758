/**
 * The bootstrap RBAC policy kube-apiserver writes at start (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy/policy.go): the user-facing ClusterRoles (cluster-admin, and admin/edit/view
 * aggregated from the system:aggregate-to-* roles by their labels), the roles every user or the
 * anonymous user gets (system:discovery, system:basic-user, system:public-info-viewer) and a few
 * commonly bound ones (system:auth-delegator, system:monitoring,
 * system:service-account-issuer-discovery), with their ClusterRoleBindings. Rules as a v1.24 server
 * stores them. The roles of the components this server does not run (kubelets, controllers,
 * scheduler, kube-proxy, ...) are left out.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from '../../../api/rbac/v1.ts';

interface RoleSpec {
  name: string;
  labels?: Record<string, string>;
  /** Label keys (value "true") whose ClusterRoles this one aggregates. */
  aggregateFrom?: string[];
  rules?: PolicyRule[];
}

type Part = Partial<PolicyRule>;
const g = (...apiGroups: string[]): Part => ({ apiGroups });
const r = (...resources: string[]): Part => ({ resources });
const u = (...nonResourceURLs: string[]): Part => ({ nonResourceURLs });
const v = (...verbs: string[]): Part => ({ verbs });
const rule = (...parts: Part[]): PolicyRule => Object.assign({ verbs: [] }, ...parts) as PolicyRule;

const roles: readonly RoleSpec[] = [
  {
    name: 'cluster-admin',
    rules: [
      rule(g('*'), r('*'), v('*')),
      rule(u('*'), v('*')),
    ],
  },
  {
    name: 'admin',
    aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-admin'],
  },
  {
    name: 'edit',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
    aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-edit'],
  },
  {
    name: 'view',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    aggregateFrom: ['rbac.authorization.k8s.io/aggregate-to-view'],
  },
  {
    name: 'system:aggregate-to-admin',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
    rules: [
      rule(g('authorization.k8s.io'), r('localsubjectaccessreviews'), v('create')),
      rule(g('rbac.authorization.k8s.io'), r('rolebindings', 'roles'), v('create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch')),
    ],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    rules: [
      rule(g(''), r('pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'), v('get', 'list', 'watch')),
      rule(g(''), r('serviceaccounts'), v('impersonate')),
      rule(g(''), r('pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
      rule(g(''), r('pods/eviction'), v('create')),
      rule(g(''), r('configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
      rule(g(''), r('serviceaccounts/token'), v('create')),
      rule(g('apps'), r('daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
      rule(g('autoscaling'), r('horizontalpodautoscalers'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
      rule(g('batch'), r('cronjobs', 'jobs'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
      rule(g('extensions'), r('daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
      rule(g('policy'), r('poddisruptionbudgets'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
      rule(g('networking.k8s.io'), r('ingresses', 'networkpolicies'), v('create', 'delete', 'deletecollection', 'patch', 'update')),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
    rules: [
      rule(g(''), r('configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'), v('get', 'list', 'watch')),
      rule(g(''), r('bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status'), v('get', 'list', 'watch')),
      rule(g(''), r('namespaces'), v('get', 'list', 'watch')),
      rule(g('discovery.k8s.io'), r('endpointslices'), v('get', 'list', 'watch')),
      rule(g('apps'), r('controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status'), v('get', 'list', 'watch')),
      rule(g('autoscaling'), r('horizontalpodautoscalers', 'horizontalpodautoscalers/status'), v('get', 'list', 'watch')),
      rule(g('batch'), r('cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'), v('get', 'list', 'watch')),
      rule(g('extensions'), r('daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale'), v('get', 'list', 'watch')),
      rule(g('policy'), r('poddisruptionbudgets', 'poddisruptionbudgets/status'), v('get', 'list', 'watch')),
      rule(g('networking.k8s.io'), r('ingresses', 'ingresses/status', 'networkpolicies'), v('get', 'list', 'watch')),
    ],
  },
  {
    name: 'system:discovery',
    rules: [
      rule(u('/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'), v('get')),
    ],
  },
  {
    name: 'system:basic-user',
    rules: [
      rule(g('authorization.k8s.io'), r('selfsubjectaccessreviews', 'selfsubjectrulesreviews'), v('create')),
    ],
  },
  {
    name: 'system:public-info-viewer',
    rules: [
      rule(u('/healthz', '/livez', '/readyz', '/version', '/version/'), v('get')),
    ],
  },
  {
    name: 'system:auth-delegator',
    rules: [
      rule(g('authentication.k8s.io'), r('tokenreviews'), v('create')),
      rule(g('authorization.k8s.io'), r('subjectaccessreviews'), v('create')),
    ],
  },
  {
    name: 'system:monitoring',
    rules: [
      rule(u('/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/readyz', '/readyz/*'), v('get')),
    ],
  },
  {
    name: 'system:service-account-issuer-discovery',
    rules: [
      rule(u('/.well-known/openid-configuration', '/openid/v1/jwks'), v('get')),
    ],
  },
];

const bindings: ReadonlyArray<{ name: string; role: string; subjects: string[] }> = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: ['Group:system:masters'] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: ['Group:system:authenticated'] },
  { name: 'system:discovery', role: 'system:discovery', subjects: ['Group:system:authenticated'] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: ['Group:system:authenticated', 'Group:system:unauthenticated'] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: ['Group:system:monitoring'] },
  { name: 'system:service-account-issuer-discovery', role: 'system:service-account-issuer-discovery', subjects: ['Group:system:serviceaccounts'] },
];

// Every bootstrap object carries these (the autoupdate annotation lets kube-apiserver reconcile it at start).
const bootstrapLabels = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const bootstrapAnnotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

/** The bootstrap ClusterRoles (aggregated ones with empty rules: the aggregation controller fills them). */
export function bootstrapClusterRoles(): ClusterRole[] {
  return roles.map((s) => {
    const role: ClusterRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: s.name, labels: { ...bootstrapLabels, ...s.labels }, annotations: { ...bootstrapAnnotations } },
    };
    if (s.aggregateFrom !== undefined) role.aggregationRule = { clusterRoleSelectors: s.aggregateFrom.map((key) => ({ matchLabels: { [key]: 'true' } })) };
    role.rules = structuredClone(s.rules ?? []);
    return role;
  });
}

/** The bootstrap ClusterRoleBindings. */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return bindings.map((b) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: b.name, labels: { ...bootstrapLabels }, annotations: { ...bootstrapAnnotations } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: b.role },
    subjects: b.subjects.map((s): Subject => {
      const [kind, ...name] = s.split(':');
      return { apiGroup: 'rbac.authorization.k8s.io', kind: kind!, name: name.join(':') };
    }),
  }));
}
