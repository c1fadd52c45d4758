/**
 * A client we did not write — kubectl — against the embedded API server: discovery, tables, YAML/JSON
 * output, watch, create, server-side apply (with conflicts), every patch type, label and delete.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, type Json } from './apiserver-helpers.ts';

const run = promisify(execFile);

async function findKubectl(): Promise<string | undefined> {
  for (const candidate of [process.env.KUBECTL, 'kubectl', '/usr/bin/kubectl', '/usr/local/bin/kubectl']) {
    if (candidate === undefined || candidate === '') continue;
    try {
      await run(candidate, ['version', '--client'], { timeout: 20_000 });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

const kubectl = await findKubectl();
let server: ApiServer;
let dir: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  if (kubectl === undefined) return;
  server = await startApiServer();
  dir = await mkdtemp(join(tmpdir(), 'kubeloom-kubectl-'));
  await server.writeKubeconfig(join(dir, 'kubeconfig'));
  env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
});

after(async () => {
  if (kubectl === undefined) return;
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs kubectl; resolves with its output even when it exits non-zero. */
async function k(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(kubectl!, [...args, '--cache-dir', join(dir, 'cache')], { env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function ok(...args: string[]): Promise<string> {
  const r = await k(...args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

const podYaml = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
  - name: nginx
    image: nginx:1.25
`;

function deploymentYaml(replicas: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: api
        image: example/api:1
`;
}

test('kubectl api-resources lists the served resources', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  const out = await ok('api-resources');
  const rows = out.split('\n').map((l) => l.split(/\s+/));
  assert.deepEqual(rows.find((r) => r[0] === 'deployments'), ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
  assert.deepEqual(rows.find((r) => r[0] === 'namespaces'), ['namespaces', 'ns', 'v1', 'false', 'Namespace']);
  assert.ok(rows.some((r) => r[0] === 'leases' && r[1] === 'coordination.k8s.io/v1'));
});

test('kubectl create -f, get (table, -o yaml, -o json), label, patch (json, merge, strategic), delete', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  const file = join(dir, 'pod.yaml');
  await writeFile(file, podYaml);
  assert.equal(await ok('create', '-f', file), 'pod/web created\n');

  const table = (await ok('get', 'pods')).split('\n');
  assert.match(table[0]!, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
  assert.match(table[1]!, /^web\s+0\/1\s+Pending\s+0\s+\d+s$/);

  const yaml: Json = parseYaml(await ok('get', 'pod', 'web', '-o', 'yaml'));
  assert.equal(yaml.metadata.name, 'web');
  assert.equal(yaml.spec.containers[0].image, 'nginx:1.25');
  const json: Json = JSON.parse(await ok('get', 'pod', 'web', '-o', 'json'));
  assert.equal(json.metadata.uid, yaml.metadata.uid);

  assert.equal(await ok('label', 'pod', 'web', 'tier=front'), 'pod/web labeled\n');
  assert.equal(await ok('patch', 'pod', 'web', '--type', 'json', '-p', '[{"op":"add","path":"/metadata/annotations","value":{"a":"1"}}]'), 'pod/web patched\n');
  assert.equal(await ok('patch', 'pod', 'web', '--type', 'merge', '-p', '{"metadata":{"annotations":{"b":"2"}}}'), 'pod/web patched\n');
  assert.equal(await ok('patch', 'pod', 'web', '--type', 'strategic', '-p', '{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"}]}}'), 'pod/web patched\n');
  const patched = (await call(server, 'GET', '/api/v1/namespaces/default/pods/web')).body;
  assert.deepEqual(patched.metadata.labels, { app: 'web', tier: 'front' });
  assert.deepEqual(patched.metadata.annotations, { a: '1', b: '2' });
  assert.deepEqual(
    patched.spec.containers.map((c: Json) => `${c.name}=${c.image}`),
    ['nginx=nginx:1.26'],
  );
  const failed = await k('patch', 'pod', 'web', '--type', 'json', '-p', '[{"op":"test","path":"/metadata/name","value":"other"}]');
  assert.notEqual(failed.code, 0);

  assert.match(await ok('get', 'pods', '--show-labels'), /web\s+0\/1\s+Pending\s+0\s+\d+s\s+app=web,tier=front/);
  assert.equal(await ok('delete', 'pod', 'web'), 'pod "web" deleted\n');
  const gone = await k('get', 'pod', 'web');
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /Error from server \(NotFound\): pods "web" not found/);
});

test('kubectl apply --server-side: create, conflict with another manager, --force-conflicts; kubectl scale', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  const file = join(dir, 'deploy.yaml');
  await writeFile(file, deploymentYaml(2));
  assert.equal(await ok('apply', '--server-side', '-f', file), 'deployment.apps/api serverside-applied\n');
  assert.match((await ok('get', 'deployments')).split('\n')[1]!, /^api\s+0\/2\s+0\s+0\s+\d+s$/);
  await writeFile(file, deploymentYaml(3));
  const conflict = await k('apply', '--server-side', '--field-manager', 'other', '-f', file);
  assert.notEqual(conflict.code, 0);
  assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas/);
  assert.equal(await ok('apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', file), 'deployment.apps/api serverside-applied\n');
  const deploy = (await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/api')).body;
  assert.equal(deploy.spec.replicas, 3);
  assert.equal(await ok('scale', 'deployment', 'api', '--replicas', '5'), 'deployment.apps/api scaled\n');
  assert.equal((await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/api')).body.spec.replicas, 5);
  assert.deepEqual(
    deploy.metadata.managedFields.map((m: Json) => `${m.manager}/${m.operation}`).sort(),
    ['kubectl/Apply', 'other/Apply'],
  );
});

test('kubectl get -w prints the table, then a row per change', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { a: '1' } } });
  const child = spawn(kubectl!, ['get', 'configmaps', '-w', '--cache-dir', join(dir, 'cache')], { env });
  const lines: string[] = [];
  let buffered = '';
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  const waitLines = async (n: number): Promise<void> => {
    while (lines.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  try {
    await waitLines(2);
    assert.match(lines[0]!, /^NAME\s+DATA\s+AGE$/);
    assert.match(lines[1]!, /^watched\s+1\s+\d+s$/);
    const r = await call(server, 'PATCH', '/api/v1/namespaces/default/configmaps/watched', { body: { data: { a: '1', b: '2' } }, contentType: 'application/merge-patch+json' });
    assert.equal(r.status, 200);
    await waitLines(3);
    assert.match(lines[2]!, /^watched\s+2\s+\d+s$/);
  } finally {
    child.kill('SIGTERM');
  }
});

test('kubectl create of a CustomResourceDefinition, then of a custom resource', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  const crd = join(dir, 'crd.yaml');
  await writeFile(
    crd,
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, shortNames: [gz]}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
  );
  assert.equal(await ok('create', '-f', crd), 'customresourcedefinition.apiextensions.k8s.io/gizmos.example.com created\n');
  const cr = join(dir, 'cr.yaml');
  await writeFile(cr, 'apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g1}\nspec: {size: 3}\n');
  assert.equal(await ok('create', '-f', cr), 'gizmo.example.com/g1 created\n');
  assert.match((await ok('get', 'gz')).split('\n')[1]!, /^g1\s+\d+s$/);
  assert.equal(await ok('delete', '-f', cr), 'gizmo.example.com "g1" deleted\n');
});

