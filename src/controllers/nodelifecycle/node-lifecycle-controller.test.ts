import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Lease } from '../../api/coordination/v1.ts';
import type { Event, Node, Pod, Taint, Toleration } from '../../api/core/v1.ts';
import { startApiServer } from '../../apiserver/index.ts';
import { newSharedInformerFactory, type TypedSharedInformerFactory } from '../../informers/factory.ts';
import { newClientset, type Clientset } from '../../kubernetes/clientset.ts';
import { newCoreEventSink } from '../../tools/events/event-sink.ts';
import { EventBroadcaster } from '../../tools/events/record/event.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import type { ControllerContext } from '../controller-context.ts';
import { computeZoneState, getZoneKey, NodeLifecycleController, ZoneState } from './node-lifecycle-controller.ts';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const stamp = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const micro = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');

/** Turns the event loop until `ok` holds (explicit conditions; a bound on turns, not on time). */
async function until(ok: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200_000; i++) {
    if (await ok()) return;
    await new Promise((r) => setImmediate(r));
  }
  assert.fail(`never: ${what}`);
}

interface Env {
  client: Clientset;
  clock: FakeClock;
  nlc: NodeLifecycleController;
  factory: TypedSharedInformerFactory;
  /** Renews a node's Lease and waits until the controller's cache has it. */
  renew(node: string): Promise<void>;
  /** Steps the clock and waits until the controller has done what became due. */
  step(ms: number): Promise<void>;
  node(name: string): Promise<Node>;
  events(): Promise<Event[]>;
}

function readyNode(name: string, now: number, labels: Record<string, string> = {}): Node {
  const c = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastHeartbeatTime: stamp(now), lastTransitionTime: stamp(now) });
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    status: {
      conditions: [
        c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        c('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
    },
  };
}

/** A server on a fake clock with `nodes` registered and Ready (Leases renewed now), and a running controller. */
async function setup(t: TestContext, nodes: { name: string; labels?: Record<string, string> }[], pods: Pod[] = []): Promise<Env> {
  const clock = new FakeClock(t0);
  const server = await startApiServer({ clock });
  // No client-side throttling: the test's own reads would otherwise hold the controller's writes back.
  const client = newClientset({ host: server.url, qps: -1 });
  for (const n of nodes) {
    const created = await client.coreV1().nodes().create(readyNode(n.name, clock.now(), n.labels));
    await client.coreV1().nodes().updateStatus({ ...created, status: readyNode(n.name, clock.now()).status! });
    await client.coordinationV1().leases('kube-node-lease').create({ metadata: { name: n.name }, spec: { holderIdentity: n.name, leaseDurationSeconds: 40, renewTime: micro(clock.now()) } });
  }
  for (const p of pods) {
    const created = await client.coreV1().pods(p.metadata?.namespace ?? 'default').create(p);
    const now = stamp(clock.now());
    await client.coreV1().pods(p.metadata?.namespace ?? 'default').updateStatus({
      ...created,
      status: { phase: 'Running', conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: now })) },
    });
  }
  // The informers on the real clock (their waits poll it); the controller's own time is the fake one.
  const factory = newSharedInformerFactory(client);
  const eventBroadcaster = new EventBroadcaster({ clock });
  const stopRecording = eventBroadcaster.startRecordingToSink(newCoreEventSink((ns) => client.coreV1().events(ns)));
  const ctx: ControllerContext = { client, informerFactory: factory, eventBroadcaster, clock, onError: (_c, err) => assert.fail(String(err)) };
  const nlc = new NodeLifecycleController(ctx);
  const stop = new AbortController();
  factory.start({ signal: stop.signal });
  // Synced before the controller starts: its own wait for the caches sleeps on the fake clock.
  await factory.waitForCacheSync({ signal: stop.signal });
  const running = nlc.run({ signal: stop.signal });
  t.after(async () => {
    stop.abort();
    await running;
    await factory.shutdown();
    stopRecording();
    await eventBroadcaster.shutdown();
    await client.close();
    await server.stop();
  });
  const leases = factory.coordinationV1().leases().lister();
  const podLister = factory.coreV1().pods().lister();
  const idle = (): boolean => {
    const a = nlc.controller.stats();
    const b = nlc.taintManager.controller.stats();
    return a.queueDepth === 0 && a.inFlight === 0 && b.queueDepth === 0 && b.inFlight === 0;
  };
  // The first pass: every node registered.
  await until(async () => idle() && nlc.zoneStates().size > 0 && podLister.list().length === pods.length, 'first pass');
  return {
    client,
    clock,
    nlc,
    factory,
    async renew(node) {
      const lease = await client.coordinationV1().leases('kube-node-lease').get(node);
      const renewTime = micro(clock.now());
      await client.coordinationV1().leases('kube-node-lease').update({ ...lease, spec: { ...lease.spec, renewTime } });
      await until(() => {
        try {
          return (leases.namespace('kube-node-lease').get(node) as Lease).spec?.renewTime === renewTime;
        } catch {
          return false;
        }
      }, `lease ${node} renewed in the cache`);
    },
    async step(ms) {
      await clock.step(ms);
      await until(idle, 'controller idle');
    },
    node: (name) => client.coreV1().nodes().get(name),
    events: async () => (await client.coreV1().events('').list()).items,
  };
}

