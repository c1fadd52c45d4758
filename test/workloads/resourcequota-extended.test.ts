/**
 * The ResourceQuota controller's pod usage beyond cpu and memory (pkg/quota/v1/evaluator/core/pods.go,
 * v1.24): the pod overhead added to requests and limits, hugepages under both names, extended resources
 * as requests.<name>. Checked against the real kube-controller-manager v1.24 with the same objects (the
 * overhead there comes from a RuntimeClass).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCluster, waitForObject } from './support.ts';

test('a quota counts pod overhead, hugepages and extended resources as kube-controller-manager v1.24 does', async (t) => {
  const { client } = await startCluster(t, { workloads: ['resourcequota'] });
  const quotas = client.coreV1().resourceQuotas('default');
  const hard = { cpu: '1', 'requests.cpu': '1', 'limits.cpu': '2', 'requests.example.com/dongle': '1', 'hugepages-2Mi': '4Mi', 'requests.hugepages-1Gi': '1Gi' };
  await quotas.create({ metadata: { name: 'q' }, spec: { hard } });
  const resources = { cpu: '500m', memory: '10Mi', 'example.com/dongle': '1', 'hugepages-2Mi': '2Mi' };
  await client.coreV1().pods('default').create({
    metadata: { name: 'p' },
    spec: { overhead: { cpu: '250m', memory: '10Mi' }, containers: [{ name: 'c', image: 'nginx', resources: { requests: resources, limits: { ...resources, cpu: '1' } } }] },
  });
  const q = await waitForObject(quotas, 'q', (x) => x?.status?.used?.['requests.example.com/dongle'] === '1');
  assert.deepEqual(q?.status?.used, { cpu: '750m', 'hugepages-2Mi': '2Mi', 'limits.cpu': '1250m', 'requests.cpu': '750m', 'requests.example.com/dongle': '1', 'requests.hugepages-1Gi': '0' });
});