test('kubectl over TLS with a bearer token, using the kubeconfig as written', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  const secure = await startApiServer({ tls: true, token: 'kubectl-token' });
  try {
    const path = join(dir, 'tls-kubeconfig');
    await secure.writeKubeconfig(path);
    const { stdout } = await run(kubectl!, ['get', 'namespaces', '-o', 'name', '--cache-dir', join(dir, 'cache-tls')], { env: { ...env, KUBECONFIG: path }, timeout: 60_000 });
    assert.deepEqual(stdout.trim().split('\n'), ['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
    // Without the token the server refuses.
    await writeFile(path, secure.kubeconfig.replace(/token: .*/, 'token: wrong'));
    const denied = await run(kubectl!, ['get', 'namespaces', '--cache-dir', join(dir, 'cache-tls2')], { env: { ...env, KUBECONFIG: path }, timeout: 60_000 }).then(
      () => '',
      (err: { stderr?: string }) => err.stderr ?? 'failed',
    );
    assert.match(denied, /Unauthorized|must be logged in/);
  } finally {
    await secure.stop();
  }
});

test('kubectl logs reads the lines set with setPodLogs', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  const r = await call(server, 'POST', '/api/v1/namespaces/default/pods', {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'chatty' }, spec: { containers: [{ name: 'main', image: 'busybox' }] } },
  });
  assert.equal(r.status, 201);
  server.setPodLogs('default', 'chatty', ['hello', 'world'], 'main');
  assert.equal(await ok('logs', 'chatty'), 'hello\nworld\n');
  assert.equal(await ok('logs', 'chatty', '-c', 'main', '--tail', '1'), 'world\n');
});

