/**
 * kwok-style stand-ins of the embedded server: many nodes with Leases renewed on the clock, pod stages
 * with delays and a seeded failure probability, the pod events a scheduler and a kubelet write, and the
 * default StorageClass with its volume binder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import { podFails, type ApiServer, type ApiServerOptions, type PodStages } from '../src/testing/index.ts';
import { nodeObject } from '../src/apiserver/controllers/fake-kubelet.ts';
import { readFile } from 'node:fs/promises';
import { call, create, pod, withControllers, type Json } from './apiserver-helpers.ts';
import { standInsTranscript } from './apiserver-kwok-transcript.ts';

const pods = '/api/v1/namespaces/default/pods';
const t0 = Date.parse('2024-06-01T00:00:00Z');

function withServer(options: ApiServerOptions, fn: (s: ApiServer, clock: FakeClock) => Promise<void>): Promise<void> {
  const clock = new FakeClock(t0);
  return withControllers({ clock, ...options }, (s) => fn(s, clock));
}

const condition = (o: Json, type: string): Json => o.status?.conditions?.find((c: Json) => c.type === type);

test('nodeCount registers Ready kwok nodes with capacity, and their Leases are renewed every 10 s on the clock', async () => {
  await withServer({ controllers: { scheduler: true, kubelet: { nodeCount: 20 } } }, async (s, clock) => {
    const nodes = (await call(s, 'GET', '/api/v1/nodes')).body.items as Json[];
    assert.equal(nodes.length, 20);
    const last = nodes.find((n) => n.metadata.name === 'kwok-node-19')!;
    assert.equal(condition(last, 'Ready').status, 'True');
    assert.equal(condition(last, 'Ready').reason, 'KubeletReady');
    assert.deepEqual(last.status.allocatable, last.status.capacity);
    assert.equal(last.status.capacity.pods, '110');
    assert.equal(last.spec.taints, undefined);
    const renewTimes = async (): Promise<Set<string>> => new Set(((await call(s, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).body.items as Json[]).map((l) => l.spec.renewTime));
    const leases = (await call(s, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases')).body.items as Json[];
    assert.equal(leases.length, 20);
    assert.equal(leases[0].spec.leaseDurationSeconds, 40);
    assert.deepEqual([...(await renewTimes())], ['2024-06-01T00:00:00.000000Z']);
    await clock.step(9_999);
    assert.deepEqual([...(await renewTimes())], ['2024-06-01T00:00:00.000000Z']);
    await clock.step(1);
    assert.deepEqual([...(await renewTimes())], ['2024-06-01T00:00:10.000000Z']);
    await clock.step(10_000);
    assert.deepEqual([...(await renewTimes())], ['2024-06-01T00:00:20.000000Z']);
    // Pods spread over the nodes: the fewest-pods node first.
    for (let i = 0; i < 40; i++) await create(s, pods, pod(`p${i}`));
    await s.controllers.waitForIdle();
    const placed = ((await call(s, 'GET', pods)).body.items as Json[]).map((p) => p.spec.nodeName as string);
    assert.equal(new Set(placed).size, 20);
  });
  // Past 256 nodes the pod CIDRs and addresses stay distinct and valid.
  const n999 = nodeObject('kwok-node-999', 999, '2024-06-01T00:00:00Z') as Json;
  assert.equal(n999.spec.podCIDR, '10.247.231.0/24');
  assert.equal(n999.status.addresses[0].address, '172.18.3.233');
});

test('pod stages: Pending for pendingMs, Running not Ready for readyMs, then Ready; finishing pods fail by a seeded draw', async () => {
  const stages: PodStages = { pendingMs: 1_000, readyMs: 2_000, completeMs: 5_000, failureProbability: 0.5, seed: 42 };
  await withServer({ controllers: { scheduler: true, kubelet: { nodeCount: 3, stages, podOutcome: () => ({ phase: 'Succeeded' }) } } }, async (s, clock) => {
    const names = Array.from({ length: 16 }, (_, i) => `job-${i}`);
    for (const n of names) await create(s, pods, pod(n, { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } }));
    await s.controllers.waitForIdle();
    const all = async (): Promise<Json[]> => (await call(s, 'GET', pods)).body.items as Json[];
    for (const p of await all()) {
      assert.notEqual(p.spec.nodeName, undefined);
      assert.equal(p.status.phase, 'Pending');
    }
    await clock.step(999);
    await s.controllers.waitForIdle();
    assert.ok((await all()).every((p) => p.status.phase === 'Pending'));
    await clock.step(1);
    await s.controllers.waitForIdle();
    for (const p of await all()) {
      assert.equal(p.status.phase, 'Running');
      assert.deepEqual([condition(p, 'Ready').status, condition(p, 'Ready').reason, condition(p, 'Ready').message], ['False', 'ContainersNotReady', 'containers with unready status: [c]']);
      assert.equal(p.status.containerStatuses[0].ready, false);
      assert.equal(p.status.containerStatuses[0].started, true);
    }
    await clock.step(2_000);
    await s.controllers.waitForIdle();
    for (const p of await all()) {
      assert.equal(p.status.phase, 'Running');
      assert.equal(condition(p, 'Ready').status, 'True');
      assert.equal(p.status.containerStatuses[0].ready, true);
    }
    // completeMs counts from the start of the containers.
    await clock.step(2_999);
    await s.controllers.waitForIdle();
    assert.ok((await all()).every((p) => p.status.phase === 'Running'));
    await clock.step(1);
    await s.controllers.waitForIdle();
    const phases = new Map((await all()).map((p) => [p.metadata.name as string, p.status.phase as string]));
    const expected = new Map(names.map((n) => [n, podFails(stages, 'default', n) ? 'Failed' : 'Succeeded']));
    assert.deepEqual(phases, expected);
    const failed = [...phases.values()].filter((p) => p === 'Failed').length;
    assert.ok(failed > 0 && failed < names.length, `a mix of outcomes at probability 0.5 (${failed} failed)`);
    const oneFailed = (await all()).find((p) => p.status.phase === 'Failed')!;
    assert.equal(oneFailed.status.containerStatuses[0].state.terminated.exitCode, 1);
    assert.equal(oneFailed.status.containerStatuses[0].state.terminated.reason, 'Error');
  });
  // The draw depends on the seed and the pod's name only.
  assert.equal(podFails({ failureProbability: 0 }, 'default', 'x'), false);
  assert.equal(podFails({ failureProbability: 1 }, 'default', 'x'), true);
  const draws = (seed: number): boolean[] => Array.from({ length: 64 }, (_, i) => podFails({ failureProbability: 0.5, seed }, 'ns', `p-${i}`));
  assert.deepEqual(draws(7), draws(7));
  assert.notDeepEqual(draws(7), draws(8));
});

test('pod events as kube-scheduler and the kubelet write them: Scheduled, Pulling, Pulled, Created, Started, then Killing on deletion', async () => {
  await withServer({ controllers: { scheduler: true, kubelet: { nodeCount: 1 }, podEvents: true } }, async (s) => {
    await create(s, pods, pod('web', { spec: { initContainers: [{ name: 'init', image: 'busybox:1' }], containers: [{ name: 'app', image: 'nginx:1.27' }] } }));
    await s.controllers.waitForIdle();
    const events = async (): Promise<Json[]> => ((await call(s, 'GET', '/api/v1/namespaces/default/events')).body.items as Json[]).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    const uid = (await call(s, 'GET', `${pods}/web`)).body.metadata.uid;
    const summary = (e: Json): unknown[] => [e.reason, e.message, e.source.component, e.source.host, e.involvedObject.fieldPath, e.type];
    const started = await events();
    assert.deepEqual(started.map(summary), [
      ['Scheduled', 'Successfully assigned default/web to kwok-node-0', 'default-scheduler', undefined, undefined, 'Normal'],
      ['Pulling', 'Pulling image "busybox:1"', 'kubelet', 'kwok-node-0', 'spec.initContainers{init}', 'Normal'],
      ['Pulling', 'Pulling image "nginx:1.27"', 'kubelet', 'kwok-node-0', 'spec.containers{app}', 'Normal'],
      ['Pulled', 'Container image "busybox:1" already present on machine', 'kubelet', 'kwok-node-0', 'spec.initContainers{init}', 'Normal'],
      ['Pulled', 'Container image "nginx:1.27" already present on machine', 'kubelet', 'kwok-node-0', 'spec.containers{app}', 'Normal'],
      ['Created', 'Created container: init', 'kubelet', 'kwok-node-0', 'spec.initContainers{init}', 'Normal'],
      ['Created', 'Created container: app', 'kubelet', 'kwok-node-0', 'spec.containers{app}', 'Normal'],
      ['Started', 'Started container init', 'kubelet', 'kwok-node-0', 'spec.initContainers{init}', 'Normal'],
      ['Started', 'Started container app', 'kubelet', 'kwok-node-0', 'spec.containers{app}', 'Normal'],
    ]);
    for (const e of started) {
      assert.deepEqual([e.involvedObject.kind, e.involvedObject.name, e.involvedObject.uid, e.count], ['Pod', 'web', uid, 1]);
      assert.match(e.metadata.name, /^web\.[0-9a-f]+$/);
    }
    assert.equal((await call(s, 'DELETE', `${pods}/web`)).status, 200);
    await s.controllers.waitForIdle();
    assert.equal((await call(s, 'GET', `${pods}/web`)).status, 404);
    const killing = (await events()).filter((e) => e.reason === 'Killing');
    assert.deepEqual(killing.map(summary), [['Killing', 'Stopping container app', 'kubelet', 'kwok-node-0', 'spec.containers{app}', 'Normal']]);
  });
});

test('the default StorageClass and the volume binder: an Immediate claim binds at once, a WaitForFirstConsumer claim once its pod is scheduled', async () => {
  await withServer({ controllers: { scheduler: true, kubelet: { nodeCount: 2 }, volumes: true } }, async (s) => {
    const sc = (await call(s, 'GET', '/apis/storage.k8s.io/v1/storageclasses/standard')).body;
    assert.equal(sc.metadata.annotations['storageclass.kubernetes.io/is-default-class'], 'true');
    assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
    await create(s, '/apis/storage.k8s.io/v1/storageclasses', { metadata: { name: 'fast' }, provisioner: 'kubeloom.io/fake-provisioner', volumeBindingMode: 'Immediate', reclaimPolicy: 'Delete' });
    const claims = '/api/v1/namespaces/default/persistentvolumeclaims';
    const claim = (name: string, storageClassName?: string): Json => ({
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, ...(storageClassName === undefined ? {} : { storageClassName }) },
    });
    await create(s, claims, claim('now', 'fast'));
    await create(s, claims, claim('later'));
    await s.controllers.waitForIdle();
    const now = (await call(s, 'GET', `${claims}/now`)).body;
    assert.equal(now.status.phase, 'Bound');
    assert.deepEqual(now.status.capacity, { storage: '2Gi' });
    assert.equal(now.spec.volumeName, `pvc-${now.metadata.uid}`);
    assert.equal(now.metadata.annotations['pv.kubernetes.io/bind-completed'], 'yes');
    const pv = (await call(s, 'GET', `/api/v1/persistentvolumes/${now.spec.volumeName}`)).body;
    assert.equal(pv.status.phase, 'Bound');
    assert.deepEqual([pv.spec.claimRef.name, pv.spec.claimRef.uid, pv.spec.capacity.storage, pv.spec.storageClassName], ['now', now.metadata.uid, '2Gi', 'fast']);
    let later = (await call(s, 'GET', `${claims}/later`)).body;
    assert.equal(later.spec.storageClassName, 'standard', 'the default class is assigned');
    assert.equal(later.status.phase, 'Pending', 'WaitForFirstConsumer: no pod uses it yet');
    await create(s, pods, pod('user', { spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'later' } }] } }));
    await s.controllers.waitForIdle();
    const user = (await call(s, 'GET', `${pods}/user`)).body;
    later = (await call(s, 'GET', `${claims}/later`)).body;
    assert.equal(later.status.phase, 'Bound');
    assert.equal(later.metadata.annotations['volume.kubernetes.io/selected-node'], user.spec.nodeName);
    const laterPv = (await call(s, 'GET', `/api/v1/persistentvolumes/${later.spec.volumeName}`)).body;
    assert.deepEqual(laterPv.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values, [user.spec.nodeName]);
    assert.equal(user.status.phase, 'Running');
    // A pod whose claim does not exist waits in Pending (the kubelet's volume manager).
    await create(s, pods, pod('orphan', { spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'missing' } }] } }));
    await s.controllers.waitForIdle();
    assert.equal((await call(s, 'GET', `${pods}/orphan`)).body.status.phase, 'Pending');
    await create(s, claims, claim('missing', 'fast'));
    await s.controllers.waitForIdle();
    assert.equal((await call(s, 'GET', `${pods}/orphan`)).body.status.phase, 'Running');
    // Reclaim policy Delete: the claim's volume goes with it.
    assert.equal((await call(s, 'DELETE', `${claims}/now`)).status, 200);
    await s.controllers.waitForIdle();
    assert.equal((await call(s, 'GET', `/api/v1/persistentvolumes/${now.spec.volumeName}`)).status, 404);
  });
});

test('what clients see of the stand-ins\' writes (resourceVersions, managedFields, status, Lease renewals) matches the recorded transcript', async () => {
  // Recorded before the stand-ins' write path was made cheaper (LoopbackClient.modify, pruned managedFields
  // comparison, incremental scheduler filtering); see test/apiserver-kwok-transcript.ts.
  const recorded = JSON.parse(await readFile(new URL('./fixtures/stand-ins-transcript.json', import.meta.url), 'utf8')) as Json[];
  assert.deepEqual(JSON.parse(JSON.stringify(await standInsTranscript())), recorded);
});

test('every 5 minutes the kubelet stand-in refreshes its nodes\' condition heartbeats through nodes/status, keeping the transition times; the nodes report on different heartbeat ticks', async () => {
  await withServer({ controllers: { kubelet: { nodeCount: 2 } } }, async (s, clock) => {
    const node = async (name = 'kwok-node-0'): Promise<Json> => (await call(s, 'GET', `/api/v1/nodes/${name}`)).body as Json;
    const before = await node();
    const secondBefore = await node('kwok-node-1');
    await clock.step(290_000);
    await s.controllers.waitForIdle();
    assert.equal((await node()).metadata.resourceVersion, before.metadata.resourceVersion);
    await clock.step(10_000);
    await s.controllers.waitForIdle();
    const after = await node();
    // Node i reports at heartbeat tick 30 + i mod 30: kwok-node-1 one tick (10 s) after kwok-node-0.
    assert.equal((await node('kwok-node-1')).metadata.resourceVersion, secondBefore.metadata.resourceVersion);
    await clock.step(10_000);
    await s.controllers.waitForIdle();
    assert.deepEqual(
      (await node('kwok-node-1')).status.conditions.map((c: Json) => c.lastHeartbeatTime),
      secondBefore.status.conditions.map(() => '2024-06-01T00:05:10Z'),
    );
    assert.deepEqual(
      after.status.conditions.map((c: Json) => [c.type, c.lastHeartbeatTime, c.lastTransitionTime]),
      before.status.conditions.map((c: Json) => [c.type, '2024-06-01T00:05:00Z', '2024-06-01T00:00:00Z']),
    );
    assert.deepEqual({ ...after.spec, ...after.metadata.labels }, { ...before.spec, ...before.metadata.labels });
    const status = (after.metadata.managedFields as Json[]).find((e) => e.subresource === 'status');
    assert.equal(status?.manager, 'kubelet');
    assert.equal(status?.time, '2024-06-01T00:05:00Z');
  });
});
