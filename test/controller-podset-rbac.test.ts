/**
 * The PodSet controller under RBAC, as it would run in a cluster: the embedded server authorizes with
 * RBAC, deploy/rbac.yaml is applied as is, and the controller authenticates with a TokenRequest token
 * of its ServiceAccount. It converges with exactly those permissions, and removing one it needs makes
 * its writes fail with the 403 kube-apiserver would answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Pod } from '../src/api/core/v1.ts';
import type { Role } from '../src/api/rbac/v1.ts';
import { parseAllDocuments } from 'yaml';
import { Registry } from 'prom-client';
import { RestClient } from '../src/rest/client.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { isForbidden } from '../src/apimachinery/errors.ts';
import { startApiServer } from '../src/testing/index.ts';
import { newListWatchFromClient } from '../src/tools/cache/listwatch.ts';
import { untilWithSync } from '../src/tools/watch/index.ts';
import { DemoRuntime } from '../src/demo/runtime.ts';
import { podSetCrd, podSetGroup, podSetKind, podSetResource, podSetVersion, type PodSet } from '../src/demo/podset.ts';
import { call } from './apiserver-helpers.ts';

const ns = 'kubeloom-demo';
const adminToken = 'admin-token';

const paths: Record<string, string> = {
  Namespace: '/api/v1/namespaces',
  ServiceAccount: `/api/v1/namespaces/${ns}/serviceaccounts`,
  Role: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
  RoleBinding: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
};

function podSet(name: string, replicas: number): PodSet {
  return {
    apiVersion: `${podSetGroup}/${podSetVersion}`,
    kind: podSetKind,
    metadata: { name, namespace: ns },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

test('the PodSet controller runs as its ServiceAccount with deploy/rbac.yaml, and fails with 403 once a needed rule is removed', async (t) => {
  const server = await startApiServer({ rbac: true, token: adminToken, tls: false });
  const admin = new RestClient({ host: server.url, bearerToken: adminToken, qps: -1 });
  t.after(async () => {
    await admin.close();
    await server.stop();
  });
  const headers = { authorization: `Bearer ${adminToken}` };
  assert.equal((await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers, body: podSetCrd })).status, 201);
  const manifests = parseAllDocuments(await readFile(new URL('../deploy/rbac.yaml', import.meta.url), 'utf8')).map((d) => d.toJSON() as { kind: string });
  for (const m of manifests) assert.equal((await call(server, 'POST', paths[m.kind]!, { headers, body: m })).status, 201, m.kind);
  const token = await call(server, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/podset-controller/token`, { headers, body: { spec: {} } });
  const rest = new RestClient({ host: server.url, bearerToken: token.body.status.token, qps: -1 });
  const errors: unknown[] = [];
  let reportFirst: (e: unknown) => void = () => {};
  const firstError = new Promise<unknown>((resolve) => (reportFirst = resolve));
  const runtime = new DemoRuntime({
    rest,
    namespace: ns,
    leaseNamespace: ns,
    registry: new Registry(),
    onError: (e) => {
      errors.push(e);
      reportFirst(e);
    },
  });
  runtime.start();
  t.after(async () => {
    await runtime.stop();
    await rest.close();
  });

  const pods = new ResourceClient<Pod>(admin, { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, namespace: ns });
  const podSets = new ResourceClient<PodSet>(admin, { group: podSetGroup, version: podSetVersion, resource: podSetResource, kind: podSetKind, namespaced: true, namespace: ns });
  const podsOf = async (app: string, count: number): Promise<void> => {
    const current = new Map<string, Pod>();
    const enough = (): boolean => [...current.values()].filter((p) => p.metadata?.labels?.app === app).length === count;
    await untilWithSync(
      newListWatchFromClient(pods),
      (e) => {
        if (e.type === 'DELETED') current.delete(e.object.metadata!.name!);
        else current.set(e.object.metadata!.name!, e.object);
        return enough();
      },
      {
        timeoutMs: 20_000,
        precondition: (store) => {
          for (const p of store.values()) current.set(p.metadata!.name!, p);
          return enough();
        },
      },
    );
  };

  // With the manifest's permissions: create pods, record events, hold the lease, finalize on delete.
  await podSets.create(podSet('web', 2));
  await podsOf('web', 2);
  await podSets.delete('web');
  await podsOf('web', 0);
  await untilWithSync(newListWatchFromClient(podSets), (e) => e.type === 'DELETED' && e.object.metadata?.name === 'web', { timeoutMs: 20_000, precondition: (store) => store.get(`${ns}/web`) === undefined });
  assert.deepEqual(errors, [], 'no reconcile error with the manifest as written');

  // Remove `create` on pods from the Role: the controller's creates are now forbidden.
  const role = (await call(server, 'GET', `${paths.Role}/podset-controller`, { headers })).body as Role;
  for (const r of role.rules ?? []) if ((r.resources ?? []).includes('pods')) r.verbs = r.verbs.filter((v) => v !== 'create');
  assert.equal((await call(server, 'PUT', `${paths.Role}/podset-controller`, { headers, body: role })).status, 200);
  await podSets.create(podSet('api', 1));
  const first = await firstError;
  assert.ok(isForbidden(first), `a 403, got ${String(first)}`);
  assert.match(String((first as Error).message), /pods is forbidden: User "system:serviceaccount:kubeloom-demo:podset-controller" cannot create resource "pods" in API group "" in the namespace "kubeloom-demo"/);
  assert.equal((await pods.list()).items.length, 0);
});