test('kubectl create namespace/configmap/secret/serviceaccount (protobuf request bodies)', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)');
  assert.equal(await ok('create', 'namespace', 'team'), 'namespace/team created\n');
  assert.equal(await ok('create', 'configmap', 'settings', '--from-literal=a=1', '--from-literal=b=2', '-n', 'team'), 'configmap/settings created\n');
  assert.equal(await ok('create', 'secret', 'generic', 'creds', '--from-literal=password=hunter2', '-n', 'team'), 'secret/creds created\n');
  assert.equal(await ok('create', 'serviceaccount', 'robot', '-n', 'team'), 'serviceaccount/robot created\n');
  assert.deepEqual((await call(server, 'GET', '/api/v1/namespaces/team/configmaps/settings')).body.data, { a: '1', b: '2' });
  const secret = (await call(server, 'GET', '/api/v1/namespaces/team/secrets/creds')).body;
  assert.deepEqual([secret.type, Buffer.from(secret.data.password, 'base64').toString()], ['Opaque', 'hunter2']);
  assert.equal((await call(server, 'GET', '/api/v1/namespaces/team/serviceaccounts/robot')).status, 200);
});

test('kubectl with the controllers: run and wait for Ready, delete --cascade=foreground, delete namespace', async (t) => {
  if (kubectl === undefined) return t.skip('kubectl not installed');
  // A server of its own: the stand-ins on, and no grace period before namespace cleanup (kubectl waits for it).
  const own = await startApiServer({ controllers: { scheduler: true, kubelet: true, namespaceDeletionGracePeriodMs: 0 } });
  const ownDir = await mkdtemp(join(tmpdir(), 'kubeloom-kubectl-'));
  try {
    await own.writeKubeconfig(join(ownDir, 'kubeconfig'));
    const kc = (...args: string[]): Promise<{ stdout: string }> => run(kubectl, [...args, '--cache-dir', join(ownDir, 'cache')], { env: { ...process.env, KUBECONFIG: join(ownDir, 'kubeconfig'), HOME: ownDir }, timeout: 60_000 });
    await kc('run', 'web', '--image=nginx:1.27');
    await kc('wait', '--for=condition=Ready', 'pod/web', '--timeout=30s');
    assert.match((await kc('get', 'pod', 'web', '-o', 'wide', '--no-headers')).stdout, /^web\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.0\.2\s+kubeloom-node\s/);
    const owner = JSON.parse((await kc('create', 'configmap', 'owner', '-o', 'json')).stdout) as Json;
    const dependent = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: true }] } };
    const file = join(ownDir, 'dependent.json');
    await writeFile(file, JSON.stringify(dependent));
    await kc('create', '-f', file);
    // Foreground: kubectl waits until the owner is gone, which is after its dependent.
    assert.match((await kc('delete', 'configmap', 'owner', '--cascade=foreground')).stdout, /configmap "owner" deleted/);
    assert.equal((await call(own, 'GET', '/api/v1/namespaces/default/configmaps/dependent')).status, 404);
    await kc('create', 'namespace', 'scratch');
    await kc('-n', 'scratch', 'create', 'configmap', 'c');
    assert.match((await kc('delete', 'namespace', 'scratch')).stdout, /namespace "scratch" deleted/);
    assert.equal((await call(own, 'GET', '/api/v1/namespaces/scratch')).status, 404);
  } finally {
    await own.stop();
    await rm(ownDir, { recursive: true, force: true });
  }
});
