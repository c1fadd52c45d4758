/**
 * The metrics.k8s.io client and `top` summaries against the embedded API server's metrics API, and
 * kubectl top against the same server (skipped without kubectl).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { RestClient } from '../src/rest/client.ts';
import { isNotFound, statusOf } from '../src/apimachinery/errors.ts';
import { MetricsClient } from '../src/metrics/index.ts';
import { call } from './apiserver-helpers.ts';
import { findKubectl } from './support/kubectl.ts';

const run = promisify(execFile);
const kubectl = await findKubectl();
let server: ApiServer;
let rest: RestClient;
let metrics: MetricsClient;

before(async () => {
  server = await startApiServer();
  rest = new RestClient({ host: server.url });
  metrics = new MetricsClient(rest);
});

after(async () => {
  await rest.close();
  await server.stop();
});

test('without metrics the API is absent, as in a cluster without metrics-server', async () => {
  const err = await metrics.nodeMetricses().list().catch((e: unknown) => e);
  assert.ok(isNotFound(err), String(err));
  const groups = await call(server, 'GET', '/apis');
  assert.equal((groups.body as { groups: Array<{ name: string }> }).groups.some((g) => g.name === 'metrics.k8s.io'), false);
});

test('NodeMetrics and PodMetrics are listed, fetched and summed as kubectl top does', async () => {
  await call(server, 'POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } } });
  const node = await call(server, 'GET', '/api/v1/nodes/node-a');
  await call(server, 'PUT', '/api/v1/nodes/node-a/status', { body: { ...(node.body as object), status: { allocatable: { cpu: '4', memory: '8Gi' } } } });
  server.setNodeMetrics([
    { name: 'node-b', usage: { cpu: '500m', memory: '1Gi' } },
    { name: 'node-a', usage: { cpu: '1', memory: '2Gi' } },
  ]);
  server.setPodMetrics([
    { namespace: 'default', name: 'web', containers: [{ name: 'app', usage: { cpu: '123456789n', memory: '64Mi' } }, { name: 'sidecar', usage: { cpu: '5m', memory: '10Mi' } }] },
    { namespace: 'kube-system', name: 'dns', containers: [{ name: 'coredns', usage: { cpu: '3m', memory: '20Mi' } }] },
  ]);
  const nodeTop = await metrics.topNodes();
  assert.deepEqual(nodeTop, [
    { name: 'node-a', cpuMillicores: 1000, memoryBytes: 2 * 2 ** 30, cpuPercent: 25, memoryPercent: 25 },
    { name: 'node-b', cpuMillicores: 500, memoryBytes: 2 ** 30 },
  ]);
  const pods = await metrics.topPods('default');
  assert.deepEqual(pods, [
    {
      namespace: 'default',
      name: 'web',
      cpuMillicores: 129,
      memoryBytes: 74 * 2 ** 20,
      containers: [
        { name: 'app', cpuMillicores: 124, memoryBytes: 64 * 2 ** 20 },
        { name: 'sidecar', cpuMillicores: 5, memoryBytes: 10 * 2 ** 20 },
      ],
    },
  ]);
  assert.deepEqual((await metrics.topPods()).map((p) => `${p.namespace}/${p.name}`), ['default/web', 'kube-system/dns']);
  const one = await metrics.podMetricses('kube-system').get('dns');
  assert.equal(one.kind, 'PodMetrics');
  assert.equal(one.window, '10.0s');
  assert.equal(one.containers[0]!.usage['memory'], '20Mi');
  const write = await metrics.nodeMetricses().create({ metadata: { name: 'x' }, timestamp: '', window: '', usage: {} }).catch((e: unknown) => e);
  assert.equal(statusOf(write)?.reason, 'MethodNotAllowed', String(write));
  server.setNodeMetrics([{ name: 'node-a', usage: { cpu: '2', memory: '2Gi' } }]);
  assert.deepEqual((await metrics.topNodes()).map((n) => [n.name, n.cpuMillicores]), [['node-a', 2000]]);
});

test('kubectl top node and top pod read the same metrics', { skip: kubectl === undefined ? 'kubectl is not installed (set KUBECTL, or run npm run tools)' : false }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeloom-top-'));
  try {
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
    server.setPodMetrics([{ namespace: 'default', name: 'web', containers: [{ name: 'app', usage: { cpu: '250m', memory: '64Mi' } }] }]);
    const pods = await run(kubectl!, ['top', 'pod', '-n', 'default'], { env });
    assert.match(pods.stdout, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\nweb\s+250m\s+64Mi\s*\n$/);
    const nodes = await run(kubectl!, ['top', 'node', 'node-a'], { env });
    assert.match(nodes.stdout, /node-a\s+2000m\s+50%\s+2048Mi\s+25%/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
