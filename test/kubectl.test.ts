/**
 * A client we did not write — kubectl — against either backend (test/support/backend.ts):
 * discovery, tables, YAML/JSON output, watch, create, server-side apply (with conflicts), every patch
 * type, label and delete. Each test runs kubectl with a kubeconfig whose context namespace is the
 * test's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PatchType } from '../src/apimachinery/options.ts';
import { Capability, e2eTest, type E2eEnv, type E2eTestOptions } from './support/backend.ts';
import type { Json } from './apiserver-helpers.ts';
import { findKubectl } from './support/kubectl.ts';

const run = promisify(execFile);

const kubectl = await findKubectl();
const noKubectl = 'kubectl not installed: set KUBECTL or install kubectl (e.g. Debian kubernetes-client)';

interface Kubectl {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs kubectl; resolves with its output even when it exits non-zero. */
  k: (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
  /** Runs kubectl and asserts it succeeded; resolves with its standard output. */
  ok: (...args: string[]) => Promise<string>;
}

async function kubectlFor(e2e: E2eEnv, kubeconfig?: string): Promise<Kubectl> {
  const dir = await e2e.tmpDir();
  const env = { ...process.env, KUBECONFIG: kubeconfig ?? (await e2e.kubeconfig()), HOME: dir };
  const k = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run(kubectl!, [...args, '--cache-dir', join(dir, 'cache')], { env, timeout: 60_000 });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  const ok = async (...args: string[]): Promise<string> => {
    const r = await k(...args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  return { dir, env, k, ok };
}

/** A kubectl test on the backend; reported as skipped where kubectl is not installed. */
function kubectlTest(name: string, options: E2eTestOptions, fn: (e2e: E2eEnv, kc: Kubectl) => Promise<void>): void {
  if (kubectl === undefined) {
    test(name, { skip: noKubectl }, () => {});
    return;
  }
  e2eTest(name, options, async (e2e) => fn(e2e, await kubectlFor(e2e)));
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

kubectlTest('kubectl api-resources lists the served resources', {}, async (_e2e, { ok }) => {
  const out = await ok('api-resources');
  const rows = out.split('\n').map((l) => l.split(/\s+/));
  assert.deepEqual(rows.find((r) => r[0] === 'deployments'), ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
  assert.deepEqual(rows.find((r) => r[0] === 'namespaces'), ['namespaces', 'ns', 'v1', 'false', 'Namespace']);
  assert.ok(rows.some((r) => r[0] === 'leases' && r[1] === 'coordination.k8s.io/v1'));
});

kubectlTest('kubectl create -f, get (table, -o yaml, -o json), label, patch (json, merge, strategic), delete', {}, async (e2e, { dir, k, ok }) => {
  const pods = e2e.cs.coreV1().pods(e2e.namespace);
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
  const patched = await pods.get('web');
  assert.deepEqual(patched.metadata?.labels, { app: 'web', tier: 'front' });
  assert.deepEqual(patched.metadata?.annotations, { a: '1', b: '2' });
  assert.deepEqual(
    patched.spec?.containers.map((c) => `${c.name}=${c.image}`),
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

kubectlTest('kubectl apply --server-side: create, conflict with another manager, --force-conflicts; kubectl scale', {}, async (e2e, { dir, k, ok }) => {
  const deployments = e2e.cs.appsV1().deployments(e2e.namespace);
  const file = join(dir, 'deploy.yaml');
  await writeFile(file, deploymentYaml(2));
  assert.equal(await ok('apply', '--server-side', '-f', file), 'deployment.apps/api serverside-applied\n');
  // No controller runs the deployment here (none on the embedded server, no kube-controller-manager on the test cluster).
  assert.match((await ok('get', 'deployments')).split('\n')[1]!, /^api\s+0\/2\s+0\s+0\s+\d+s$/);
  await writeFile(file, deploymentYaml(3));
  const conflict = await k('apply', '--server-side', '--field-manager', 'other', '-f', file);
  assert.notEqual(conflict.code, 0);
  assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas/);
  assert.equal(await ok('apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', file), 'deployment.apps/api serverside-applied\n');
  const deploy = await deployments.get('api');
  assert.equal(deploy.spec?.replicas, 3);
  assert.equal(await ok('scale', 'deployment', 'api', '--replicas', '5'), 'deployment.apps/api scaled\n');
  assert.equal((await deployments.get('api')).spec?.replicas, 5);
  assert.deepEqual(deploy.metadata?.managedFields?.map((m) => `${m.manager}/${m.operation}`).sort(), ['kubectl/Apply', 'other/Apply']);
});

kubectlTest('kubectl get -w prints the table, then a row per change', {}, async (e2e, { env }) => {
  const cms = e2e.cs.coreV1().configMaps(e2e.namespace);
  await cms.create({ metadata: { name: 'watched' }, data: { a: '1' } });
  const child = spawn(kubectl!, ['get', 'configmaps', '-w', '--cache-dir', join(env.HOME!, 'cache')], { env });
  e2e.defer(() => void child.kill('SIGTERM'));
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
  /** Waits for a line matching `pattern` after index `from`; resolves with its index. */
  const waitLine = async (pattern: RegExp, from = 0): Promise<number> => {
    for (;;) {
      const i = lines.findIndex((l, j) => j >= from && pattern.test(l));
      if (i >= 0) return i;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  assert.match(lines[await waitLine(/./)]!, /^NAME\s+DATA\s+AGE$/);
  // (A cluster with kube-controller-manager also lists kube-root-ca.crt.)
  const listed = await waitLine(/^watched\s/);
  assert.match(lines[listed]!, /^watched\s+1\s+\d+s$/);
  await cms.patch('watched', PatchType.Merge, { data: { a: '1', b: '2' } });
  assert.match(lines[await waitLine(/^watched\s/, listed + 1)]!, /^watched\s+2\s+\d+s$/);
});

kubectlTest('kubectl create of a CustomResourceDefinition, then of a custom resource', {}, async (e2e, { dir, ok }) => {
  const sfx = e2e.suffix;
  const group = `${sfx}.example.com`;
  const crd = join(dir, 'crd.yaml');
  await writeFile(
    crd,
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, shortNames: [gz${sfx}]}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
  );
  assert.equal(await ok('create', '-f', crd), `customresourcedefinition.apiextensions.k8s.io/gizmos.${group} created\n`);
  // A real apiserver serves the new resource a moment after accepting the CRD.
  await e2e.adoptCrd(`gizmos.${group}`);
  const cr = join(dir, 'cr.yaml');
  await writeFile(cr, `apiVersion: ${group}/v1\nkind: Gizmo\nmetadata: {name: g1}\nspec: {size: 3}\n`);
  assert.equal(await ok('create', '-f', cr), `gizmo.${group}/g1 created\n`);
  assert.match((await ok('get', `gz${sfx}`)).split('\n')[1]!, /^g1\s+\d+s$/);
  assert.equal(await ok('delete', '-f', cr), `gizmo.${group} "g1" deleted\n`);
});

kubectlTest('kubectl over TLS with a bearer token, using the kubeconfig as written', { tls: true, token: true }, async (e2e, { dir, env, k }) => {
  const list = await k('get', 'namespaces', '-o', 'name');
  assert.equal(list.code, 0, list.stderr);
  const names = list.stdout.trim().split('\n');
  for (const n of ['default', 'kube-node-lease', 'kube-public', 'kube-system', e2e.namespace]) assert.ok(names.includes(`namespace/${n}`), n);
  // Without the token the server refuses.
  const path = join(dir, 'wrong-token');
  await writeFile(path, (await readFile(env.KUBECONFIG!, 'utf8')).replace(/token: .*/, 'token: wrong'));
  const denied = await run(kubectl!, ['get', 'namespaces', '--cache-dir', join(dir, 'cache-denied')], { env: { ...env, KUBECONFIG: path }, timeout: 60_000 }).then(
    () => '',
    (err: { stderr?: string }) => err.stderr ?? 'failed',
  );
  assert.match(denied, /Unauthorized|must be logged in/);
});

kubectlTest('kubectl logs reads the lines set with setPodLogs', { needs: [Capability.PodLogs] }, async (e2e, { ok }) => {
  await e2e.cs.coreV1().pods(e2e.namespace).create({ metadata: { name: 'chatty' }, spec: { containers: [{ name: 'main', image: 'busybox' }] } });
  e2e.embedded!.setPodLogs(e2e.namespace, 'chatty', ['hello', 'world'], 'main');
  assert.equal(await ok('logs', 'chatty'), 'hello\nworld\n');
  assert.equal(await ok('logs', 'chatty', '-c', 'main', '--tail', '1'), 'world\n');
});

kubectlTest('kubectl create namespace/configmap/secret/serviceaccount (protobuf request bodies)', {}, async (e2e, { ok }) => {
  const team = e2e.uniqueName('kl-e2e-team');
  e2e.adoptNamespace(team);
  assert.equal(await ok('create', 'namespace', team), `namespace/${team} created\n`);
  assert.equal(await ok('create', 'configmap', 'settings', '--from-literal=a=1', '--from-literal=b=2', '-n', team), 'configmap/settings created\n');
  assert.equal(await ok('create', 'secret', 'generic', 'creds', '--from-literal=password=hunter2', '-n', team), 'secret/creds created\n');
  assert.equal(await ok('create', 'serviceaccount', 'robot', '-n', team), 'serviceaccount/robot created\n');
  assert.deepEqual((await e2e.cs.coreV1().configMaps(team).get('settings')).data, { a: '1', b: '2' });
  const secret = await e2e.cs.coreV1().secrets(team).get('creds');
  assert.deepEqual([secret.type, Buffer.from(secret.data!['password']!, 'base64').toString()], ['Opaque', 'hunter2']);
  assert.equal((await e2e.cs.coreV1().serviceAccounts(team).get('robot')).metadata?.name, 'robot');
});
