/**
 * The deploy/ manifests: the CRD is the one the code installs, the RBAC grants exactly the verbs the
 * controller uses, the Deployment runs 2 replicas with leader election and probes, and the
 * manifests are accepted by the embedded API server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parse, parseAllDocuments } from 'yaml';
import type { Deployment } from '../src/api/apps/v1.ts';
import type { Role } from '../src/api/rbac/v1.ts';
import { RestClient } from '../src/rest/client.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { startApiServer } from '../src/testing/index.ts';
import { podSetCrd, type PodSet } from '../src/demo/podset.ts';

async function docs(file: string): Promise<{ kind?: string; metadata?: { name?: string; namespace?: string } }[]> {
  return parseAllDocuments(await readFile(new URL(`../deploy/${file}`, import.meta.url), 'utf8')).map((d) => d.toJSON() as { kind?: string });
}

test('deploy/crd.yaml is the CRD the demo installs', async () => {
  assert.deepEqual(parse(await readFile(new URL('../deploy/crd.yaml', import.meta.url), 'utf8')), podSetCrd);
});

test('deploy/rbac.yaml grants exactly the verbs the controller uses, in its namespace only', async () => {
  const all = await docs('rbac.yaml');
  assert.deepEqual(
    all.map((d) => d.kind),
    ['Namespace', 'ServiceAccount', 'Role', 'RoleBinding'],
    'namespaced Role, no ClusterRole',
  );
  const role = all.find((d) => d.kind === 'Role') as Role;
  const rules = (role.rules ?? []).map((r) => `${(r.apiGroups ?? []).join(',')}/${(r.resources ?? []).join(',')}: ${(r.verbs ?? []).join(',')}`);
  assert.deepEqual(rules, [
    'demo.kubeloom.dev/podsets: get,list,watch,update,patch',
    'demo.kubeloom.dev/podsets/status: update,patch',
    'demo.kubeloom.dev/podsets/finalizers: update',
    '/pods: get,list,watch,create,delete,patch',
    'events.k8s.io/events: create,patch',
    'coordination.k8s.io/leases: get,create,update',
  ]);
});

test('deploy/deployment.yaml runs 2 replicas with the service account, probes and the namespace for the Lease', async () => {
  const [deployment] = (await docs('deployment.yaml')) as Deployment[];
  assert.equal(deployment?.spec?.replicas, 2);
  const pod = deployment?.spec?.template.spec;
  assert.equal(pod?.serviceAccountName, 'podset-controller');
  const c = pod?.containers[0];
  assert.deepEqual(c?.args, ['demo', '--in-cluster', '--serve', '--metrics-port', '8080']);
  assert.equal(c?.livenessProbe?.httpGet?.path, '/healthz');
  assert.equal(c?.readinessProbe?.httpGet?.path, '/readyz');
  assert.equal(c?.env?.find((e) => e.name === 'POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath, 'metadata.namespace');
  const dockerfile = await readFile(new URL('../deploy/Dockerfile', import.meta.url), 'utf8');
  assert.match(dockerfile, /^FROM node:24-slim$/m);
  assert.match(dockerfile, /npm ci --omit=dev/);
});

test('the manifests are accepted by the API server, and the example PodSet is served', async (t) => {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  t.after(async () => {
    await rest.close();
    await server.stop();
  });
  const crds = new ResourceClient<unknown>(rest, { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
  await crds.create(parse(await readFile(new URL('../deploy/crd.yaml', import.meta.url), 'utf8')));
  const clients: Record<string, ResourceClient<unknown>> = {
    Namespace: new ResourceClient(rest, { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false }),
    ServiceAccount: new ResourceClient(rest, { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true }),
    Role: new ResourceClient(rest, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true }),
    RoleBinding: new ResourceClient(rest, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true }),
    Deployment: new ResourceClient(rest, { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true }),
    PodSet: new ResourceClient(rest, { group: 'demo.kubeloom.dev', version: 'v1alpha1', resource: 'podsets', kind: 'PodSet', namespaced: true }),
  };
  for (const file of ['rbac.yaml', 'deployment.yaml', 'podset-example.yaml']) {
    for (const doc of await docs(file)) {
      const client = clients[doc.kind ?? ''];
      assert.ok(client, `a client for ${doc.kind ?? '?'}`);
      await client.create(doc);
    }
  }
  const podSets = new ResourceClient<PodSet>(rest, { group: 'demo.kubeloom.dev', version: 'v1alpha1', resource: 'podsets', kind: 'PodSet', namespaced: true, namespace: 'kubeloom-demo' });
  assert.equal((await podSets.get('web')).spec?.replicas, 3);
});
