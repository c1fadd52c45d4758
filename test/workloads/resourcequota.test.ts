/**
 * The ResourceQuota controller (src/controllers/resourcequota): status.hard and status.used follow the
 * namespace's objects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCluster, waitForItems, waitForObject } from './support.ts';

test('a quota reports what the namespace uses: pods and their requests and limits, services, configmaps, count/ of workloads', async (t) => {
  const { client } = await startCluster(t, { workloads: ['resourcequota'] });
  const quotas = client.coreV1().resourceQuotas('default');
  await quotas.create({
    metadata: { name: 'q' },
    spec: { hard: { pods: '10', 'requests.cpu': '4', 'requests.memory': '8Gi', 'limits.memory': '16Gi', services: '5', configmaps: '20', 'count/deployments.apps': '3' } },
  });
  const pod = (name: string, cpu: string, memory: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu, memory }, limits: { memory } } }] } });
  await client.coreV1().pods('default').create(pod('a', '250m', '128Mi'));
  await client.coreV1().pods('default').create(pod('b', '500m', '128Mi'));
  await client.coreV1().services('default').create({ metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
  // default/kubernetes is a Service too (written once the server listens); the configmaps count includes
  // kube-root-ca.crt when its publisher runs (not here).
  const services = String((await client.coreV1().services('default').list()).items.length);
  const q = await waitForObject(quotas, 'q', (x) => x?.status?.used?.pods === '2' && x.status.used.services === services);
  assert.deepEqual(q?.status?.hard, { pods: '10', 'requests.cpu': '4', 'requests.memory': '8Gi', 'limits.memory': '16Gi', services: '5', configmaps: '20', 'count/deployments.apps': '3' });
  assert.equal(q?.status?.used?.['requests.cpu'], '750m');
  assert.equal(q?.status?.used?.['requests.memory'], '256Mi');
  assert.equal(q?.status?.used?.['limits.memory'], '256Mi');
  assert.equal(q?.status?.used?.['count/deployments.apps'], '0');
  await client.coreV1().pods('default').delete('a', { gracePeriodSeconds: 0 });
  await waitForObject(quotas, 'q', (x) => x?.status?.used?.pods === '1' && x.status.used['requests.cpu'] === '500m');
});

test('count/pods counts every pod, finished ones too; pods counts only those not finished', async (t) => {
  const { client } = await startCluster(t, { scheduler: false, kubelet: false, workloads: ['resourcequota'] });
  const podsClient = client.coreV1().pods('default');
  await podsClient.create({ metadata: { name: 'running' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const done = await podsClient.create({ metadata: { name: 'done' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });
  await podsClient.updateStatus({ ...done, status: { phase: 'Succeeded' } });
  const quotas = client.coreV1().resourceQuotas('default');
  await quotas.create({ metadata: { name: 'q' }, spec: { hard: { pods: '10', 'count/pods': '10' } } });
  const q = await waitForObject(quotas, 'q', (x) => x?.status?.used?.pods === '1');
  assert.deepEqual(q?.status?.used, { pods: '1', 'count/pods': '2' });
});

test('scoped quotas count only the pods their scopes select: BestEffort (cpu and memory only), Terminating, PriorityClass In/NotIn, CrossNamespacePodAffinity', async (t) => {
  const { client } = await startCluster(t, { scheduler: false, kubelet: false, workloads: ['resourcequota'] });
  await client.schedulingV1().priorityClasses().create({ metadata: { name: 'nodelife-high' }, value: 1000 });
  const pods = client.coreV1().pods('default');
  const c = (resources: Record<string, Record<string, string>> = {}) => [{ name: 'c', image: 'nginx', resources }];
  await pods.create({ metadata: { name: 'a' }, spec: { containers: c() } });
  await pods.create({ metadata: { name: 'b' }, spec: { containers: c({ requests: { cpu: '100m' } }) } });
  await pods.create({ metadata: { name: 'c' }, spec: { activeDeadlineSeconds: 60, containers: c() } });
  await pods.create({ metadata: { name: 'd' }, spec: { priorityClassName: 'nodelife-high', containers: c({ requests: { cpu: '200m' } }) } });
  await pods.create({
    metadata: { name: 'e' },
    spec: { containers: c(), affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', namespaces: ['other'], labelSelector: { matchLabels: { x: 'y' } } }] } } },
  });
  // Only cpu and memory decide the QoS class: an ephemeral-storage request leaves a pod BestEffort.
  await pods.create({ metadata: { name: 'f' }, spec: { containers: c({ requests: { 'ephemeral-storage': '1Gi' } }) } });
  const quotas = client.coreV1().resourceQuotas('default');
  const selector = (scopeName: string, operator: string, values?: string[]) => ({ matchExpressions: [{ scopeName, operator, ...(values === undefined ? {} : { values }) }] });
  const specs = {
    'q-be': { scopes: ['BestEffort'], hard: { pods: '10' } },
    'q-nbe': { scopes: ['NotBestEffort'], hard: { pods: '10', 'requests.cpu': '1' } },
    'q-term': { scopes: ['Terminating'], hard: { pods: '10' } },
    'q-nterm': { scopes: ['NotTerminating'], hard: { pods: '10' } },
    'q-prio': { scopeSelector: selector('PriorityClass', 'In', ['nodelife-high']), hard: { pods: '10', 'requests.cpu': '1' } },
    'q-prio-notin': { scopeSelector: selector('PriorityClass', 'NotIn', ['nodelife-high']), hard: { pods: '10' } },
    'q-xns': { scopeSelector: selector('CrossNamespacePodAffinity', 'Exists'), hard: { pods: '10' } },
    'q-prio-dne': { scopeSelector: selector('PriorityClass', 'DoesNotExist'), hard: { pods: '10' } },
  };
  for (const [name, spec] of Object.entries(specs)) await quotas.create({ metadata: { name }, spec });
  const all = await waitForItems(quotas, (items) => items.length === 8 && items.every((q) => q.status?.used !== undefined));
  const used = Object.fromEntries(all.map((q) => [q.metadata?.name, q.status?.used]));
  // The figures kube-controller-manager v1.24 wrote for the same pods and quotas.
  assert.deepEqual(used, {
    'q-be': { pods: '4' },
    'q-nbe': { pods: '2', 'requests.cpu': '300m' },
    'q-term': { pods: '1' },
    'q-nterm': { pods: '5' },
    'q-prio': { pods: '1', 'requests.cpu': '200m' },
    'q-prio-notin': { pods: '5' },
    'q-xns': { pods: '1' },
    'q-prio-dne': { pods: '5' },
  });
});
