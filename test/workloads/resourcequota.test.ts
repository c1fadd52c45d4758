/**
 * The ResourceQuota controller (src/controllers/resourcequota): status.hard and status.used follow the
 * namespace's objects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCluster, waitForObject } from './support.ts';

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
