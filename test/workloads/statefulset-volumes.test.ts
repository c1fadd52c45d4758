/**
 * A StatefulSet with volumeClaimTemplates on the embedded server with the volume binder stand-in: its
 * claims are provisioned and Bound (WaitForFirstConsumer, on each pod's node) and the set becomes Ready,
 * each pod having waited for its claim.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatefulSet } from '../../src/api/apps/v1.ts';
import type { PersistentVolumeClaim, Pod } from '../../src/api/core/v1.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

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

const claimSet = (name: string, replicas: number, policy: { whenDeleted?: string; whenScaled?: string }): StatefulSet => ({
  metadata: { name },
  spec: {
    replicas,
    serviceName: name,
    selector: { matchLabels: { app: name } },
    persistentVolumeClaimRetentionPolicy: policy,
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'postgres:16' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
});
const owners = (c: PersistentVolumeClaim): string[] => (c.metadata?.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}${r.controller === true ? '' : ' (not controller)'}`);

test('persistentVolumeClaimRetentionPolicy whenScaled Delete: a scaled-down pod owns its claim, which the garbage collector deletes after it; the kept claims have no owner', async (t) => {
  const { client } = await startCluster(t, { workloads: ['statefulset'], volumes: true, kubelet: { nodeCount: 2 } });
  const sets = client.appsV1().statefulSets('default');
  const claims = client.coreV1().persistentVolumeClaims('default');
  await sets.create(claimSet('db', 3, { whenScaled: 'Delete' }));
  await waitForObject(sets, 'db', (s) => s?.status?.readyReplicas === 3);
  const before = (await claims.list()).items;
  assert.deepEqual(before.map((c) => [c.metadata?.name, owners(c)]).sort(), [['data-db-0', []], ['data-db-1', []], ['data-db-2', []]]);
  await sets.patch('db', PatchType.Merge, { spec: { replicas: 1 } });
  const left = await waitForItems(claims, (items) => items.length === 1);
  assert.deepEqual(left.map((c) => [c.metadata?.name, owners(c)]), [['data-db-0', []]]);
  // Scaling up again creates fresh claims for the new pods.
  await sets.patch('db', PatchType.Merge, { spec: { replicas: 2 } });
  await waitForObject(sets, 'db', (s) => s?.status?.readyReplicas === 2);
  const again = await waitForItems(claims, (items) => items.length === 2);
  assert.ok(!again.some((c) => before.some((b) => b.metadata?.name === 'data-db-1' && b.metadata.uid === c.metadata?.uid)), 'data-db-1 is a new claim');
});

test('persistentVolumeClaimRetentionPolicy whenDeleted Delete: the claims are controlled by the StatefulSet and deleted with it; Retain keeps them', async (t) => {
  const { client } = await startCluster(t, { workloads: ['statefulset'], volumes: true, kubelet: { nodeCount: 2 } });
  const sets = client.appsV1().statefulSets('default');
  const claims = client.coreV1().persistentVolumeClaims('default');
  await sets.create(claimSet('gone', 2, { whenDeleted: 'Delete' }));
  await sets.create(claimSet('kept', 1, {}));
  await waitForObject(sets, 'gone', (s) => s?.status?.readyReplicas === 2);
  await waitForObject(sets, 'kept', (s) => s?.status?.readyReplicas === 1);
  const owned = await waitForItems(claims, (items) => items.filter((c) => owners(c).length > 0).length === 2);
  assert.deepEqual(owned.map((c) => [c.metadata?.name, owners(c)]).sort(), [['data-gone-0', ['StatefulSet/gone']], ['data-gone-1', ['StatefulSet/gone']], ['data-kept-0', []]]);
  await sets.delete('gone');
  await sets.delete('kept');
  const left = await waitForItems(claims, (items) => items.length === 1);
  assert.equal(left[0]?.metadata?.name, 'data-kept-0');
});
