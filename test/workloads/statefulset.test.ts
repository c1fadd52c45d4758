/**
 * The StatefulSet controller (src/controllers/statefulset) on the embedded server with the stand-ins:
 * ordered creation and scale-down, stable identities and claims, ControllerRevisions and the
 * controller-revision-hash label, partitioned rolling updates, Parallel management.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { StatefulSet } from '../../src/api/apps/v1.ts';
import type { Pod } from '../../src/api/core/v1.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { startControllers } from '../../src/controllers/controller-manager.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

function statefulSet(name: string, replicas: number, spec: Partial<NonNullable<StatefulSet['spec']>> = {}): StatefulSet {
  return {
    metadata: { name },
    spec: { replicas, serviceName: name, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } }, ...spec },
  };
}

const ready = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

test('OrderedReady: pods are created one at a time in ordinal order with stable identities and claims, and removed from the highest ordinal', async (t) => {
  const { client } = await startCluster(t);
  const sets = client.appsV1().statefulSets('default');
  const pods = client.coreV1().pods('default');
  // Record the order in which pods appear and whether the previous one was ready by then.
  const seen: string[] = [];
  let orderedOk = true;
  const watching = waitForItems(pods, (items: Pod[]) => {
    for (const p of items) {
      const name = p.metadata?.name ?? '';
      if (seen.includes(name)) continue;
      seen.push(name);
      const ord = Number(name.split('-').at(-1));
      if (ord > 0 && !items.some((q) => q.metadata?.name === `web-${ord - 1}` && ready(q))) orderedOk = false;
    }
    return items.filter(ready).length === 3;
  });
  await sets.create(statefulSet('web', 3, { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }));
  const all = await watching;
  assert.deepEqual(seen, ['web-0', 'web-1', 'web-2']);
  assert.ok(orderedOk, 'each pod was created after the previous one was Ready');
  const web1 = all.find((p) => p.metadata?.name === 'web-1')!;
  assert.equal(web1.spec?.hostname, 'web-1');
  assert.equal(web1.spec?.subdomain, 'web');
  assert.equal(web1.metadata?.labels?.['statefulset.kubernetes.io/pod-name'], 'web-1');
  assert.equal(web1.metadata?.labels?.['apps.kubernetes.io/pod-index'], '1');
  assert.deepEqual(web1.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim, { claimName: 'data-web-1' });
  const claims = (await client.coreV1().persistentVolumeClaims('default').list()).items.map((c) => c.metadata?.name).sort();
  assert.deepEqual(claims, ['data-web-0', 'data-web-1', 'data-web-2']);
  const revisions = (await client.appsV1().controllerRevisions('default').list()).items;
  assert.equal(revisions.length, 1);
  const rev = revisions[0]!;
  assert.equal(rev.revision, 1);
  assert.equal(web1.metadata?.labels?.['controller-revision-hash'], rev.metadata?.name);
  assert.equal(rev.metadata?.name, `web-${rev.metadata?.labels?.['controller.kubernetes.io/hash'] ?? ''}`);
  const done = await waitForObject(sets, 'web', (s) => s?.status?.readyReplicas === 3 && s.status.currentRevision === rev.metadata?.name);
  assert.deepEqual(
    { ...done?.status, collisionCount: undefined },
    { observedGeneration: 1, replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: rev.metadata?.name, updateRevision: rev.metadata?.name, collisionCount: undefined },
  );

  await sets.patch('web', PatchType.Merge, { spec: { replicas: 1 } });
  const left = await waitForItems(pods, (items) => items.length === 1);
  assert.equal(left[0]?.metadata?.name, 'web-0');
  // Claims stay (persistentVolumeClaimRetentionPolicy Retain).
  assert.equal((await client.coreV1().persistentVolumeClaims('default').list()).items.length, 3);
});

test('a partitioned rolling update updates only ordinals at or above the partition, from the highest down, and records a new revision', async (t) => {
  const { client } = await startCluster(t);
  const sets = client.appsV1().statefulSets('default');
  const pods = client.coreV1().pods('default');
  await sets.create(statefulSet('db', 3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }));
  await waitForObject(sets, 'db', (s) => s?.status?.readyReplicas === 3);
  await sets.patch('db', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
  const after = await waitForItems(pods, (items) => items.filter((p) => p.spec?.containers[0]?.image === 'nginx:2' && ready(p)).length === 2 && items.filter(ready).length === 3);
  const image = (n: string): string | undefined => after.find((p) => p.metadata?.name === n)?.spec?.containers[0]?.image;
  assert.deepEqual([image('db-0'), image('db-1'), image('db-2')], ['nginx:1', 'nginx:2', 'nginx:2']);
  const status = (await waitForObject(sets, 'db', (s) => s?.status?.updatedReplicas === 2 && s.status.readyReplicas === 3))!.status!;
  assert.notEqual(status.currentRevision, status.updateRevision, 'not complete below the partition');
  assert.equal(status.currentReplicas, 1);
  const revisions = (await client.appsV1().controllerRevisions('default').list()).items.map((r) => r.revision).sort();
  assert.deepEqual(revisions, [1, 2]);
  // Partition 0: the rest follows, and the update revision becomes current.
  await sets.patch('db', PatchType.Merge, { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
  const complete = await waitForObject(sets, 'db', (s) => s?.status?.updatedReplicas === 3 && s.status.currentRevision === s.status.updateRevision && s.status.readyReplicas === 3);
  assert.equal(complete?.status?.currentReplicas, 3);
});

test('Parallel: every pod is created at once', async (t) => {
  // No kubelet: pods never become Ready, and Parallel creates them all anyway.
  const { client } = await startCluster(t, { kubelet: false });
  await client.appsV1().statefulSets('default').create(statefulSet('par', 3, { podManagementPolicy: 'Parallel' }));
  const created = await waitForItems(client.coreV1().pods('default'), (items) => items.length === 3);
  assert.deepEqual(created.map((p) => p.metadata?.name).sort(), ['par-0', 'par-1', 'par-2']);
});

/** The most pods of a 4-replica set that were unavailable at once during a rolling update, with or without the gate. */
async function maxUnavailableDuringUpdate(t: TestContext, gate: boolean): Promise<number> {
  const { client } = await startCluster(t, { workloads: ['*', '-statefulset'] });
  const running = startControllers(client, { controllers: ['statefulset'], featureGates: { MaxUnavailableStatefulSet: gate }, onError: () => undefined });
  t.after(() => running.stop());
  const sets = client.appsV1().statefulSets('default');
  await sets.create(statefulSet('web', 4, { podManagementPolicy: 'Parallel', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } }));
  await waitForObject(sets, 'web', (s) => s?.status?.readyReplicas === 4);
  await sets.patch('web', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
  let most = 0;
  await waitForItems(client.coreV1().pods('default'), (items) => {
    const available = items.filter((p) => p.metadata?.deletionTimestamp === undefined && ready(p)).length;
    most = Math.max(most, 4 - available);
    return items.length === 4 && items.every((p) => p.spec?.containers[0]?.image === 'nginx:2' && ready(p) && p.metadata?.deletionTimestamp === undefined);
  });
  // Stopped before the cluster's client closes (its events are written through it).
  await running.stop();
  return most;
}

