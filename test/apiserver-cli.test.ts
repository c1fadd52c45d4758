import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadKubeConfig, restConfigFrom } from '../src/clientcmd/index.ts';
import { isForbidden, isUnauthorized } from '../src/apimachinery/errors.ts';
import { newClientset } from '../src/kubernetes/clientset.ts';
import { eventually } from '../src/testing/index.ts';
import type { Json } from './apiserver-helpers.ts';
import { etcdSkipReason, startTestEtcd } from './support/etcd.ts';

const main = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');

/** A running `kubeloom apiserver`. */
interface Cli {
  url: string;
  /** Everything it wrote to stdout so far. */
  out(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, for `finally` blocks (a no-op once it exited). */
  kill(): void;
}

/** Starts `kubeloom apiserver --port 0` with `args`; resolves once it reports its URL. */
async function startCli(args: string[]): Promise<Cli> {
  const child = spawn(process.execPath, [main, 'apiserver', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /listening on (https?:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    return {
      url,
      out: () => out,
      stop: async () => {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const [code] = (await exited) as [number | null];
        return code;
      },
      kill: () => child.kill('SIGKILL'),
    };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}

test('kubeloom apiserver prints its URL once ready, writes a kubeconfig and stops cleanly on SIGTERM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-cli-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const cli = await startCli(['--token', 'cli-token', '--write-kubeconfig', kubeconfig]);
  try {
    // --token implies --tls: a kubeconfig's token is sent only to an https server (clientcmd, kubectl).
    const url = cli.url;
    assert.match(url, /^https:/);
    // Without --data-dir, the startup lines say the data is in memory.
    assert.match(cli.out(), /^kubeloom apiserver storage: memory \(data is lost when the server stops\)\n/m);
    const kc: Json = parseYaml(await readFile(kubeconfig, 'utf8'));
    assert.equal(kc.clusters[0].cluster.server, url);
    assert.equal(kc.users[0].user.token, 'cli-token');
    const rest = await restConfigFrom(await loadKubeConfig({ path: kubeconfig, env: {} }));
    assert.equal(rest.bearerToken, 'cli-token');
    const anonymous = newClientset({ host: rest.host, tls: rest.tls!, qps: -1 });
    const admin = newClientset({ ...rest, qps: -1 });
    try {
      await assert.rejects(anonymous.coreV1().namespaces().list(), (err: unknown) => isUnauthorized(err));
      assert.ok((await admin.coreV1().namespaces().list()).items.some((ns) => ns.metadata?.name === 'default'));
    } finally {
      await Promise.all([anonymous.close(), admin.close()]);
    }
    assert.equal(await cli.stop(), 0);
    assert.match(cli.out(), /SIGTERM, stopping\n$/);
  } finally {
    cli.kill();
    await rm(dir, { recursive: true, force: true });
  }
});

test('kubeloom apiserver rejects bad flags with exit code 2', async () => {
  for (const args of [['--port', 'http'], ['--bogus'], ['--compaction-interval', '10'], ['--compaction-interval', '0s']]) {
    const child = spawn(process.execPath, [main, 'apiserver', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (err += c));
    const [code] = await once(child, 'exit');
    assert.equal(code, 2, args.join(' '));
    assert.match(err, /kubeloom apiserver: /);
  }
});

async function getJson(url: string): Promise<Json> {
  const res = await fetch(url);
  return res.json();
}

test('kubeloom apiserver --crds installs CRDs before it reports ready; --scheduler --kubelet run pods; --no-garbage-collector keeps dependents', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-cli-'));
  try {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.cli.example.com' },
      spec: { group: 'cli.example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
    };
    await writeFile(join(dir, 'widgets.json'), JSON.stringify(crd));
    const cli = await startCli(['--crds', dir, '--scheduler', '--kubelet', '--kubelet-nodes', 'n1,n2', '--no-garbage-collector', '--no-namespace-controller']);
    try {
      assert.match(cli.out(), /^installed 1 CRD: widgets\.cli\.example\.com\n/);
      assert.equal((await getJson(`${cli.url}/apis/cli.example.com/v1`)).resources[0].name, 'widgets');
      const nodes = (await getJson(`${cli.url}/api/v1/nodes`)).items.map((n: Json) => n.metadata.name);
      assert.deepEqual(nodes, ['n1', 'n2']);
      const post = (path: string, body: unknown): Promise<Response> => fetch(cli.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const owner = (await (await post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } })).json()) as Json;
      await (await post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dep', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] } })).arrayBuffer();
      await (await fetch(`${cli.url}/api/v1/namespaces/default/configmaps/owner`, { method: 'DELETE' })).arrayBuffer();
      await (await post('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })).arrayBuffer();
      await eventually(async () => assert.equal((await getJson(`${cli.url}/api/v1/namespaces/default/pods/p`)).status.phase, 'Running'), { timeoutMs: 10_000 });
      assert.equal((await fetch(`${cli.url}/api/v1/namespaces/default/configmaps/dep`)).status, 200, 'no garbage collector');
    } finally {
      assert.equal(await cli.stop(), 0);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('kubeloom apiserver --nodes 3 --pod-events: three kwok nodes, the default StorageClass, a pod Running with its events', async () => {
  const cli = await startCli(['--nodes', '3', '--pod-events', '--pod-ready-delay', '100ms']);
  try {
    const nodes = (await getJson(`${cli.url}/api/v1/nodes`)).items.map((n: Json) => n.metadata.name);
    assert.deepEqual(nodes, ['kwok-node-0', 'kwok-node-1', 'kwok-node-2']);
    assert.equal((await getJson(`${cli.url}/apis/storage.k8s.io/v1/storageclasses/standard`)).metadata.annotations['storageclass.kubernetes.io/is-default-class'], 'true');
    await (await fetch(`${cli.url}/api/v1/namespaces/default/pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) })).arrayBuffer();
    await eventually(async () => assert.equal((await getJson(`${cli.url}/api/v1/namespaces/default/pods/p`)).status.conditions.find((c: Json) => c.type === 'Ready').status, 'True'), { timeoutMs: 10_000 });
    // The pod's events (the node lifecycle controller's RegisteredNode events about the nodes are in default too).
    const reasons = (await getJson(`${cli.url}/api/v1/namespaces/default/events`)).items.filter((e: Json) => e.involvedObject.kind === 'Pod').map((e: Json) => e.reason);
    assert.deepEqual(new Set(reasons), new Set(['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']));
  } finally {
    await cli.stop();
  }
});

test('kubeloom apiserver: --kubelet-nodes without the kubelet, an unknown --controllers name or --controllers with --bare are usage errors; a missing --crds path fails the start', async () => {
  for (const [args, message] of [
    [['--bare', '--kubelet-nodes', 'a'], /--kubelet-nodes needs the kubelet stand-in/],
    [['--no-kubelet', '--kubelet-nodes', 'a'], /--kubelet-nodes needs the kubelet stand-in/],
    [['--controllers', '*,-bogus'], /--controllers: "bogus" is not in the list of known controllers/],
    [['--bare', '--controllers', '*'], /--bare runs no workload controllers/],
    [['--nodes', '0'], /--nodes needs the kubelet stand-in, a positive whole number/],
    [['--nodes', '3', '--kubelet-nodes', 'a'], /--nodes needs .* no --kubelet-nodes/],
    [['--pod-failure-probability', '2'], /invalid --pod-failure-probability 2/],
    [['--pod-ready-delay', 'soon'], /invalid --pod-ready-delay soon/],
  ] as const) {
    const usage = spawn(process.execPath, [main, 'apiserver', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    usage.stderr.setEncoding('utf8');
    usage.stderr.on('data', (c: string) => (err += c));
    assert.equal((await once(usage, 'exit'))[0], 2);
    assert.match(err, message);
  }
  const missing = spawn(process.execPath, [main, 'apiserver', '--port', '0', '--crds', '/nonexistent/crds'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err2 = '';
  missing.stderr.setEncoding('utf8');
  missing.stderr.on('data', (c: string) => (err2 += c));
  assert.equal((await once(missing, 'exit'))[0], 1);
  assert.equal(err2, 'kubeloom apiserver: --crds: CRD path /nonexistent/crds does not exist\n');
});

test('kubeloom apiserver is a developer cluster by default (a Deployment rolls out); --bare and --controllers=-deployment leave Deployments alone', async () => {
  const deploymentBody = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
  const create = async (url: string): Promise<void> => {
    await (await fetch(`${url}/apis/apps/v1/namespaces/default/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(deploymentBody) })).arrayBuffer();
  };
  const full = await startCli([]);
  try {
    await create(full.url);
    await eventually(async () => assert.equal((await getJson(`${full.url}/apis/apps/v1/namespaces/default/deployments/web`)).status?.availableReplicas, 2), { timeoutMs: 10_000 });
    assert.deepEqual((await getJson(`${full.url}/api/v1/nodes`)).items.map((n: Json) => n.metadata.name), ['kubeloom-node']);
  } finally {
    assert.equal(await full.stop(), 0);
  }
  // Without the Deployment controller, a ReplicaSet of our own still gets its pod (the other controllers
  // and the stand-ins run), and by then no ReplicaSet was made for the Deployment.
  const partial = await startCli(['--controllers', '*,-deployment']);
  try {
    await create(partial.url);
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'probe' }, spec: { replicas: 1, selector: { matchLabels: { app: 'probe' } }, template: { metadata: { labels: { app: 'probe' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
    await (await fetch(`${partial.url}/apis/apps/v1/namespaces/default/replicasets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rs) })).arrayBuffer();
    await eventually(async () => assert.equal((await getJson(`${partial.url}/apis/apps/v1/namespaces/default/replicasets/probe`)).status?.availableReplicas, 1), { timeoutMs: 10_000 });
    assert.deepEqual((await getJson(`${partial.url}/apis/apps/v1/namespaces/default/replicasets`)).items.map((r: Json) => r.metadata.name), ['probe']);
  } finally {
    assert.equal(await partial.stop(), 0);
  }
  const bare = await startCli(['--bare']);
  try {
    assert.deepEqual((await getJson(`${bare.url}/api/v1/nodes`)).items, [], 'no kubelet stand-in');
  } finally {
    assert.equal(await bare.stop(), 0);
  }
});

test('kubeloom apiserver --pod-logs --metrics: running pods have a log line and metrics.k8s.io usage (kubectl logs, kubectl top)', async () => {
  const cli = await startCli(['--pod-logs', '--metrics']);
  try {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '250m', memory: '64Mi' } } }] } };
    await (await fetch(`${cli.url}/api/v1/namespaces/default/pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pod) })).arrayBuffer();
    await eventually(async () => assert.equal(await (await fetch(`${cli.url}/api/v1/namespaces/default/pods/p/log`)).text(), 'kubeloom: container c started (image nginx)\n'), { timeoutMs: 10_000 });
    await eventually(async () => assert.deepEqual((await getJson(`${cli.url}/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/p`)).containers, [{ name: 'c', usage: { cpu: '250m', memory: '64Mi' } }]), { timeoutMs: 30_000 });
  } finally {
    assert.equal(await cli.stop(), 0);
  }
});

test('kubeloom apiserver --rbac authorizes with RBAC: the kubeconfig is admin, anonymous requests get 403', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-cli-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const cli = await startCli(['--rbac', '--write-kubeconfig', kubeconfig]);
  try {
    const url = cli.url;
    const kc: Json = parseYaml(await readFile(kubeconfig, 'utf8'));
    const token: string = kc.users[0].user.token;
    assert.match(token, /^[0-9a-f]{48}$/);
    // --rbac implies --tls, so the kubeconfig's token is used (clientcmd sends credentials only over https).
    assert.match(url, /^https:/);
    const rest = await restConfigFrom(await loadKubeConfig({ path: kubeconfig, env: {} }));
    const anonymous = newClientset({ host: rest.host, tls: rest.tls!, qps: -1 });
    const admin = newClientset({ ...rest, qps: -1 });
    try {
      await assert.rejects(anonymous.coreV1().namespaces().list(), (err: Error) => {
        assert.ok(isForbidden(err));
        assert.match(err.message, /namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope/);
        return true;
      });
      assert.ok((await admin.coreV1().namespaces().list()).items.length > 0);
    } finally {
      await Promise.all([anonymous.close(), admin.close()]);
    }
    assert.equal(await cli.stop(), 0);
  } finally {
    cli.kill();
    await rm(dir, { recursive: true, force: true });
  }
});

test('kubeloom apiserver --etcd-servers keeps the cluster in etcd: a later process on the same etcd serves what the first wrote; with --data-dir it is a usage error', { ...(etcdSkipReason() === undefined ? {} : { skip: etcdSkipReason() }) }, async () => {
  const etcd = await startTestEtcd();
  try {
    const first = await startCli(['--bare', '--etcd-servers', etcd.url]);
    try {
      assert.match(first.out(), new RegExp(`^kubeloom apiserver storage: etcd ${etcd.url.replace(/[.]/g, '\\.')} \\(prefix /registry, `, 'm'));
      const created = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'kept' }, data: { k: 'v' } }) });
      assert.equal(created.status, 201);
      assert.equal(await first.stop(), 0);
    } finally {
      first.kill();
    }
    const second = await startCli(['--bare', '--etcd-servers', etcd.url]);
    try {
      const got = (await (await fetch(`${second.url}/api/v1/namespaces/default/configmaps/kept`)).json()) as Json;
      assert.deepEqual(got.data, { k: 'v' });
      assert.equal(await second.stop(), 0);
    } finally {
      second.kill();
    }
    const both = spawn(process.execPath, [main, 'apiserver', '--etcd-servers', etcd.url, '--data-dir', tmpdir()], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    both.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const [code] = (await once(both, 'exit')) as [number | null];
    assert.equal(code, 2);
    assert.match(err, /--etcd-servers and --data-dir cannot be combined/);
  } finally {
    await etcd.stop();
  }
});
