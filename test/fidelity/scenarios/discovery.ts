/**
 * Discovery, OpenAPI v2 and v3, `kubectl explain`, `kubectl api-resources`, and authorization reviews
 * (`kubectl auth can-i`, SelfSubjectAccessReview, SelfSubjectRulesReview).
 */
import type { Scenario } from '../scenario.ts';
import { widgetCrd } from './objects.ts';

/** The entries of an APIResourceList for the named resources (and its list of names). */
function resources(names: string[]): string[] {
  return ['kind', 'apiVersion', 'groupVersion', ...names.map((n) => `resources.[name=${n}]`)];
}

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export const discovery: Scenario[] = [
  {
    id: 'discovery/api-versions',
    title: '/api: APIVersions with the server address',
    namespace: false,
    steps: [{ req: 'GET /api' }],
  },
  {
    id: 'discovery/core-v1-resources',
    title: '/api/v1: entries of configmaps, pods (and subresources), namespaces, services, secrets, serviceaccounts',
    namespace: false,
    steps: [
      { req: 'GET /api/v1', pick: resources(['configmaps', 'pods', 'pods/status', 'pods/log', 'namespaces', 'namespaces/status', 'namespaces/finalize', 'services', 'secrets', 'serviceaccounts', 'serviceaccounts/token', 'nodes', 'events', 'endpoints', 'persistentvolumeclaims', 'resourcequotas']) },
      { req: 'GET /api/v1', pick: ['resources.[].name'] },
    ],
  },
  {
    id: 'discovery/groups',
    title: '/apis: the groups the embedded server serves, with versions and preferred versions',
    namespace: false,
    steps: [
      { req: 'GET /apis', pick: ['kind', 'apiVersion', ...['apps', 'batch', 'rbac.authorization.k8s.io', 'apiextensions.k8s.io', 'coordination.k8s.io', 'events.k8s.io', 'policy', 'scheduling.k8s.io', 'networking.k8s.io', 'authorization.k8s.io', 'authentication.k8s.io'].map((g) => `groups.[name=${g}]`)] },
      { req: 'GET /apis/apps' },
      { req: 'GET /apis/batch' },
      { req: 'GET /apis/rbac.authorization.k8s.io' },
      { req: 'GET /apis/nonexistent.example.com' },
      { req: 'GET /apis/apps/v1beta9' },
    ],
  },
  {
    id: 'discovery/apps-v1',
    title: '/apis/apps/v1: every resource entry (verbs, shortNames, categories, subresources)',
    namespace: false,
    steps: [
      { req: 'GET /apis/apps/v1', pick: resources(['deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale', 'daemonsets', 'daemonsets/status']) },
      { req: 'GET /apis/apps/v1', pick: ['resources.[].name'] },
    ],
  },
  {
    id: 'discovery/batch-rbac-v1',
    title: '/apis/batch/v1 and /apis/rbac.authorization.k8s.io/v1',
    namespace: false,
    steps: [{ req: 'GET /apis/batch/v1' }, { req: 'GET /apis/rbac.authorization.k8s.io/v1' }, { req: 'GET /apis/policy/v1' }, { req: 'GET /apis/scheduling.k8s.io/v1' }, { req: 'GET /apis/networking.k8s.io/v1', pick: resources(['ingresses', 'ingresses/status']) }],
  },
  {
    id: 'discovery/crd-group',
    title: 'A CRD adds its group to /apis and its resource list (verbs, shortNames, status subresource)',
    namespace: false,
    // The hash covers the group, which carries the scenario's random token.
    maskKeys: ['storageVersionHash'],
    steps: [
      { req: `POST ${crds}`, body: widgetCrd({ status: true, scale: true }), keep: 'status' },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test/v1', until: 200 },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test' },
    ],
    cleanup: [{ req: `DELETE ${crds}/widgets.{{r}}.fidelity.kubeloom.test` }],
  },
  {
    id: 'discovery/version',
    title: '/version has the fields clients read',
    namespace: false,
    steps: [{ req: 'GET /version', pick: ['major', 'minor'] }],
  },
  {
    id: 'discovery/kubectl-api-resources',
    title: 'kubectl api-resources for the apps and rbac groups, and api-versions',
    namespace: false,
    alone: true,
    steps: [
      { kubectl: 'api-resources --api-group=apps' },
      { kubectl: 'api-resources --api-group=rbac.authorization.k8s.io -o wide' },
      { kubectl: 'api-resources --api-group=batch --namespaced=true -o name' },
    ],
  },
  {
    id: 'discovery/unknown-paths',
    title: 'Unknown resources and paths are 404 with the generic message; a non-GET on discovery is 405',
    steps: [
      { req: 'GET /api/v1/namespaces/{{ns}}/widgets' },
      { req: 'GET /apis/apps/v1/namespaces/{{ns}}/deployments/x/logs' },
      { req: 'GET /nonsense' },
      { req: 'POST /api/v1', body: {} },
      { req: 'GET /api/v2' },
    ],
  },
  {
    id: 'openapi/v2',
    title: 'OpenAPI v2: the document has definitions for built-in kinds with their GVK',
    namespace: false,
    steps: [
      { req: 'GET /openapi/v2', accept: 'application/json', pick: ['swagger', 'info.title', 'definitions.io\\.k8s\\.api\\.core\\.v1\\.ConfigMap'] },
    ],
  },
  {
    id: 'openapi/v3-root',
    title: 'OpenAPI v3: the root lists group-versions with hashed URLs',
    namespace: false,
    steps: [{ req: 'GET /openapi/v3', pick: ['paths.api/v1', 'paths.apis/apps/v1', 'paths.apis/batch/v1'] }],
  },
  {
    id: 'openapi/v3-group-version',
    title: 'OpenAPI v3 of apps/v1: the Deployment schema and one path operation',
    namespace: false,
    steps: [
      {
        req: 'GET /openapi/v3/apis/apps/v1',
        pick: ['openapi', 'components.schemas.io\\.k8s\\.api\\.apps\\.v1\\.DeploymentSpec', 'paths./apis/apps/v1/namespaces/{namespace}/deployments/{name}.patch.parameters'],
      },
      { req: 'GET /openapi/v3/apis/apps/v9' },
    ],
  },
  {
    id: 'openapi/kubectl-explain-builtin',
    title: 'kubectl explain for built-in kinds and fields',
    namespace: false,
    steps: [
      { kubectl: 'explain configmap' },
      { kubectl: 'explain deployment.spec.replicas' },
      { kubectl: 'explain pods.spec.containers.ports' },
      { kubectl: 'explain nosuchthing' },
    ],
  },
  {
    id: 'openapi/kubectl-explain-crd',
    title: 'kubectl explain of a custom resource, from its CRD schema',
    namespace: false,
    steps: [
      { req: `POST ${crds}`, body: widgetCrd(), keep: 'status' },
      { req: 'GET /apis/{{r}}.fidelity.kubeloom.test/v1', until: 200, keep: 'status' },
      { req: 'GET /openapi/v3', pick: ['paths.apis/{{r}}.fidelity.kubeloom.test/v1'] },
      { kubectl: 'explain widgets.{{r}}.fidelity.kubeloom.test' },
      { kubectl: 'explain widgets.{{r}}.fidelity.kubeloom.test.spec.size' },
    ],
    cleanup: [{ req: `DELETE ${crds}/widgets.{{r}}.fidelity.kubeloom.test` }],
  },
  {
    id: 'auth/kubectl-can-i',
    title: 'kubectl auth can-i for an admin: resources, subresources, non-resource URLs, unknown resources',
    steps: [
      { kubectl: 'auth can-i create pods' },
      { kubectl: 'auth can-i get pods/log' },
      { kubectl: 'auth can-i delete deployments.apps --all-namespaces' },
      { kubectl: 'auth can-i get /healthz' },
      { kubectl: 'auth can-i frobnicate nosuchthings' },
    ],
  },
  {
    id: 'auth/self-subject-access-review',
    title: 'SelfSubjectAccessReview: allowed for the admin, echoing the spec; invalid with both attributes',
    steps: [
      {
        req: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: '{{ns}}', verb: 'create', resource: 'pods' } } },
        pick: ['kind', 'apiVersion', 'metadata', 'spec', 'status.allowed', 'status.denied'],
      },
      {
        req: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' }, nonResourceAttributes: { path: '/x', verb: 'get' } } },
      },
      { req: 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews', body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {} } },
      { req: 'GET /apis/authorization.k8s.io/v1/selfsubjectaccessreviews' },
    ],
  },
  {
    id: 'auth/self-subject-rules-review',
    title: 'SelfSubjectRulesReview: the admin may do everything',
    steps: [
      {
        req: 'POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: '{{ns}}' } },
        // The rules come in the order of the bindings that grant them: pick the one that grants everything.
        pick: ['kind', 'apiVersion', 'spec', 'status.incomplete', 'status.resourceRules.[verbs=*]', 'status.nonResourceRules.[verbs=*]'],
      },
      { kubectl: 'auth can-i --list' },
    ],
  },
];