const pod = (name: string, node: string, tolerations: Toleration[] = []): Pod => ({ metadata: { name, namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'x:1' }], tolerations } });
const unreachableFor = (seconds: number): Toleration => ({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
const taintsOf = (n: Node): string[] => (n.spec?.taints ?? []).map((t: Taint) => `${t.key}:${t.effect}`).sort();
const readyStatus = (n: Node): string => n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '';

test('computeZoneState: fully disrupted without a ready node, partially with more than 2 and 55 % not ready (upstream table)', () => {
  const c = (status: string) => ({ type: 'Ready', status });
  assert.deepEqual(computeZoneState([c('Unknown')]), { notReady: 1, state: ZoneState.FullDisruption });
  assert.deepEqual(computeZoneState([c('True'), c('False'), c('Unknown')]), { notReady: 2, state: ZoneState.Normal });
  assert.deepEqual(computeZoneState([c('True'), c('True'), c('False'), c('Unknown'), c('False')]), { notReady: 3, state: ZoneState.PartialDisruption });
  assert.deepEqual(computeZoneState([c('True'), c('True'), c('True'), c('False'), c('Unknown'), c('False')]), { notReady: 3, state: ZoneState.Normal });
  assert.deepEqual(computeZoneState([c('True'), undefined]), { notReady: 1, state: ZoneState.Normal });
  assert.equal(getZoneKey({ metadata: { labels: { 'topology.kubernetes.io/zone': 'a', 'failure-domain.beta.kubernetes.io/region': 'r' } } }), 'r:\u0000:a');
  assert.equal(getZoneKey({ metadata: {} }), '');
});

test('a node whose Lease stops is Unknown after 40 s, tainted unreachable (NoSchedule at once, NoExecute a pass later), its pods not ready and evicted by their tolerations', async (t) => {
  const env = await setup(
    t,
    [{ name: 'n1' }, { name: 'n2' }],
    [pod('p-t0', 'n2', [unreachableFor(0)]), pod('p-t20', 'n2', [unreachableFor(20), unreachableFor(60)]), pod('p-default', 'n2'), pod('p-forever', 'n2', [{ operator: 'Exists' }]), pod('p-n1', 'n1')],
  );
  // TaintNodesByCondition's not-ready:NoSchedule came off once the node was seen Ready.
  await until(async () => taintsOf(await env.node('n2')).length === 0, 'registration taint removed');
  // n1's kubelet keeps renewing; n2's stopped at t0. Passes run every 5 s from t0: at +40 s the lease is
  // exactly 40 s old, not older.
  for (let s = 5; s <= 40; s += 5) {
    await env.renew('n1');
    await env.step(5000);
  }
  assert.equal(readyStatus(await env.node('n2')), 'True');
  await env.renew('n1');
  await env.step(5000);
  const n2 = await env.node('n2');
  assert.deepEqual(
    n2.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime]),
    ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => [type, 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', stamp(t0 + 45_000)]),
  );
  // The heartbeat is the kubelet's last one, untouched.
  assert.equal(n2.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime, stamp(t0));
  await until(async () => taintsOf(await env.node('n2')).join() === 'node.kubernetes.io/unreachable:NoSchedule', 'NoSchedule taint');
  assert.equal(readyStatus(await env.node('n1')), 'True');
  const pods = async (): Promise<Pod[]> => (await env.client.coreV1().pods('default').list()).items;
  const podReady = (p: Pod): string => p.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '';
  assert.deepEqual(
    (await pods()).map((p) => [p.metadata?.name, podReady(p), p.status?.conditions?.find((c) => c.type === 'ContainersReady')?.status]),
    [
      ['p-default', 'False', 'True'],
      ['p-forever', 'False', 'True'],
      ['p-n1', 'True', 'True'],
      ['p-t0', 'False', 'True'],
      ['p-t20', 'False', 'True'],
    ],
  );
  // The pass after: NoExecute, and the pod that tolerates it for 0 s is deleted at once.
  await env.renew('n1');
  await env.step(5000);
  const tainted = await env.node('n2');
  assert.deepEqual(taintsOf(tainted), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
  assert.equal(tainted.spec?.taints?.find((x) => x.effect === 'NoExecute')?.timeAdded, stamp(t0 + 50_000));
  await until(async () => (await pods()).find((p) => p.metadata?.name === 'p-t0')?.metadata?.deletionTimestamp !== undefined, 'p-t0 deleted');
  assert.deepEqual([...env.nlc.taintManager.scheduledEvictions()].sort(), [
    ['default/p-default', t0 + 50_000 + 300_000],
    ['default/p-t20', t0 + 50_000 + 20_000],
  ]);
  // p-t20 goes 20 s after the taint (the smaller of its two tolerationSeconds).
  for (let s = 55; s < 70; s += 5) {
    await env.renew('n1');
    await env.step(5000);
  }
  assert.equal((await pods()).find((p) => p.metadata?.name === 'p-t20')?.metadata?.deletionTimestamp, undefined);
  await env.renew('n1');
  await env.step(5000);
  await until(async () => (await pods()).find((p) => p.metadata?.name === 'p-t20')?.metadata?.deletionTimestamp !== undefined, 'p-t20 deleted');
  // The kubelet is back: Lease renewed and Ready posted. NoSchedule goes with the status, NoExecute at the
  // next pass, and p-default's eviction is cancelled.
  await env.renew('n2');
  const back = await env.node('n2');
  await env.client.coreV1().nodes().updateStatus({ ...back, status: readyNode('n2', env.clock.now()).status! });
  await until(async () => taintsOf(await env.node('n2')).join() === 'node.kubernetes.io/unreachable:NoExecute', 'NoSchedule taint removed');
  await env.renew('n1');
  await env.step(5000);
  await until(async () => taintsOf(await env.node('n2')).length === 0, 'NoExecute taint removed');
  await until(() => env.nlc.taintManager.scheduledEvictions().size === 0, 'eviction cancelled');
  await until(async () => (await env.events()).some((e) => e.reason === 'TaintManagerEviction' && e.message?.startsWith('Cancelling')), 'cancel event');
  const summary = (await env.events())
    .filter((e) => e.reason !== 'RegisteredNode')
    .map((e) => [e.involvedObject.kind, e.involvedObject.name, e.type, e.reason, e.message, e.source?.component, e.involvedObject.uid === undefined ? 'no uid' : 'uid'].join('|'))
    .sort();
  assert.deepEqual(summary, [
    'Node|n2|Normal|NodeNotReady|Node n2 status is now: NodeNotReady|node-controller|uid',
    'Pod|p-default|Normal|TaintManagerEviction|Cancelling deletion of Pod default/p-default|taint-controller|no uid',
    'Pod|p-default|Warning|NodeNotReady|Node is not ready|node-controller|uid',
    'Pod|p-forever|Warning|NodeNotReady|Node is not ready|node-controller|uid',
    'Pod|p-t0|Normal|TaintManagerEviction|Marking for deletion Pod default/p-t0|taint-controller|no uid',
    'Pod|p-t0|Warning|NodeNotReady|Node is not ready|node-controller|uid',
    'Pod|p-t20|Normal|TaintManagerEviction|Marking for deletion Pod default/p-t20|taint-controller|no uid',
    'Pod|p-t20|Warning|NodeNotReady|Node is not ready|node-controller|uid',
  ]);
  assert.deepEqual(
    (await env.events()).filter((e) => e.reason === 'RegisteredNode').map((e) => e.message).sort(),
    ['Node n1 event: Registered Node n1 in Controller', 'Node n2 event: Registered Node n2 in Controller'],
  );
});

test('when every node of every zone is down nothing is tainted NoExecute (master disruption mode); a zone with ready nodes taints at 0.1 node/s', async (t) => {
  const zone = (z: string) => ({ 'topology.kubernetes.io/zone': z });
  const env = await setup(t, [
    { name: 'a1', labels: zone('a') },
    { name: 'b1', labels: zone('b') },
    { name: 'b2', labels: zone('b') },
    { name: 'b3', labels: zone('b') },
    { name: 'b4', labels: zone('b') },
    { name: 'b5', labels: zone('b') },
  ]);
  // Zone a's only node and two of zone b's five stop; b stays Normal (2 not ready is not more than 2).
  for (let s = 5; s <= 45; s += 5) {
    for (const n of ['b1', 'b2', 'b3']) await env.renew(n);
    await env.step(5000);
  }
  assert.deepEqual([...env.nlc.zoneStates()].sort(), [
    [':\u0000:a', ZoneState.FullDisruption],
    [':\u0000:b', ZoneState.Normal],
  ]);
  // The next pass queues a1, b4 and b5 for NoExecute: each zone's bucket lets one through at once, b's
  // second node 10 s later.
  for (const n of ['b1', 'b2', 'b3']) await env.renew(n);
  await env.step(5000);
  const noExecute = async (n: string): Promise<boolean> => taintsOf(await env.node(n)).includes('node.kubernetes.io/unreachable:NoExecute');
  await until(async () => (await noExecute('a1')) && ((await noExecute('b4')) || (await noExecute('b5'))), 'first taints');
  assert.equal((await noExecute('b4')) && (await noExecute('b5')), false);
  await env.step(9900);
  assert.equal((await noExecute('b4')) && (await noExecute('b5')), false);
  await env.step(100);
  await until(async () => (await noExecute('b4')) && (await noExecute('b5')), 'second taint of zone b after 10 s');
  // Then zone b's kubelets all stop too: every zone fully disrupted, every NoExecute taint comes off and
  // tainting stops.
  for (let s = 0; s < 50; s += 5) await env.step(5000);
  for (const n of ['a1', 'b1', 'b2', 'b3', 'b4', 'b5']) {
    await until(async () => !(await noExecute(n)), `${n} untainted`);
    assert.equal(readyStatus(await env.node(n)), 'Unknown');
  }
  assert.equal(env.nlc.zoneEvictionRate(':\u0000:a'), 0);
  assert.equal(env.nlc.zoneEvictionRate(':\u0000:b'), 0);
  await env.step(5000);
  for (const n of ['a1', 'b1', 'b2', 'b3', 'b4', 'b5']) assert.equal(await noExecute(n), false);
});

test('NoSchedule taints follow the conditions and spec.unschedulable (TaintNodesByCondition)', async (t) => {
  const env = await setup(t, [{ name: 'n1' }, { name: 'n2' }]);
  const n1 = await env.node('n1');
  await env.client.coreV1().nodes().update({ ...n1, spec: { ...n1.spec, unschedulable: true } });
  await until(async () => taintsOf(await env.node('n1')).join() === 'node.kubernetes.io/unschedulable:NoSchedule', 'unschedulable taint');
  const n2 = await env.node('n2');
  const conditions = (n2.status?.conditions ?? []).map((c) => (c.type === 'MemoryPressure' ? { ...c, status: 'True' } : c.type === 'Ready' ? { ...c, status: 'False' } : c));
  await env.client.coreV1().nodes().updateStatus({ ...n2, status: { ...n2.status, conditions } });
  await until(async () => taintsOf(await env.node('n2')).join() === 'node.kubernetes.io/memory-pressure:NoSchedule,node.kubernetes.io/not-ready:NoSchedule', 'condition taints');
  const again = await env.node('n1');
  await env.client.coreV1().nodes().update({ ...again, spec: { ...again.spec, unschedulable: false } });
  await until(async () => taintsOf(await env.node('n1')).length === 0, 'unschedulable taint removed');
  // Ready=False: the next pass taints not-ready:NoExecute (not unreachable).
  await env.renew('n1');
  await env.renew('n2');
  await env.step(5000);
  await until(async () => taintsOf(await env.node('n2')).includes('node.kubernetes.io/not-ready:NoExecute'), 'not-ready NoExecute');
});

test('a node whose kubelet never posted status gets its conditions Unknown (NodeStatusNeverUpdated) after the 60 s startup grace period', async (t) => {
  const env = await setup(t, [{ name: 'n1' }]);
  await env.client.coreV1().nodes().create({ metadata: { name: 'silent' } });
  for (let s = 5; s <= 60; s += 5) {
    await env.renew('n1');
    await env.step(5000);
  }
  assert.equal((await env.node('silent')).status?.conditions, undefined);
  await env.renew('n1');
  await env.step(5000);
  const silent = await env.node('silent');
  assert.deepEqual(
    silent.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.lastHeartbeatTime, c.lastTransitionTime]),
    ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => [type, 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.', silent.metadata?.creationTimestamp, stamp(t0 + 65_000)]),
  );
  // TaintNodesByCondition's not-ready:NoSchedule becomes unreachable:NoSchedule with the Unknown condition.
  await until(async () => taintsOf(await env.node('silent')).join() === 'node.kubernetes.io/unreachable:NoSchedule', 'unreachable NoSchedule');
});
