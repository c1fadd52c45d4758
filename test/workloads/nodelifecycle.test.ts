/**
 * The node lifecycle controller end to end (src/controllers/nodelifecycle): a node's kubelet stops, the
 * node goes Unknown and is tainted after node-monitor-grace-period, its pod is evicted after its
 * tolerationSeconds and the ReplicaSet replaces it on the node that is still up; the kubelet comes back and
 * the taints go. Virtual time throughout (FakeClock, stepped one node-monitor-period at a time).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from '../../src/api/core/v1.ts';
import { UnknownKubeletNodeError } from '../../src/apiserver/index.ts';
import { FakeClock } from '../../src/util/clock/clock.ts';
import { startCluster, waitForItems } from './support.ts';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const ms = (t: string | undefined): number => Date.parse(t ?? '');

test('a stopped kubelet: its node is Unknown and tainted after 40 s, its pod evicted after tolerationSeconds and recreated elsewhere; resumed, the taints go', async (t) => {
  const clock = new FakeClock(t0);
  const { server, client } = await startCluster(t, { kubelet: { nodes: ['nodelife-a', 'nodelife-b'] }, workloads: ['replicaset', 'nodelifecycle'] }, { clock });
  const pods = client.coreV1().pods('default');
  const toleration = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 } as const;
  await client.appsV1().replicaSets('default').create({
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }], tolerations: [toleration] } },
    },
  });
  const ready = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  // The scheduler stand-in spreads them: one pod per node.
  // The controllers wait for their caches on the fake clock: let it move until the ReplicaSet's pods exist.
  for (let i = 0; i < 100 && (await pods.list()).items.length < 2; i++) {
    await clock.step(100);
    await server.controllers.waitForIdle();
  }
  const placed = await waitForItems(pods, (items) => items.length === 2 && items.every(ready) && new Set(items.map((p) => p.spec?.nodeName)).size === 2);
  const victim = placed.find((p) => p.spec?.nodeName === 'nodelife-b')!;

  assert.throws(() => server.controllers.stopKubelet('nodelife-c'), UnknownKubeletNodeError);
  server.controllers.stopKubelet('nodelife-b');
  const lastRenewal = ms((await client.coordinationV1().leases('kube-node-lease').get('nodelife-b')).spec?.renewTime);
  const node = (): Promise<Node> => client.coreV1().nodes().get('nodelife-b');
  const noExecute = (n: Node) => n.spec?.taints?.find((x) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoExecute');
  // One node-monitor-period at a time until the NoExecute taint is there.
  let tainted: Node | undefined;
  for (let i = 0; i < 30 && tainted === undefined; i++) {
    await clock.step(5000);
    await server.controllers.waitForIdle();
    const n = await node();
    if (noExecute(n) !== undefined) tainted = n;
  }
  assert.ok(tainted !== undefined, 'tainted unreachable:NoExecute');
  const readyCondition = tainted.status?.conditions?.find((c) => c.type === 'Ready');
  assert.deepEqual([readyCondition?.status, readyCondition?.reason], ['Unknown', 'NodeStatusUnknown']);
  // Unknown at the first pass more than 40 s after the pass that saw the last renewal (passes every 5 s).
  const unknownAfter = ms(readyCondition?.lastTransitionTime) - lastRenewal;
  assert.ok(unknownAfter > 40_000 && unknownAfter <= 50_000, `Unknown ${unknownAfter} ms after the last renewal`);
  assert.ok(tainted.spec?.taints?.some((x) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoSchedule'));
  // The NoExecute taint comes one pass after the transition.
  assert.equal(ms(noExecute(tainted)?.timeAdded) - ms(readyCondition?.lastTransitionTime), 5000);
  const notReady = await pods.get(victim.metadata?.name ?? '');
  assert.equal(notReady.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');

  // 60 s after the taint the pod is deleted (its 30 s grace period: the stopped kubelet never confirms, it
  // stays Terminating) and the ReplicaSet creates a replacement, which the scheduler puts on nodelife-a.
  const taintedAt = ms(noExecute(tainted)?.timeAdded);
  for (let i = 0; i < 13; i++) {
    await clock.step(5000);
    await server.controllers.waitForIdle();
  }
  const after = await waitForItems(pods, (items) => items.length === 3 && items.filter((p) => p.metadata?.deletionTimestamp === undefined).every((p) => ready(p) && p.spec?.nodeName === 'nodelife-a'));
  const evicted = after.find((p) => p.metadata?.name === victim.metadata?.name);
  assert.equal(ms(evicted?.metadata?.deletionTimestamp), taintedAt + 60_000 + 30_000);
  assert.equal(after.filter((p) => p.spec?.nodeName === 'nodelife-a').length, 2);

  // The kubelet is back: the Terminating pod goes, Ready is posted, the taints come off.
  server.controllers.resumeKubelet('nodelife-b');
  await clock.step(5000);
  await server.controllers.waitForIdle();
  const nodes = await waitForItems(client.coreV1().nodes(), (items) => {
    const b = items.find((n) => n.metadata?.name === 'nodelife-b');
    return (b?.spec?.taints ?? []).length === 0 && b?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  });
  assert.equal(nodes.length, 2);
  await waitForItems(pods, (items) => items.length === 2 && items.every((p) => p.spec?.nodeName === 'nodelife-a'));
});
