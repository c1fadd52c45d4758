/**
 * A StatefulSet with volumeClaimTemplates on the embedded server with the volume binder stand-in: its
 * claims are provisioned and Bound (WaitForFirstConsumer, on each pod's node) and the set becomes Ready,
 * each pod having waited for its claim.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PersistentVolumeClaim, Pod } from '../../src/api/core/v1.ts';
import { startCluster, waitForObject } from './support.ts';

test('a StatefulSet with a claim template becomes Ready once the volume binder binds its claims', async (t) => {
  const { client } = await startCluster(t, { workloads: ['statefulset'], volumes: true, kubelet: { nodeCount: 2 } });
  const sets = client.appsV1().statefulSets('default');
  await sets.create({
    metadata: { name: 'db' },
    spec: {
      replicas: 2,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'postgres:16' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  });
  const done = await waitForObject(sets, 'db', (s) => s?.status?.readyReplicas === 2);
  assert.equal(done?.status?.availableReplicas, 2);
  const claims = (await client.coreV1().persistentVolumeClaims('default').list()).items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  assert.deepEqual(
    claims.map((c: PersistentVolumeClaim) => [c.metadata?.name, c.status?.phase, c.spec?.storageClassName, c.spec?.volumeName === `pvc-${c.metadata?.uid ?? ''}`]),
    [
      ['data-db-0', 'Bound', 'standard', true],
      ['data-db-1', 'Bound', 'standard', true],
    ],
  );
  const pods = (await client.coreV1().pods('default').list()).items;
  for (const c of claims) {
    const user = pods.find((p: Pod) => p.spec?.volumes?.some((v) => v.persistentVolumeClaim?.claimName === c.metadata?.name));
    assert.equal(c.metadata?.annotations?.['volume.kubernetes.io/selected-node'], user?.spec?.nodeName);
    const pv = await client.coreV1().persistentVolumes().get(c.spec?.volumeName ?? '');
    assert.equal(pv.status?.phase, 'Bound');
    assert.equal(pv.spec?.claimRef?.uid, c.metadata?.uid);
  }
});
