/**
 * The Deployment controller (src/controllers/deployment) on the embedded server with the scheduler and
 * kubelet stand-ins and the ReplicaSet controller: the new ReplicaSet and its pod-template-hash, a
 * rolling update within maxSurge/maxUnavailable, Recreate, rollback by template, revision history
 * cleanup, pause, and the Available and Progressing conditions including the progress deadline.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Deployment, ReplicaSet } from '../../src/api/apps/v1.ts';
import type { Pod } from '../../src/api/core/v1.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import type { Clientset } from '../../src/kubernetes/clientset.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

function deployment(name: string, replicas: number, image = 'nginx:1', spec: Partial<NonNullable<Deployment['spec']>> = {}): Deployment {
  return {
    metadata: { name, annotations: { team: 'a' } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } }, ...spec },
  };
}

const condition = (d: Deployment | undefined, type: string) => d?.status?.conditions?.find((c) => c.type === type);
const complete = (d: Deployment | undefined): boolean => condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable' && d?.status?.updatedReplicas === d?.spec?.replicas && d?.status?.availableReplicas === d?.spec?.replicas && d?.status?.replicas === d?.spec?.replicas && (d?.status?.observedGeneration ?? 0) >= (d?.metadata?.generation ?? 0);

async function setImage(client: Clientset, name: string, image: string): Promise<void> {
  await client.appsV1().deployments('default').patch(name, PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } });
}

test('a Deployment gets a ReplicaSet named by its pod-template-hash, revision 1, and becomes Available with NewReplicaSetAvailable', async (t) => {
  const { client } = await startCluster(t);
  const deployments = client.appsV1().deployments('default');
  const d = await deployments.create(deployment('web', 3));
  const done = await waitForObject(deployments, 'web', complete);
  assert.equal(done?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.deepEqual(
    done?.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${(await client.appsV1().replicaSets('default').list()).items[0]?.metadata?.name ?? ''}" has successfully progressed.`],
    ],
  );
  const [rs] = (await client.appsV1().replicaSets('default').list()).items;
  const hash = rs?.metadata?.labels?.['pod-template-hash'] ?? '';
  assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.equal(rs?.metadata?.name, `web-${hash}`);
  assert.deepEqual(rs?.spec?.selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
  assert.deepEqual(rs?.spec?.template?.metadata?.labels, { app: 'web', 'pod-template-hash': hash });
  assert.deepEqual(rs?.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
  assert.deepEqual(rs?.metadata?.annotations, { team: 'a', 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
  assert.deepEqual(done?.status && { ...done.status, conditions: undefined }, { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: undefined });
  const events = await waitForItems(client.coreV1().events('default'), (items) => items.some((e) => e.reason === 'ScalingReplicaSet'));
  assert.deepEqual(
    events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => [e.source?.component, e.message]),
    [['deployment-controller', `Scaled up replica set web-${hash} from 0 to 3`]],
  );
});

test('a rolling update never exceeds maxSurge nor drops below maxUnavailable, and ends with the old ReplicaSet at 0', async (t) => {
  const { client } = await startCluster(t);
  const deployments = client.appsV1().deployments('default');
  await deployments.create(deployment('web', 4, 'nginx:1', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
  await waitForObject(deployments, 'web', complete);
  // Watch the pods during the rollout: never more than 5 (4 + maxSurge), never fewer than 4 ready.
  let maxPods = 0;
  let minReady = Number.POSITIVE_INFINITY;
  const pods = client.coreV1().pods('default');
  const observing = waitForItems(pods, (items: Pod[]) => {
    const live = items.filter((p) => p.metadata?.deletionTimestamp === undefined);
    maxPods = Math.max(maxPods, live.length);
    minReady = Math.min(minReady, live.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length);
    return live.length === 4 && live.every((p) => p.spec?.containers[0]?.image === 'nginx:2' && p.status?.phase === 'Running');
  });
  await setImage(client, 'web', 'nginx:2');
  await observing;
  const done = await waitForObject(deployments, 'web', (d) => complete(d) && d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '2');
  assert.ok(maxPods <= 5, `at most 5 pods at once, saw ${maxPods}`);
  assert.ok(minReady >= 4 || minReady === Number.POSITIVE_INFINITY, `at least 4 ready at all times, saw ${minReady}`);
  assert.equal(done?.status?.updatedReplicas, 4);
  const rss = (await client.appsV1().replicaSets('default').list()).items;
  assert.deepEqual(rss.map((rs) => [rs.metadata?.annotations?.['deployment.kubernetes.io/revision'], rs.spec?.replicas]).sort(), [['1', 0], ['2', 4]]);
});

test('Recreate scales the old ReplicaSet to 0 and waits for its pods to go before creating the new one', async (t) => {
  const { client } = await startCluster(t);
  const deployments = client.appsV1().deployments('default');
  await deployments.create(deployment('web', 2, 'nginx:1', { strategy: { type: 'Recreate' } }));
  await waitForObject(deployments, 'web', complete);
  let overlap = false;
  const observing = waitForItems(client.coreV1().pods('default'), (items: Pod[]) => {
    const images = new Set(items.map((p) => p.spec?.containers[0]?.image));
    if (images.has('nginx:1') && images.has('nginx:2')) overlap = true;
    return items.length === 2 && items.every((p) => p.spec?.containers[0]?.image === 'nginx:2' && p.status?.phase === 'Running');
  });
  await setImage(client, 'web', 'nginx:2');
  await observing;
  await waitForObject(deployments, 'web', (d) => complete(d) && d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '2');
  assert.equal(overlap, false, 'old and new pods never coexist');
});

test('rollback by template (kubectl rollout undo) brings the old ReplicaSet back as the newest revision, recording its old one', async (t) => {
  const { client } = await startCluster(t);
  const deployments = client.appsV1().deployments('default');
  await deployments.create(deployment('web', 2));
  await waitForObject(deployments, 'web', complete);
  await setImage(client, 'web', 'nginx:2');
  await waitForObject(deployments, 'web', (d) => complete(d) && d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '2');
  await setImage(client, 'web', 'nginx:1');
  const back = await waitForObject(deployments, 'web', (d) => complete(d) && d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '3');
  const rss = (await client.appsV1().replicaSets('default').list()).items;
  assert.equal(rss.length, 2, 'no third ReplicaSet: the first one is current again');
  const first = rss.find((rs) => rs.spec?.template?.spec?.containers[0]?.image === 'nginx:1');
  assert.equal(first?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '3');
  assert.equal(first?.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], '1');
  assert.equal(first?.spec?.replicas, 2);
  assert.equal(back?.status?.updatedReplicas, 2);
});

test('revisionHistoryLimit: old ReplicaSets scaled to 0 beyond the limit are deleted, lowest revision first', async (t) => {
  const { client } = await startCluster(t);
  const deployments = client.appsV1().deployments('default');
  await deployments.create(deployment('web', 1, 'nginx:1', { revisionHistoryLimit: 1 }));
  for (const [i, image] of ['nginx:1', 'nginx:2', 'nginx:3'].entries()) {
    if (i > 0) await setImage(client, 'web', image);
    await waitForObject(deployments, 'web', (d) => complete(d) && d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === String(i + 1));
  }
  const rss = await waitForItems(client.appsV1().replicaSets('default'), (items: ReplicaSet[]) => items.length === 2);
  assert.deepEqual(rss.map((rs) => rs.spec?.template?.spec?.containers[0]?.image).sort(), ['nginx:2', 'nginx:3']);
});

test('a paused Deployment scales but does not roll out; resumed, it rolls out; the Progressing condition says DeploymentPaused then DeploymentResumed', async (t) => {
  const { client } = await startCluster(t);
  const deployments = client.appsV1().deployments('default');
  await deployments.create(deployment('web', 2));
  await waitForObject(deployments, 'web', complete);
  await deployments.patch('web', PatchType.Merge, { spec: { paused: true } });
  const paused = await waitForObject(deployments, 'web', (d) => condition(d, 'Progressing')?.reason === 'DeploymentPaused');
  assert.deepEqual([condition(paused, 'Progressing')?.status, condition(paused, 'Progressing')?.message], ['Unknown', 'Deployment is paused']);
  await setImage(client, 'web', 'nginx:2');
  await deployments.patch('web', PatchType.Merge, { spec: { replicas: 3 } });
  await waitForObject(deployments, 'web', (d) => d?.status?.availableReplicas === 3 && d.status.observedGeneration === d.metadata?.generation);
  assert.equal((await client.appsV1().replicaSets('default').list()).items.length, 1, 'no new ReplicaSet while paused');
  await deployments.patch('web', PatchType.Merge, { spec: { paused: false } });
  const resumed = await waitForObject(deployments, 'web', (d) => complete(d) && d?.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '2');
  assert.equal(resumed?.status?.replicas, 3);
  const reasons = (await client.coreV1().events('default').list()).items.filter((e) => e.reason === 'ScalingReplicaSet').length;
  assert.ok(reasons >= 3);
});

test('progress deadline: a rollout whose pods never become ready turns Progressing False with ProgressDeadlineExceeded, and Available stays as it was', async (t) => {
  // Pods of the new template stay Pending: no node matches their nodeSelector.
  const { client } = await startCluster(t);
  const deployments = client.appsV1().deployments('default');
  await deployments.create(deployment('web', 1, 'nginx:1', { progressDeadlineSeconds: 1 }));
  await waitForObject(deployments, 'web', complete);
  await deployments.patch('web', PatchType.StrategicMerge, { spec: { template: { spec: { nodeSelector: { disk: 'ssd' } } } } });
  const stuck = await waitForObject(deployments, 'web', (d) => condition(d, 'Progressing')?.reason === 'ProgressDeadlineExceeded');
  const progressing = condition(stuck, 'Progressing');
  assert.equal(progressing?.status, 'False');
  assert.match(progressing?.message ?? '', /^ReplicaSet "web-[a-z0-9]+" has timed out progressing\.$/);
  assert.equal(condition(stuck, 'Available')?.status, 'True', 'the old pod still serves');
});
