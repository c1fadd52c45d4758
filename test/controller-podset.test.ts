/**
 * The PodSet controller against either backend (test/support/backend.ts): expectations prevent over-creation,
 * adoption and release, finalizer-driven deletion, status through the status subresource, and
 * leader election between two replicas.
 */
import assert from 'node:assert/strict';
import type { Pod } from '../src/api/core/v1.ts';
import type { ReplicaSet } from '../src/api/apps/v1.ts';
import { Registry } from 'prom-client';
import { RestClient } from '../src/rest/client.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { PatchType } from '../src/apimachinery/options.ts';
import { isNotFound } from '../src/apimachinery/errors.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { newListWatchFromClient } from '../src/tools/cache/listwatch.ts';
import { untilWithSync, waitFor as waitForCached } from '../src/tools/watch/index.ts';
import type { DemoInformer } from '../src/demo/informer.ts';
import type { ResourceEventHandler } from '../src/controller/index.ts';
import { newIndexer } from '../src/tools/cache/store.ts';
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceIndexFunc, NamespaceIndex } from '../src/tools/cache/key-functions.ts';
import type { Indexers } from '../src/tools/cache/indexer.ts';
import { controllerUidIndex, controllerUidIndexFunc, PodSetController } from '../src/demo/podset-controller.ts';
import { DemoRuntime } from '../src/demo/runtime.ts';
import { podSetCrd, podSetFinalizer, podSetGroup, podSetKind, podSetResource, podSetVersion, type PodSet } from '../src/demo/podset.ts';
import { Capability, e2eTest, type E2eEnv } from './support/backend.ts';

interface Env {
  /** Runs `fn` at the end of the test, before the client closes (last deferred first). */
  defer(fn: () => Promise<void>): void;
  e2e: E2eEnv;
  ns: string;
  rest: RestClient;
  pods: ResourceClient<Pod>;
  podSets: ResourceClient<PodSet>;
}

