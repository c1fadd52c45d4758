import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatQuantity } from '../apimachinery/quantity.ts';
import { isExtendedResourceName } from '../apimachinery/resource-name.ts';
import { quotaEvaluatorFor } from './evaluators.ts';

const pods = quotaEvaluatorFor('', 'pods')!;
const usage = (pod: Record<string, unknown>): Record<string, string> => Object.fromEntries([...pods.usage(pod)].map(([k, q]) => [k, formatQuantity(q)]).sort(([a], [b]) => (a! < b! ? -1 : 1)));

test('pod usage adds the pod overhead to requests and limits, after the init containers are taken into account (PodUsageFunc)', () => {
  const pod = {
    spec: {
      overhead: { cpu: '250m', memory: '10Mi' },
      initContainers: [{ name: 'i', resources: { requests: { cpu: '2' } } }],
      containers: [{ name: 'c', resources: { requests: { cpu: '500m', memory: '10Mi' }, limits: { cpu: '1' } } }],
    },
  };
  assert.deepEqual(usage(pod), { 'count/pods': '1', cpu: '2250m', 'limits.cpu': '1250m', 'limits.memory': '10Mi', memory: '20Mi', pods: '1', 'requests.cpu': '2250m', 'requests.memory': '20Mi' });
});

test('hugepages count under both names and extended resources as requests.<name> only; quotas match accordingly', () => {
  const pod = { spec: { containers: [{ name: 'c', resources: { requests: { 'hugepages-2Mi': '2Mi', 'example.com/dongle': '2', 'kubernetes.io/native': '1' } } }] } };
  assert.deepEqual(usage(pod), { 'count/pods': '1', 'hugepages-2Mi': '2Mi', pods: '1', 'requests.example.com/dongle': '2', 'requests.hugepages-2Mi': '2Mi' });
  assert.deepEqual(pods.matchingResources(['requests.cpu', 'hugepages-2Mi', 'requests.hugepages-1Gi', 'requests.example.com/dongle', 'limits.example.com/dongle', 'example.com/dongle', 'services']), [
    'requests.cpu',
    'hugepages-2Mi',
    'requests.hugepages-1Gi',
    'requests.example.com/dongle',
  ]);
  assert.deepEqual(['example.com/dongle', 'cpu', 'kubernetes.io/x', 'requests.example.com/x', 'example.com/-bad'].map(isExtendedResourceName), [true, false, false, false, false]);
});
