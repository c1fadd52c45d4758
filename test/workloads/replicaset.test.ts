/**
 * The ReplicaSet controller (src/controllers/replicaset) on the embedded server with the scheduler and
 * kubelet stand-ins: pods created from the template with a controller reference, status counts, scale
 * down by the deletion ranking, adoption and release, and the ReplicaFailure condition.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReplicaSet } from '../../src/api/apps/v1.ts';
import type { Pod } from '../../src/api/core/v1.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

function replicaSet(name: string, replicas: number, extra: Partial<NonNullable<ReplicaSet['spec']>> = {}): ReplicaSet {
  return {
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name, tier: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...extra },
  };
}

const controlledBy = (rs: ReplicaSet) => (p: Pod) => p.metadata?.ownerReferences?.some((r) => r.controller === true && r.uid === rs.metadata?.uid) === true;

test('a ReplicaSet gets its pods, owned and labelled from the template, then status counts them; scaling down deletes the surplus', async (t) => {
  const { client } = await startCluster(t);
  const rss = client.appsV1().replicaSets('default');
  const pods = client.coreV1().pods('default');
  const rs = await rss.create(replicaSet('web', 3));
  const running = await waitForItems(pods, (items) => items.filter(controlledBy(rs)).filter((p) => p.status?.phase === 'Running').length === 3);
  for (const p of running) {
    assert.equal(p.metadata?.generateName, 'web-');
    assert.deepEqual(p.metadata?.labels, { app: 'web', tier: 'web' });
    assert.deepEqual(p.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
  }
  const ready = await waitForObject(rss, 'web', (o) => o?.status?.availableReplicas === 3);
  assert.deepEqual(ready?.status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });

  const events = await waitForItems(client.coreV1().events('default'), (items) => items.filter((e) => e.reason === 'SuccessfulCreate').length === 3);
  const created = events.filter((e) => e.reason === 'SuccessfulCreate');
  assert.deepEqual(created.map((e) => e.source?.component), ['replicaset-controller', 'replicaset-controller', 'replicaset-controller']);
  assert.deepEqual(created.map((e) => e.message).sort(), running.map((p) => `Created pod: ${p.metadata?.name ?? ''}`).sort());

  await rss.patch('web', PatchType.Merge, { spec: { replicas: 1 } });
  const after = await waitForObject(rss, 'web', (o) => o?.status?.replicas === 1 && o.status.observedGeneration === 2);
  assert.equal(after?.status?.availableReplicas, 1);
  const left = await waitForItems(pods, (items) => items.length === 1);
  assert.equal(left.filter(controlledBy(rs)).length, 1);
  await waitForItems(client.coreV1().events('default'), (items) => items.filter((e) => e.reason === 'SuccessfulDelete').length === 2);
});

test('scaling down deletes unscheduled and unready pods before ready ones', async (t) => {
  // No kubelet: pods stay Pending; one is made Ready by hand, and the scale-down keeps it.
  const { client } = await startCluster(t, { kubelet: false, scheduler: false });
  const rss = client.appsV1().replicaSets('default');
  const pods = client.coreV1().pods('default');
  const rs = await rss.create(replicaSet('web', 3));
  const created = await waitForItems(pods, (items) => items.filter(controlledBy(rs)).length === 3);
  const keep = created[1]!.metadata!.name!;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await pods.patch(keep, PatchType.Merge, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }, { subresource: 'status' });
  await waitForObject(rss, 'web', (o) => o?.status?.readyReplicas === 1);
  await rss.patch('web', PatchType.Merge, { spec: { replicas: 1 } });
  const left = await waitForItems(pods, (items) => items.length === 1);
  assert.equal(left[0]?.metadata?.name, keep);
});

test('a ReplicaSet adopts a matching orphan instead of creating a pod, and releases a pod relabelled out of its selector', async (t) => {
  const { client } = await startCluster(t);
  const rss = client.appsV1().replicaSets('default');
  const pods = client.coreV1().pods('default');
  await pods.create({ metadata: { name: 'orphan', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const rs = await rss.create(replicaSet('web', 2));
  const owned = await waitForItems(pods, (items) => items.filter(controlledBy(rs)).length === 2);
  assert.ok(owned.some((p) => p.metadata?.name === 'orphan'), 'the orphan was adopted');
  assert.equal(owned.length, 2, 'only one pod was created');

  await pods.patch('orphan', PatchType.Merge, { metadata: { labels: { app: 'other' } } });
  const after = await waitForItems(pods, (items) => items.filter(controlledBy(rs)).length === 2 && items.length === 3);
  const released = after.find((p) => p.metadata?.name === 'orphan');
  assert.deepEqual(released?.metadata?.ownerReferences ?? [], []);
});

test('ReplicaFailure: pods the API refuses set the condition (FailedCreate) and a Warning event; once creates succeed the condition goes', async (t) => {
  const { client } = await startCluster(t);
  const rss = client.appsV1().replicaSets('default');
  const spec = replicaSet('web', 2).spec!;
  spec.template!.spec!.priorityClassName = 'missing';
  await rss.create({ metadata: { name: 'web' }, spec });
  const failing = await waitForObject(rss, 'web', (o) => o?.status?.conditions?.some((c) => c.type === 'ReplicaFailure') === true);
  const cond = failing?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  assert.equal(cond?.status, 'True');
  assert.equal(cond?.reason, 'FailedCreate');
  assert.match(cond?.message ?? '', /no PriorityClass with name missing was found/);
  assert.equal(failing?.status?.replicas, 0);
  const events = await waitForItems(client.coreV1().events('default'), (items) => items.some((e) => e.reason === 'FailedCreate'));
  const warning = events.find((e) => e.reason === 'FailedCreate');
  assert.equal(warning?.type, 'Warning');
  assert.match(warning?.message ?? '', /^Error creating: .*no PriorityClass with name missing was found/);

  await client.schedulingV1().priorityClasses().create({ metadata: { name: 'missing' }, value: 10 });
  const healed = await waitForObject(rss, 'web', (o) => o?.status?.availableReplicas === 2);
  assert.equal(healed?.status?.conditions, undefined);
});
