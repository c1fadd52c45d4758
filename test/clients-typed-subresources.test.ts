import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { PatchType } from '../src/apimachinery/options.ts';
import { isNotFound } from '../src/apimachinery/errors.ts';
import type { RestConfig } from '../src/rest/index.ts';
import { builtinGroupVersions, newClientset, subresourceMethodNames, type Clientset } from '../src/kubernetes/index.ts';
import { Capability, e2eTest } from './support/backend.ts';
import type { Deployment } from '../src/api/apps/v1.ts';
import type { Pod } from '../src/api/core/v1.ts';

const deployment = (name: string, namespace: string, replicas = 1): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

const pod = (name: string, namespace: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

test('every built-in subresource gets its methods, named by one rule', () => {
  const cs = newClientset({ host: 'http://127.0.0.1:1' });
  const pods = cs.coreV1().pods('ns') as unknown as Record<string, unknown>;
  for (const m of ['getStatus', 'updateStatus', 'patchStatus', 'applyStatus', 'createEviction', 'createBinding', 'getLog', 'getEphemeralContainers', 'updateEphemeralContainers', 'patchEphemeralContainers', 'getResize', 'updateResize']) {
    assert.equal(typeof pods[m], 'function', m);
  }
  assert.equal(pods['getExec'], undefined, 'connect subresources have no method');
  const specs = new Map(builtinGroupVersions.flatMap((gv) => gv.resources.map((r) => [`${gv.group}/${gv.version}/${r.resource}`, r] as const)));
  assert.deepEqual(subresourceMethodNames(specs.get('apps/v1/deployments')!.subresources.find((s) => s.name === 'scale')!), ['getScale', 'patchScale', 'applyScale', 'updateScale']);
  assert.deepEqual(subresourceMethodNames(specs.get('/v1/serviceaccounts')!.subresources.find((s) => s.name === 'token')!), ['createToken']);
  assert.deepEqual(subresourceMethodNames(specs.get('certificates.k8s.io/v1/certificatesigningrequests')!.subresources.find((s) => s.name === 'approval')!), ['getApproval', 'patchApproval', 'applyApproval', 'updateApproval']);
  assert.deepEqual(subresourceMethodNames(specs.get('/v1/namespaces')!.subresources.find((s) => s.name === 'finalize')!), ['updateFinalize']);
  const reviews = cs.authenticationV1().tokenReviews() as unknown as Record<string, unknown>;
  assert.equal(typeof reviews['create'], 'function');
  // Never called: a create-only resource's client has no other verbs (checked by tsc).
  const _mistakes = (): void => {
    // @ts-expect-error tokenreviews only serve create
    void cs.authenticationV1().tokenReviews().list();
    // @ts-expect-error the eviction body is a policy/v1 Eviction, not a Pod
    void cs.coreV1().pods('ns').createEviction('p', pod('p', 'ns'));
  };
  void _mistakes;
});

async function withEmbedded(fn: (cs: Clientset, s: ApiServer) => Promise<void>): Promise<void> {
  const s = await startApiServer();
  const config: RestConfig = { host: s.url, qps: -1 };
  const cs = newClientset(config);
  try {
    await cs.coreV1().namespaces().create({ metadata: { name: 'ns' } });
    await fn(cs, s);
  } finally {
    await cs.close();
    await s.stop();
  }
}

test('status and scale subresources through the typed client (embedded API server)', async () => {
  await withEmbedded(async (cs) => {
    const deps = cs.appsV1().deployments('ns');
    await deps.create(deployment('web', 'ns', 2));
    const scale = await deps.getScale('web');
    assert.equal(scale.spec?.replicas, 2);
    assert.equal(scale.kind, 'Scale');
    const updated = await deps.updateScale('web', { ...scale, spec: { replicas: 4 } });
    assert.equal(updated.spec?.replicas, 4);
    assert.equal((await deps.get('web')).spec?.replicas, 4);
    const patched = await deps.patchScale('web', PatchType.Merge, { spec: { replicas: 5 } });
    assert.equal(patched.spec?.replicas, 5);
    // Server-side apply to /scale: checked against the real API server below (the embedded one
    // does not take apply patches on scale yet).
    await deps.updateScale('web', { ...patched, spec: { replicas: 6 } });

    const withStatus = await deps.getStatus('web');
    const st = await deps.updateStatus({ ...withStatus, status: { observedGeneration: 3, replicas: 6 } });
    assert.equal(st.status?.observedGeneration, 3);
    const ps = await deps.patchStatus('web', PatchType.Merge, { status: { readyReplicas: 1 } });
    assert.equal(ps.status?.readyReplicas, 1);
    assert.equal(ps.spec?.replicas, 6, 'status writes leave spec alone');
  });
});

test('pods/log through getLog (embedded API server)', async () => {
  await withEmbedded(async (cs, s) => {
    const pods = cs.coreV1().pods('ns');
    await pods.create(pod('p', 'ns'));
    assert.equal(typeof (await pods.getLog('p', { container: 'c', tailLines: 10 })), 'string');
    await assert.rejects(pods.getLog('missing'), (e) => isNotFound(e));
    void s;
  });
});

test('pods/binding and namespaces/finalize through the typed client (embedded API server)', async () => {
  await withEmbedded(async (cs) => {
    const pods = cs.coreV1().pods('ns');
    await pods.create(pod('bind-me', 'ns'));
    await pods.createBinding('bind-me', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me', namespace: 'ns' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } });
    assert.equal((await pods.get('bind-me')).spec?.nodeName, 'node-a');
    const namespaces = cs.coreV1().namespaces();
    await namespaces.delete('ns');
    const fin = await namespaces.updateFinalize({ ...(await namespaces.get('ns')), spec: { finalizers: [] } });
    assert.deepEqual(fin.spec?.finalizers ?? [], []);
    await assert.rejects(namespaces.get('ns'), (e) => isNotFound(e));
  });
});

/*
 * The subresources on both backends, as kube-apiserver v1.24 answers them. Those the embedded server
 * does not serve (pods/eviction, pods/ephemeralcontainers, certificatesigningrequests/approval, apply to
 * /scale) need a capability only a real cluster has and run in `npm run test:real` only. pods/resize is
 * Kubernetes 1.33+ and not checked against the 1.24 server.
 */

e2eTest('pods/binding sets the node; serviceaccounts/token issues a token for the audience asked for', async ({ cs, namespace }) => {
  const pods = cs.coreV1().pods(namespace);
  await pods.create(pod('bind-me', namespace));
  await pods.createBinding('bind-me', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me', namespace }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' } });
  assert.equal((await pods.get('bind-me')).spec?.nodeName, 'node-a');
  const sas = cs.coreV1().serviceAccounts(namespace);
  await sas.create({ metadata: { name: 'robot' } });
  const token = await sas.createToken('robot', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['kubeloom'], expirationSeconds: 600 } });
  assert.ok((token.status?.token ?? '').length > 20);
  assert.deepEqual(token.spec?.audiences, ['kubeloom']);
});