async function setup(e2e: E2eEnv): Promise<Env> {
  const ns = e2e.namespace;
  const rest = new RestClient(e2e.restConfig());
  const deferred: (() => Promise<void>)[] = [];
  const podSets = new ResourceClient<PodSet>(rest, { group: podSetGroup, version: podSetVersion, resource: podSetResource, kind: podSetKind, namespaced: true, namespace: ns });
  e2e.defer(async () => {
    // Watches must end before the client closes: close() waits for requests in flight.
    for (const fn of deferred.reverse()) await fn();
    // With the controllers stopped nothing removes the PodSet finalizer: clear it, or the PodSets
    // would block their namespace's deletion (and the CRD's) for ever.
    for (const ps of (await podSets.list()).items) {
      const name = ps.metadata?.name ?? '';
      if (ps.metadata?.finalizers !== undefined) await podSets.patch(name, PatchType.Merge, { metadata: { finalizers: null } });
      await podSets.delete(name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    }
    await rest.close();
  });
  await e2e.ensureSharedCrd(podSetCrd);
  return {
    defer: (fn) => deferred.push(fn),
    e2e,
    ns,
    rest,
    pods: new ResourceClient<Pod>(rest, { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, namespace: ns }),
    podSets,
  };
}

function podSet(ns: string, name: string, replicas: number): PodSet {
  return {
    apiVersion: `${podSetGroup}/${podSetVersion}`,
    kind: podSetKind,
    metadata: { name, namespace: ns },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

/** Waits (bounded) until the pods of the namespace satisfy `ok`. */
async function waitForPods(env: Env, ok: (pods: Pod[]) => boolean): Promise<Pod[]> {
  const current = new Map<string, Pod>();
  const check = (): boolean => ok([...current.values()]);
  let result: Pod[] = [];
  await untilWithSync(
    newListWatchFromClient(env.pods),
    (e) => {
      if (e.type === 'DELETED') current.delete(e.object.metadata?.name ?? '');
      else current.set(e.object.metadata?.name ?? '', e.object);
      result = [...current.values()];
      return check();
    },
    { timeoutMs: 20_000, precondition: (store) => ok((result = [...store.values()])) },
  );
  return result;
}

async function waitForPodSet(env: Env, name: string, ok: (ps: PodSet | undefined) => boolean): Promise<void> {
  await untilWithSync(newListWatchFromClient(env.podSets), (e) => e.object.metadata?.name === name && ok(e.type === 'DELETED' ? undefined : e.object), {
    timeoutMs: 20_000,
    precondition: (store) => ok(store.get(`${env.ns}/${name}`)),
  });
}

/** An informer the test feeds by hand, so it decides what the controller's cache has observed. */
class ManualInformer<T extends { metadata?: { resourceVersion?: string } }> implements DemoInformer<T> {
  readonly #indexer;
  readonly #handlers: ResourceEventHandler<T>[] = [];
  constructor(indexers: Indexers<T> = {}) {
    this.#indexer = newIndexer<T>(deletionHandlingMetaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc, ...indexers });
  }
  addEventHandler(handler: ResourceEventHandler<T>): void {
    this.#handlers.push(handler);
  }
  getIndexer() {
    return this.#indexer;
  }
  hasSynced(): boolean {
    return true;
  }
  add(obj: T): void {
    this.#indexer.add(obj);
    for (const h of this.#handlers) h.onAdd(obj, false);
  }
}

const ownedBy = (ps: PodSet | { metadata?: { uid?: string } }) => (p: Pod) => p.metadata?.ownerReferences?.some((r) => r.controller === true && r.uid === ps.metadata?.uid) === true;

e2eTest('expectations: a second sync before the cache observes the creations creates nothing; the 5-minute expiry lets a sync proceed', async (e2e) => {
  const env = await setup(e2e);
  const { ns } = env;
  const key = `${ns}/web`;
  const clock = new FakeClock();
  const podSetInformer = new ManualInformer<PodSet>();
  const podInformer = new ManualInformer<Pod>({ [controllerUidIndex]: controllerUidIndexFunc });
  const controller = new PodSetController({ podSetInformer, podInformer, pods: () => env.pods, podSets: () => env.podSets, clock, registerHandlers: true });
  const created = await env.podSets.create(podSet(ns, 'web', 3));
  const withFinalizer = await env.podSets.patch('web', PatchType.Merge, { metadata: { finalizers: [podSetFinalizer] } });
  podSetInformer.add(withFinalizer);
  const signal = new AbortController().signal;

  await controller.sync(key, signal);
  assert.equal((await env.pods.list()).items.length, 3);
  assert.deepEqual(controller.expectations.getExpectations(key)?.add, 3);
  await controller.sync(key, signal);
  await controller.sync(key, signal);
  assert.equal((await env.pods.list()).items.length, 3, 'no over-creation while the creations are unobserved');

  // The cache observes two of the three: still pending.
  const serverPods = (await env.pods.list()).items;
  for (const p of serverPods.slice(0, 2)) podInformer.add(p);
  await controller.sync(key, signal);
  assert.equal((await env.pods.list()).items.length, 3);
  assert.equal(controller.expectations.getExpectations(key)?.add, 1);

  // After upstream's 5-minute timeout the controller trusts its cache again (and so creates the
  // pod the cache is missing: the reason the timeout is long).
  await clock.step(5 * 60 * 1000 + 1);
  await controller.sync(key, signal);
  assert.equal((await env.pods.list()).items.length, 4);
  assert.equal(created.metadata?.uid, withFinalizer.metadata?.uid);
});

/** A PodSet controller on hand-fed informers whose pod creates are logged as `+` (sent) and `-` (answered). */
async function slowStartFixture(env: Env) {
  const podSetInformer = new ManualInformer<PodSet>();
  const podInformer = new ManualInformer<Pod>({ [controllerUidIndex]: controllerUidIndexFunc });
  const calls: string[] = [];
  const pods = {
    create: async (pod: Pod, options?: Parameters<typeof env.pods.create>[1]) => {
      calls.push('+');
      try {
        return await env.pods.create(pod, options);
      } finally {
        calls.push('-');
      }
    },
    delete: env.pods.delete.bind(env.pods),
    patch: env.pods.patch.bind(env.pods),
  };
  const events: string[] = [];
  const recorder = { eventf: (_r: unknown, _rel: unknown, type: string, reason: string) => void events.push(`${type} ${reason}`) };
  const controller = new PodSetController({ podSetInformer, podInformer, pods: () => pods, podSets: () => env.podSets, recorder, registerHandlers: true });
  await env.podSets.create({ ...podSet(env.ns, 'web', 7), metadata: { name: 'web', namespace: env.ns, finalizers: [podSetFinalizer] } });
  podSetInformer.add(await env.podSets.get('web'));
  return { controller, calls, events, key: `${env.ns}/web`, signal: new AbortController().signal };
}

e2eTest('slow start: creates go out in batches of 1, 2, 4, …', async (e2e) => {
  const env = await setup(e2e);
  const { controller, calls, events, key, signal } = await slowStartFixture(env);
  await controller.sync(key, signal);
  assert.equal(calls.join(''), '+-++--++++----', 'batches of 1, 2 and 4');
  assert.equal((await env.pods.list()).items.length, 7);
  assert.equal(events.filter((e) => e === 'Normal SuccessfulCreate').length, 7);
});

e2eTest('slow start: a failed batch skips the rest and lowers the expectations', { needs: [Capability.Faults] }, async (e2e) => {
  const env = await setup(e2e);
  const { controller, calls, events, key, signal } = await slowStartFixture(env);
  e2e.faults.failNext({ verb: 'create', resource: 'pods', status: 500, message: 'etcd is sad' });
  await assert.rejects(controller.sync(key, signal), /etcd is sad/);
  assert.equal(calls.join(''), '+-', 'the first batch (1) failed, the other 6 creates were skipped');
  assert.equal(controller.expectations.satisfiedExpectations(key), true, 'the skipped and failed creates were lowered');
  assert.deepEqual(events, ['Warning FailedCreate']);

  calls.length = 0;
  await controller.sync(key, signal);
  assert.equal(calls.join(''), '+-++--++++----', 'batches of 1, 2 and 4 on the next sync');
  assert.equal((await env.pods.list()).items.length, 7);
});

e2eTest('scale down deletes unready pods first, then the newest, with deletion expectations per pod', async (e2e) => {
  const env = await setup(e2e);
  const { ns } = env;
  const key = `${ns}/web`;
  const podSetInformer = new ManualInformer<PodSet>();
  const podInformer = new ManualInformer<Pod>({ [controllerUidIndex]: controllerUidIndexFunc });
  const related: string[] = [];
  const recorder = { eventf: (_r: unknown, rel: { kind?: string; metadata?: { name?: string } } | undefined, _t: string, reason: string) => void related.push(`${reason} ${rel?.kind ?? '?'}/${rel?.metadata?.name ?? '?'}`) };
  const controller = new PodSetController({ podSetInformer, podInformer, pods: () => env.pods, podSets: () => env.podSets, recorder, registerHandlers: true });
  await env.podSets.create({ ...podSet(ns, 'web', 1), metadata: { name: 'web', namespace: ns, finalizers: [podSetFinalizer] } });
  const ps = await env.podSets.get('web');
  podSetInformer.add(ps);
  const ref = { apiVersion: 'demo.kubeloom.dev/v1alpha1', kind: 'PodSet', name: 'web', uid: ps.metadata?.uid ?? '', controller: true };
  const make = async (name: string, created: string, ready: boolean): Promise<void> => {
    const { kind: _k, apiVersion: _a, ...pod } = await env.pods.create({ metadata: { name, namespace: ns, labels: { app: 'web' }, ownerReferences: [ref] }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    // The cache's view: an item of the initial LIST (no TypeMeta), with creation times and readiness
    // as a kubelet would have reported them.
    podInformer.add({ ...pod, metadata: { ...pod.metadata, creationTimestamp: created }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  };
  await make('old-ready', '2024-01-01T00:00:00Z', true);
  await make('new-ready', '2024-01-02T00:00:00Z', true);
  await make('unready', '2023-01-01T00:00:00Z', false);
  await controller.sync(key, new AbortController().signal);
  assert.deepEqual((await env.pods.list()).items.map((p) => p.metadata?.name), ['old-ready']);
  assert.deepEqual([...(controller.expectations.getUIDs(key) ?? [])].sort(), [`${ns}/new-ready`, `${ns}/unready`]);
  assert.equal(controller.expectations.satisfiedExpectations(key), false);
  // The events name the deleted pods as Pods although the cached objects carried no kind.
  assert.deepEqual(related.sort(), ['SuccessfulDelete Pod/new-ready', 'SuccessfulDelete Pod/unready']);
});

e2eTest('adoption, release, status and finalizer deletion through the running controller', async (e2e) => {
  const env = await setup(e2e);
  const { ns } = env;
  const registry = new Registry();
  const runtime = new DemoRuntime({ rest: env.rest, namespace: ns, leaseNamespace: ns, registry, fakeKubelet: true, onError: () => {} });
  runtime.start();
  env.defer(() => runtime.stop());

  // An orphan matching the selector exists before the PodSet: it is adopted, not duplicated.
  await env.pods.create({ metadata: { name: 'orphan', namespace: ns, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  // A pod owned by someone else is left alone even though it matches. Its owner exists: the server's
  // garbage collector would otherwise collect a pod whose owner is absent.
  const replicaSets = new ResourceClient<ReplicaSet>(env.rest, { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, namespace: ns });
  const rs = await replicaSets.create({
    metadata: { name: 'rs', namespace: ns },
    spec: { replicas: 0, selector: { matchLabels: { app: 'rs' } }, template: { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const otherUid = rs.metadata?.uid ?? '';
  await env.pods.create({
    metadata: { name: 'foreign', namespace: ns, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: otherUid, controller: true }] },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  // The controller's pod cache must hold both before the PodSet arrives: the two informers watch
  // separately, and a PodSet seen first would make the controller create pods instead of adopting.
  for (const name of ['orphan', 'foreign']) await waitForCached(runtime.podInformer, (p) => p.metadata?.name === name, { timeoutMs: 20_000 });
  const ps = await env.podSets.create(podSet(ns, 'web', 2));
  let pods = await waitForPods(env, (all) => all.filter(ownedBy(ps)).length === 2 && all.filter(ownedBy(ps)).every((p) => p.status?.phase === 'Running'));
  const owned = pods.filter(ownedBy(ps));
  assert.ok(owned.some((p) => p.metadata?.name === 'orphan'), 'the orphan was adopted');
  assert.ok(owned.every((p) => p.metadata?.name === 'orphan' || p.metadata?.generateName === 'web-'), 'the rest were created with generateName <podset>-');
  assert.equal(pods.find((p) => p.metadata?.name === 'foreign')?.metadata?.ownerReferences?.[0]?.uid, otherUid);
  const adopted = owned.find((p) => p.metadata?.name === 'orphan');
  assert.deepEqual(adopted?.metadata?.ownerReferences, [{ apiVersion: 'demo.kubeloom.dev/v1alpha1', kind: 'PodSet', name: 'web', uid: ps.metadata?.uid, controller: true, blockOwnerDeletion: true }]);

  // Status through the status subresource, with the finalizer in place.
  await waitForPodSet(env, 'web', (cur) => cur?.status?.replicas === 2 && cur.status.readyReplicas === 2 && cur.status.observedGeneration === 1);
  assert.deepEqual((await env.podSets.get('web')).metadata?.finalizers, [podSetFinalizer]);

  // Release: relabelled out of the selector, the pod loses its controller reference and is replaced.
  await env.pods.patch('orphan', PatchType.Merge, { metadata: { labels: { app: 'gone' } } });
  pods = await waitForPods(env, (all) => all.some((p) => p.metadata?.name === 'orphan' && (p.metadata.ownerReferences ?? []).length === 0) && all.filter(ownedBy(ps)).length === 2);
  assert.equal(pods.filter(ownedBy(ps)).length, 2);

  // Deletion: the finalizer holds the PodSet until its pods are gone, then the PodSet goes.
  await env.podSets.delete('web');
  await waitForPodSet(env, 'web', (cur) => cur === undefined);
  pods = (await env.pods.list()).items;
  assert.deepEqual(pods.map((p) => p.metadata?.name).sort(), ['foreign', 'orphan'], 'only pods it did not own survive');

  const reasons = runtime.eventsByReason;
  assert.equal(reasons.get('SuccessfulCreate'), 2);
  assert.equal(reasons.get('SuccessfulRelease'), 1);
  assert.equal(reasons.get('SuccessfulDelete'), 2);
  const text = await registry.metrics();
  assert.match(text, /controller_runtime_reconcile_total\{controller="podset",result="success"\} \d+/);
  assert.match(text, /workqueue_adds_total\{name="podset",controller="podset"\} \d+/);
});

e2eTest('two replicas: only the Lease holder reconciles; the other takes over when it stops', async (e2e) => {
  const env = await setup(e2e);
  const { ns } = env;
  const a = new DemoRuntime({ rest: env.rest, namespace: ns, leaseNamespace: ns, identity: 'a', registry: new Registry(), fakeKubelet: true, onError: () => {} });
  a.start();
  await waitFor(() => a.isLeader());
  const b = new DemoRuntime({ rest: env.rest, namespace: ns, leaseNamespace: ns, identity: 'b', registry: new Registry(), onError: () => {} });
  b.start();
  env.defer(() => b.stop());
  const ps = await env.podSets.create(podSet(ns, 'web', 2));
  await waitForPods(env, (all) => all.filter(ownedBy(ps)).length === 2);
  assert.equal(b.isLeader(), false);
  const bStats = b.podSetController.controller.stats();
  assert.equal(bStats.success + bStats.error + bStats.requeueAfter, 0, 'the standby never reconciled');

  // The pods' watch events can reach the test before a has processed its second create's response, and
  // stopping cancels a's in-flight reconcile at once (as controller-runtime cancels the reconcile context).
  await waitFor(() => a.podSetController.counts.podsCreated === 2);
  // a stops and releases the Lease; b acquires it and reconciles the next change.
  await a.stop();
  await waitFor(() => b.isLeader());
  await env.podSets.patch('web', PatchType.Merge, { spec: { replicas: 3 } });
  await waitForPods(env, (all) => all.filter(ownedBy(ps)).length === 3);
  // The watch event can reach the test before b has processed its create's response.
  await waitFor(() => b.podSetController.counts.podsCreated === 1);
  assert.equal(a.podSetController.counts.podsCreated, 2);
});

/** Polls a condition on the loopback event loop, bounded. */
async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'condition not met in time');
}