test('MaxUnavailableStatefulSet on: a rolling update takes down up to maxUnavailable (2) pods at once, never more', async (t) => {
  assert.equal(await maxUnavailableDuringUpdate(t, true), 2);
});

test('MaxUnavailableStatefulSet off (the default, as in v1.24): maxUnavailable is ignored and pods are updated one at a time', async (t) => {
  assert.equal(await maxUnavailableDuringUpdate(t, false), 1);
});

test('ControllerRevision names and controller-revision-hash equal those a real kube-controller-manager v1.24 wrote for the same StatefulSets', async (t) => {
  const { client } = await startCluster(t, { workloads: ['statefulset'] });
  const recorded = JSON.parse(readFileSync(new URL('../../src/controllers/hash/testdata/statefulset-revisions.json', import.meta.url), 'utf8')) as { revisions: Array<{ name: string }> };
  const manifests = parseAllDocuments(readFileSync(new URL('./testdata/statefulset-hash-sets.yaml', import.meta.url), 'utf8')).map((d) => d.toJSON() as StatefulSet);
  const sets = client.appsV1().statefulSets('default');
  for (const m of manifests) await sets.create({ metadata: { name: m.metadata!.name! }, spec: m.spec! });
  const first = await waitForItems(sets, (items) => items.length === 4 && items.every((s) => s.status?.updateRevision !== undefined));
  await sets.patch('plain', PatchType.Merge, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.26' }] } } } });
  await waitForObject(sets, 'plain', (s) => s?.status?.updateRevision !== first.find((f) => f.metadata?.name === 'plain')?.status?.updateRevision);
  const names = (await client.appsV1().controllerRevisions('default').list()).items.map((r) => r.metadata?.name).sort();
  assert.deepEqual(names, recorded.revisions.map((r) => r.name).sort());
});