e2eTest('namespaces/finalize of a live namespace: empty finalizers are not stored (spec {}), the namespace stays Active', async ({ cs, namespace }) => {
  const namespaces = cs.coreV1().namespaces();
  const fin = await namespaces.updateFinalize({ ...(await namespaces.get(namespace)), spec: { finalizers: [] } });
  assert.deepEqual(fin.spec, {});
  assert.equal((await namespaces.get(namespace)).status?.phase, 'Active');
});

e2eTest('an apply of a pod may leave out a list-map key that has a default (ContainerPort.protocol)', async ({ cs, namespace }) => {
  const applied = await cs.coreV1().pods(namespace).apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'applied', namespace }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } }, { fieldManager: 'test' });
  assert.deepEqual(applied.spec?.containers[0]?.ports, [{ containerPort: 80, protocol: 'TCP' }]);
});

e2eTest('pods/ephemeralcontainers adds a container; pods/eviction removes the pod', { needs: [Capability.PodSubresources] }, async ({ cs, namespace }) => {
  const pods = cs.coreV1().pods(namespace);
  await pods.create(pod('debug-me', namespace));
  const withEphemeral = await pods.getEphemeralContainers('debug-me');
  withEphemeral.spec!.ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
  const ec = await pods.updateEphemeralContainers(withEphemeral);
  assert.deepEqual(ec.spec?.ephemeralContainers?.map((c) => c.name), ['debug']);
  await pods.create(pod('evict-me', namespace));
  await pods.createEviction('evict-me', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evict-me', namespace } });
  await assert.rejects(pods.get('evict-me'), (e) => isNotFound(e));
});

e2eTest('certificatesigningrequests/approval records the Approved condition', { needs: [Capability.CertificateApproval] }, async (env) => {
  const csrs = env.cs.certificatesV1().certificateSigningRequests();
  const csrPem = await readFile(new URL('./fixtures/csr.pem', import.meta.url), 'utf8');
  const name = env.uniqueName('kl-csr');
  await csrs.create({ metadata: { name }, spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'example.com/signer', usages: ['digital signature'] } });
  env.defer(async () => {
    await csrs.delete(name).catch(() => undefined);
  });
  const csr = await csrs.get(name);
  csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] };
  const approved = await csrs.updateApproval(csr);
  assert.equal(approved.status?.conditions?.[0]?.type, 'Approved');
});

e2eTest('server-side apply to deployments/scale sets the replicas', { needs: [Capability.ScaleApply] }, async ({ cs, namespace }) => {
  const deps = cs.appsV1().deployments(namespace);
  await deps.create(deployment('web', namespace, 2));
  const applied = await deps.applyScale('web', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace }, spec: { replicas: 6 } }, { fieldManager: 'scaler', force: true });
  assert.equal(applied.spec?.replicas, 6);
  assert.equal((await deps.get('web')).spec?.replicas, 6);
});
