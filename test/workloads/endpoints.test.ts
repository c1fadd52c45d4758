/**
 * The Endpoints controller (src/controllers/endpoint): addresses from the selected pods, named target
 * ports, not-ready addresses, the Service's labels, and cleanup when the Service goes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '../../src/api/core/v1.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

test('Endpoints follow the Service: ready and not-ready addresses, named target ports, labels; deleted with the Service', async (t) => {
  // No kubelet: the test writes the pods' status itself.
  const { client } = await startCluster(t, { kubelet: false, scheduler: false });
  const pods = client.coreV1().pods('default');
  const mk = (name: string): Pod => ({
    metadata: { name, labels: { app: 'web' } },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
  });
  for (const [name, ip, ready] of [['a', '10.0.0.2', true], ['b', '10.0.0.1', false]] as const) {
    await pods.create(mk(name));
    await pods.updateStatus({ ...(await pods.get(name)), status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  }
  await client.coreV1().services('default').create({ metadata: { name: 'web', labels: { team: 'a' } }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
  const ep = await waitForObject(client.coreV1().endpoints('default'), 'web', (e) => e?.subsets !== undefined);
  assert.deepEqual(ep?.metadata?.labels, { team: 'a' });
  const uid = async (n: string): Promise<string> => (await pods.get(n)).metadata?.uid ?? '';
  assert.deepEqual(ep?.subsets, [
    {
      addresses: [{ ip: '10.0.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: await uid('a') } }],
      notReadyAddresses: [{ ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: await uid('b') } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    },
  ]);
  // A Service without a selector keeps the Endpoints its user writes.
  await client.coreV1().services('default').create({ metadata: { name: 'manual' }, spec: { ports: [{ port: 80 }] } });
  await client.coreV1().endpoints('default').create({ metadata: { name: 'manual' }, subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 80 }] }] });
  await client.coreV1().services('default').delete('web');
  const left = await waitForItems(client.coreV1().endpoints('default'), (items) => !items.some((e) => e.metadata?.name === 'web'));
  assert.deepEqual(left.find((e) => e.metadata?.name === 'manual')?.subsets?.[0]?.addresses, [{ ip: '192.0.2.1' }]);
});
