/**
 * The DaemonSet controller (src/controllers/daemon) on the embedded server with a kubelet stand-in of
 * several nodes: one pod per eligible node, placed by the scheduler through node affinity, the
 * controller-revision-hash label, nodeSelector, and a rolling update.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DaemonSet } from '../../src/api/apps/v1.ts';
import type { Pod } from '../../src/api/core/v1.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

const ds = (name: string, spec: Partial<NonNullable<DaemonSet['spec']>> = {}): DaemonSet => ({
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'agent:1' }] } }, ...spec },
});

test('a DaemonSet runs one pod per eligible node, bound there by the scheduler, and rolls to a new template node by node', async (t) => {
  const { client } = await startCluster(t, { kubelet: { nodes: ['n1', 'n2', 'n3'] } });
  await client.coreV1().nodes().patch('n3', PatchType.Merge, { metadata: { labels: { role: 'edge' } } });
  const sets = client.appsV1().daemonSets('default');
  await sets.create(ds('agent'));
  const pods = await waitForItems(client.coreV1().pods('default'), (items) => items.filter((p) => p.status?.phase === 'Running').length === 3);
  assert.deepEqual(pods.map((p) => p.spec?.nodeName).sort(), ['n1', 'n2', 'n3']);
  const revisions = (await client.appsV1().controllerRevisions('default').list()).items;
  assert.equal(revisions.length, 1);
  const hash = revisions[0]!.metadata?.labels?.['controller-revision-hash'];
  assert.equal(revisions[0]!.metadata?.name, `agent-${hash ?? ''}`);
  assert.ok(pods.every((p) => p.metadata?.labels?.['controller-revision-hash'] === hash));
  assert.ok(pods.every((p) => p.spec?.tolerations?.some((tol) => tol.key === 'node.kubernetes.io/unschedulable')));
  const status = await waitForObject(sets, 'agent', (d) => d?.status?.numberAvailable === 3);
  assert.deepEqual(
    [status?.status?.desiredNumberScheduled, status?.status?.currentNumberScheduled, status?.status?.updatedNumberScheduled, status?.status?.numberReady, status?.status?.numberMisscheduled],
    [3, 3, 3, 3, 0],
  );

  await sets.patch('agent', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
  const rolled = await waitForItems(client.coreV1().pods('default'), (items) => items.length === 3 && items.every((p) => p.spec?.containers[0]?.image === 'agent:2' && p.status?.phase === 'Running'));
  assert.deepEqual(rolled.map((p) => p.spec?.nodeName).sort(), ['n1', 'n2', 'n3']);
  await waitForObject(sets, 'agent', (d) => d?.status?.updatedNumberScheduled === 3 && d.status.numberAvailable === 3);

  // A nodeSelector takes the pods off the nodes that do not match.
  await sets.patch('agent', PatchType.StrategicMerge, { spec: { template: { spec: { nodeSelector: { role: 'edge' } } } } });
  const edge = await waitForItems(client.coreV1().pods('default'), (items) => items.length === 1 && items[0]?.status?.phase === 'Running');
  assert.equal(edge[0]?.spec?.nodeName, 'n3');
  await waitForObject(sets, 'agent', (d) => d?.status?.desiredNumberScheduled === 1 && d.status.numberAvailable === 1);
});

test('maxSurge 1: a rolling update starts the new pod next to the old one and deletes the old one only once the new one is available, one node at a time', async (t) => {
  const { client } = await startCluster(t, { kubelet: { nodes: ['n1', 'n2', 'n3'] } });
  const sets = client.appsV1().daemonSets('default');
  await assert.rejects(sets.create(ds('both', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } })), /spec\.updateStrategy\.rollingUpdate\.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero/);
  await assert.rejects(sets.create(ds('none', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } })), /spec\.updateStrategy\.rollingUpdate\.maxUnavailable: Required value: cannot be 0 when maxSurge is 0/);
  await sets.create(ds('surge', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
  const ready = (p: Pod): boolean => p.metadata?.deletionTimestamp === undefined && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  await waitForItems(client.coreV1().pods('default'), (items) => items.filter(ready).length === 3);
  await waitForObject(sets, 'surge', (d) => d?.status?.numberAvailable === 3);
  await sets.patch('surge', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
  let maxLive = 0;
  const nodesWithoutReadyPod = new Set<string>();
  await waitForItems(client.coreV1().pods('default'), (items) => {
    const live = items.filter((p) => p.metadata?.deletionTimestamp === undefined);
    maxLive = Math.max(maxLive, live.length);
    for (const n of ['n1', 'n2', 'n3']) if (!items.some((p) => p.spec?.nodeName === n && ready(p))) nodesWithoutReadyPod.add(n);
    return items.length === 3 && items.every((p) => p.spec?.containers[0]?.image === 'agent:2' && ready(p));
  });
  assert.equal(maxLive, 4, 'never more than one surge pod at a time (and one was surged)');
  assert.deepEqual([...nodesWithoutReadyPod], [], 'every node kept a ready pod throughout');
  const done = await waitForObject(sets, 'surge', (d) => d?.status?.updatedNumberScheduled === 3 && d.status.numberAvailable === 3);
  assert.equal(done?.status?.numberUnavailable ?? 0, 0);
});
