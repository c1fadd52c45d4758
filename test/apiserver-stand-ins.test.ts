/**
 * The scheduler and kubelet stand-ins of the embedded API server, and the pods/binding subresource the
 * scheduler binds through (BindingREST; answers as kube-apiserver v1.24 gives them). The stand-ins are
 * not kube-scheduler or a kubelet: they do what a workload controller's tests need — pods get a node, run,
 * become Ready, and Jobs' pods finish.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import type { ApiServer, ApiServerOptions } from '../src/testing/index.ts';
import { call, create, pod, withControllers, type Json } from './apiserver-helpers.ts';

const pods = '/api/v1/namespaces/default/pods';

function withServer(fn: (s: ApiServer, clock: FakeClock) => Promise<void>, options: ApiServerOptions = {}): Promise<void> {
  const clock = new FakeClock(Date.parse('2024-06-01T00:00:00Z'));
  return withControllers({ clock, ...options }, (s) => fn(s, clock));
}

/**
 * Creates a Ready node as a kubelet registers it, then takes off the not-ready taint TaintNodesByCondition
 * put on it, as the node lifecycle controller does for Ready nodes.
 */
async function createReadyNode(s: ApiServer, node: Json): Promise<void> {
  const created = await create(s, '/api/v1/nodes', node);
  const taints = (created.spec.taints ?? []).filter((t: Json) => t.key !== 'node.kubernetes.io/not-ready');
  const r = await call(s, 'PATCH', `/api/v1/nodes/${node.metadata.name}`, { contentType: 'application/merge-patch+json', body: { spec: { taints: taints.length === 0 ? null : taints } } });
  assert.equal(r.status, 200);
}

function condition(p: Json, type: string): Json {
  return p.status.conditions?.find((c: Json) => c.type === type);
}

test('pods/binding assigns a pod to a node once, as BindingREST does', async () => {
  await withServer(async (s) => {
    await create(s, pods, pod('p'));
    const binding = (name: string, node: string, extra: Json = {}): Json => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...extra }, target: { apiVersion: 'v1', kind: 'Node', name: node } });
    const ok = await call(s, 'POST', `${pods}/p/binding`, { body: binding('p', 'node-x', { annotations: { 'x.io/a': 'b' } }) });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const bound = (await call(s, 'GET', `${pods}/p`)).body;
    assert.equal(bound.spec.nodeName, 'node-x');
    assert.deepEqual(bound.metadata.annotations, { 'x.io/a': 'b' });
    assert.deepEqual(condition(bound, 'PodScheduled'), { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-06-01T00:00:00Z' });
    const again = await call(s, 'POST', `${pods}/p/binding`, { body: binding('p', 'node-y') });
    assert.equal(again.status, 409);
    assert.equal(again.body.message, 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-x"');
    assert.deepEqual(again.body.details, { name: 'p', kind: 'pods/binding' });
    const mismatch = await call(s, 'POST', `${pods}/p/binding`, { body: binding('other', 'node-y') });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.message, 'name in URL does not match name in Binding object');
    await create(s, pods, pod('q'));
    const invalid = await call(s, 'POST', `${pods}/q/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'q' }, target: { kind: 'Pod' } } });
    assert.equal(invalid.status, 500);
    assert.equal(invalid.body.message, '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]');
    const uid = await call(s, 'POST', `${pods}/q/binding`, { body: binding('q', 'n', { uid: 'nope' }) });
    assert.equal(uid.status, 409);
    assert.match(uid.body.message, /^Operation cannot be fulfilled on pods "q": StorageError: invalid object, Code: 4, Key: \/registry\/pods\/default\/q, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: nope, UID in object meta: /);
    assert.equal((await call(s, 'POST', `${pods}/nope/binding`, { body: binding('nope', 'n') })).status, 404);
    assert.equal((await call(s, 'GET', `${pods}/q/binding`)).status, 405);
    const wrongKind = await call(s, 'POST', `${pods}/q/binding`, { body: pod('q') });
    assert.equal(wrongKind.body.message, 'Pod in version "v1" cannot be handled as a Binding: converting (v1.Pod) to (core.Binding): unknown conversion');
  });
});

test('with the scheduler and kubelet stand-ins a pod is bound to the registered node, then Running and Ready', async () => {
  await withServer(
    async (s) => {
      const node = (await call(s, 'GET', '/api/v1/nodes/kubeloom-node')).body;
      assert.deepEqual(
        node.status.conditions.map((c: Json) => [c.type, c.status, c.reason]),
        [
          ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
          ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
          ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
          ['Ready', 'True', 'KubeletReady'],
        ],
      );
      assert.equal(node.metadata.labels['kubernetes.io/hostname'], 'kubeloom-node');
      await create(s, pods, pod('web', { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } }));
      await s.controllers.waitForIdle();
      const p = (await call(s, 'GET', `${pods}/web`)).body;
      assert.equal(p.spec.nodeName, 'kubeloom-node');
      assert.equal(p.status.phase, 'Running');
      assert.deepEqual(
        p.status.conditions.map((c: Json) => [c.type, c.status]),
        [
          ['PodReadyToStartContainers', 'True'],
          ['Initialized', 'True'],
          ['Ready', 'True'],
          ['ContainersReady', 'True'],
          ['PodScheduled', 'True'],
        ],
      );
      assert.equal(p.status.podIP, '10.244.0.2');
      assert.equal(p.status.hostIP, '172.18.0.2');
      assert.equal(p.status.qosClass, 'BestEffort');
      const [c] = p.status.containerStatuses;
      assert.equal(c.name, 'app');
      assert.equal(c.ready, true);
      assert.equal(c.started, true);
      assert.equal(c.restartCount, 0);
      assert.deepEqual(c.state, { running: { startedAt: '2024-06-01T00:00:00Z' } });
      assert.ok(p.metadata.managedFields.some((f: Json) => f.manager === 'kubelet' && f.subresource === 'status'));
      assert.deepEqual(s.controllers.stats(), { podsBound: 1, podsStarted: 1, podsFinished: 0 });
    },
    { controllers: { scheduler: true, kubelet: true } },
  );
});

test('pods of a Job succeed; podOutcome decides other fates, on the server clock', async () => {
  await withServer(
    async (s, clock) => {
      const job = await create(s, '/apis/batch/v1/namespaces/default/jobs', {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j' },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
      });
      const jobPod = pod('j-1', { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });
      jobPod.metadata.ownerReferences = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }];
      await create(s, pods, jobPod);
      // restartPolicy Never: with the default (Always) the kubelet would restart the containers instead.
      await create(s, pods, pod('crash', { labels: { fate: 'fail' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } }));
      await create(s, pods, pod('server'));
      await s.controllers.waitForIdle();
      const done = (await call(s, 'GET', `${pods}/j-1`)).body;
      assert.equal(done.status.phase, 'Succeeded');
      assert.deepEqual(done.status.containerStatuses[0].state.terminated, {
        containerID: done.status.containerStatuses[0].containerID,
        exitCode: 0,
        finishedAt: '2024-06-01T00:00:00Z',
        reason: 'Completed',
        startedAt: '2024-06-01T00:00:00Z',
      });
      assert.deepEqual(
        done.status.conditions.filter((c: Json) => c.type === 'Ready' || c.type === 'ContainersReady').map((c: Json) => [c.type, c.status, c.reason]),
        [
          ['Ready', 'False', 'PodCompleted'],
          ['ContainersReady', 'False', 'PodCompleted'],
        ],
      );
      assert.equal((await call(s, 'GET', `${pods}/crash`)).body.status.phase, 'Running');
      await clock.step(29_999);
      await s.controllers.waitForIdle();
      assert.equal((await call(s, 'GET', `${pods}/crash`)).body.status.phase, 'Running');
      await clock.step(1);
      await s.controllers.waitForIdle();
      const failed = (await call(s, 'GET', `${pods}/crash`)).body;
      assert.equal(failed.status.phase, 'Failed');
      assert.equal(failed.status.containerStatuses[0].state.terminated.exitCode, 137);
      assert.equal(failed.status.containerStatuses[0].state.terminated.reason, 'Error');
      assert.equal((await call(s, 'GET', `${pods}/server`)).body.status.phase, 'Running');
      assert.deepEqual(s.controllers.stats(), { podsBound: 3, podsStarted: 3, podsFinished: 2 });
    },
    {
      controllers: {
        scheduler: true,
        kubelet: {
          podOutcome: (p) => (p.metadata?.labels?.['fate'] === 'fail' ? { phase: 'Failed', afterMs: 30_000, exitCode: 137 } : p.metadata?.ownerReferences?.some((r) => r.kind === 'Job') === true ? { phase: 'Succeeded' } : { phase: 'Running' }),
        },
      },
    },
  );
});

test('a pod no node fits stays Pending with PodScheduled=False and the scheduler message, until a node fits', async () => {
  await withServer(
    async (s) => {
      await create(s, pods, pod('waiting'));
      await s.controllers.waitForIdle();
      let p = (await call(s, 'GET', `${pods}/waiting`)).body;
      assert.deepEqual(condition(p, 'PodScheduled'), { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: '2024-06-01T00:00:00Z', reason: 'Unschedulable', message: 'no nodes available to schedule pods' });
      await createReadyNode(s, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'gpu', labels: { gpu: 'yes' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
      await create(s, pods, pod('picky', { spec: { nodeSelector: { gpu: 'no' }, containers: [{ name: 'c', image: 'x' }] } }));
      await s.controllers.waitForIdle();
      assert.equal((await call(s, 'GET', `${pods}/waiting`)).body.spec.nodeName, 'gpu');
      p = (await call(s, 'GET', `${pods}/picky`)).body;
      assert.equal(p.spec.nodeName, undefined);
      assert.equal(condition(p, 'PodScheduled').message, "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
      // A node that fits (but has a taint the pod does not tolerate) changes the reason; a toleration fits it.
      await createReadyNode(s, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'tainted', labels: { gpu: 'no' } }, spec: { taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
      await s.controllers.waitForIdle();
      assert.equal(
        condition((await call(s, 'GET', `${pods}/picky`)).body, 'PodScheduled').message,
        "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: ml}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
      );
      await create(s, pods, pod('tolerant', { spec: { nodeSelector: { gpu: 'no' }, tolerations: [{ key: 'dedicated', operator: 'Exists' }], containers: [{ name: 'c', image: 'x' }] } }));
      await s.controllers.waitForIdle();
      assert.equal((await call(s, 'GET', `${pods}/tolerant`)).body.spec.nodeName, 'tainted');
    },
    { controllers: { scheduler: true } },
  );
});

test('the scheduler spreads pods over the least loaded nodes, in name order on ties', async () => {
  await withServer(
    async (s) => {
      for (let i = 0; i < 5; i++) await create(s, pods, pod(`p${i}`));
      await s.controllers.waitForIdle();
      const placed = (await call(s, 'GET', pods)).body.items.map((p: Json) => `${p.metadata.name}:${p.spec.nodeName}`);
      assert.deepEqual(placed, ['p0:node-a', 'p1:node-b', 'p2:node-a', 'p3:node-b', 'p4:node-a']);
    },
    { controllers: { scheduler: true, kubelet: { nodes: ['node-a', 'node-b'] } } },
  );
});

test('the scheduler filters the nodes again after any node change: a cordoned node gets no more pods, a relabelled one starts fitting', async () => {
  await withServer(
    async (s) => {
      for (let i = 0; i < 2; i++) await create(s, pods, pod(`p${i}`));
      await s.controllers.waitForIdle();
      const patchNode = async (name: string, body: Json): Promise<void> => {
        assert.equal((await call(s, 'PATCH', `/api/v1/nodes/${name}`, { contentType: 'application/merge-patch+json', body })).status, 200);
      };
      await patchNode('node-a', { spec: { unschedulable: true } });
      for (let i = 2; i < 4; i++) await create(s, pods, pod(`p${i}`));
      await create(s, pods, pod('picky', { spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'c', image: 'x' }] } }));
      await s.controllers.waitForIdle();
      assert.equal((await call(s, 'GET', `${pods}/picky`)).body.spec.nodeName, undefined);
      await patchNode('node-a', { metadata: { labels: { disk: 'ssd' } }, spec: { unschedulable: null } });
      await s.controllers.waitForIdle();
      const placed = (await call(s, 'GET', pods)).body.items.map((p: Json) => `${p.metadata.name}:${p.spec.nodeName}`);
      assert.deepEqual(placed, ['p0:node-a', 'p1:node-b', 'p2:node-b', 'p3:node-b', 'picky:node-a']);
    },
    { controllers: { scheduler: true, kubelet: { nodes: ['node-a', 'node-b'] } } },
  );
});

test('discovery lists pods/binding (create) and namespaces/finalize (update)', async () => {
  await withServer(async (s) => {
    const byName = new Map((await call(s, 'GET', '/api/v1')).body.resources.map((r: Json) => [r.name, r]));
    assert.deepEqual(byName.get('pods/binding'), { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
    assert.deepEqual(byName.get('namespaces/finalize'), { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
  });
});
