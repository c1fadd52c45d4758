/**
 * The PodSet controller against the embedded API server: expectations prevent over-creation,
 * adoption and release, finalizer-driven deletion, status through the status subresource, and
 * leader election between two replicas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../src/api/core/v1.ts';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { Registry } from 'prom-client';
import { RestClient } from '../src/rest/client.ts';
import { ResourceClient } from '../src/kubernetes/resource-client.ts';
import { PatchType } from '../src/apimachinery/options.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { newListWatchFromClient } from '../src/tools/cache/listwatch.ts';
import { untilWithSync } from '../src/tools/watch/index.ts';
import type { DemoInformer } from '../src/demo/informer.ts';
import type { ResourceEventHandler } from '../src/controller/index.ts';
import { newIndexer } from '../src/tools/cache/store.ts';
import { deletionHandlingMetaNamespaceKeyFunc, metaNamespaceIndexFunc, NamespaceIndex } from '../src/tools/cache/key-functions.ts';
import type { Indexers } from '../src/tools/cache/indexer.ts';
import { controllerUidIndex, controllerUidIndexFunc, PodSetController } from '../src/demo/podset-controller.ts';
import { DemoRuntime } from '../src/demo/runtime.ts';
import { podSetCrd, podSetFinalizer, podSetGroup, podSetKind, podSetResource, podSetVersion, type PodSet } from '../src/demo/podset.ts';

const ns = 'default';

interface Env {
  /** Runs `fn` at the end of the test, before the client and server close (last deferred first). */
  defer(fn: () => Promise<void>): void;
  server: ApiServer;
  rest: RestClient;
  pods: ResourceClient<Pod>;
  podSets: ResourceClient<PodSet>;
}

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<Env> {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  const deferred: (() => Promise<void>)[] = [];
  t.after(async () => {
    // Watches must end before the client closes: close() waits for requests in flight.
    for (const fn of deferred.reverse()) await fn();
    await rest.close();
    await server.stop();
  });
  const crds = new ResourceClient<CustomResourceDefinition>(rest, { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
  await crds.create(structuredClone(podSetCrd));
  return {
    defer: (fn) => deferred.push(fn),
    server,
    rest,
    pods: new ResourceClient<Pod>(rest, { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, namespace: ns }),
    podSets: new ResourceClient<PodSet>(rest, { group: podSetGroup, version: podSetVersion, resource: podSetResource, kind: podSetKind, namespaced: true, namespace: ns }),
  };
}

function podSet(name: string, replicas: number): PodSet {
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
    precondition: (store) => ok(store.get(`${ns}/${name}`)),
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

test('expectations: a second sync before the cache observes the creations creates nothing; the 5-minute expiry lets a sync proceed', async (t) => {
  const env = await setup(t);
  const clock = new FakeClock();
  const podSetInformer = new ManualInformer<PodSet>();
  const podInformer = new ManualInformer<Pod>({ [controllerUidIndex]: controllerUidIndexFunc });
  const controller = new PodSetController({ podSetInformer, podInformer, pods: () => env.pods, podSets: () => env.podSets, clock });
  const created = await env.podSets.create(podSet('web', 3));
  const withFinalizer = await env.podSets.patch('web', PatchType.Merge, { metadata: { finalizers: [podSetFinalizer] } });
  podSetInformer.add(withFinalizer);
  const signal = new AbortController().signal;

  await controller.sync('default/web', signal);
  assert.equal((await env.pods.list()).items.length, 3);
  assert.deepEqual(controller.expectations.getExpectations('default/web')?.add, 3);
  await controller.sync('default/web', signal);
  await controller.sync('default/web', signal);
  assert.equal((await env.pods.list()).items.length, 3, 'no over-creation while the creations are unobserved');

  // The cache observes two of the three: still pending.
  const serverPods = (await env.pods.list()).items;
  for (const p of serverPods.slice(0, 2)) podInformer.add(p);
  await controller.sync('default/web', signal);
  assert.equal((await env.pods.list()).items.length, 3);
  assert.equal(controller.expectations.getExpectations('default/web')?.add, 1);

  // After upstream's 5-minute timeout the controller trusts its cache again (and so creates the
  // pod the cache is missing: the reason the timeout is long).
  await clock.step(5 * 60 * 1000 + 1);
  await controller.sync('default/web', signal);
  assert.equal((await env.pods.list()).items.length, 4);
  assert.equal(created.metadata?.uid, withFinalizer.metadata?.uid);
});

test('slow start: creates go out in batches of 1, 2, 4, …; a failed batch skips the rest and lowers the expectations', async (t) => {
  const env = await setup(t);
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
  const controller = new PodSetController({ podSetInformer, podInformer, pods: () => pods, podSets: () => env.podSets, recorder });
  await env.podSets.create({ ...podSet('web', 7), metadata: { name: 'web', namespace: ns, finalizers: [podSetFinalizer] } });
  podSetInformer.add(await env.podSets.get('web'));
  const signal = new AbortController().signal;

  env.server.faults.failNext({ verb: 'create', resource: 'pods', status: 500, message: 'etcd is sad' });
  await assert.rejects(controller.sync('default/web', signal), /etcd is sad/);
  assert.equal(calls.join(''), '+-', 'the first batch (1) failed, the other 6 creates were skipped');
  assert.equal(controller.expectations.satisfiedExpectations('default/web'), true, 'the skipped and failed creates were lowered');
  assert.deepEqual(events, ['Warning FailedCreate']);

  calls.length = 0;
  await controller.sync('default/web', signal);
  assert.equal(calls.join(''), '+-++--++++----', 'batches of 1, 2 and 4');
  assert.equal((await env.pods.list()).items.length, 7);
  assert.equal(events.filter((e) => e === 'Normal SuccessfulCreate').length, 7);
});

test('scale down deletes unready pods first, then the newest, with deletion expectations per pod', async (t) => {
  const env = await setup(t);
  const podSetInformer = new ManualInformer<PodSet>();
  const podInformer = new ManualInformer<Pod>({ [controllerUidIndex]: controllerUidIndexFunc });
  const controller = new PodSetController({ podSetInformer, podInformer, pods: () => env.pods, podSets: () => env.podSets });
  await env.podSets.create({ ...podSet('web', 1), metadata: { name: 'web', namespace: ns, finalizers: [podSetFinalizer] } });
  const ps = await env.podSets.get('web');
  podSetInformer.add(ps);
  const ref = { apiVersion: 'demo.kubeloom.dev/v1alpha1', kind: 'PodSet', name: 'web', uid: ps.metadata?.uid ?? '', controller: true };
  const make = async (name: string, created: string, ready: boolean): Promise<void> => {
    const pod = await env.pods.create({ metadata: { name, namespace: ns, labels: { app: 'web' }, ownerReferences: [ref] }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    // The cache's view: creation times and readiness as a kubelet would have reported them.
    podInformer.add({ ...pod, metadata: { ...pod.metadata, creationTimestamp: created }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  };
  await make('old-ready', '2024-01-01T00:00:00Z', true);
  await make('new-ready', '2024-01-02T00:00:00Z', true);
  await make('unready', '2023-01-01T00:00:00Z', false);
  await controller.sync('default/web', new AbortController().signal);
  assert.deepEqual((await env.pods.list()).items.map((p) => p.metadata?.name), ['old-ready']);
  assert.deepEqual([...(controller.expectations.getUIDs('default/web') ?? [])].sort(), ['default/new-ready', 'default/unready']);
  assert.equal(controller.expectations.satisfiedExpectations('default/web'), false);
});

test('adoption, release, status and finalizer deletion through the running controller', async (t) => {
  const env = await setup(t);
  const registry = new Registry();
  const runtime = new DemoRuntime({ rest: env.rest, namespace: ns, leaseNamespace: ns, registry, fakeKubelet: true, onError: () => {} });
  runtime.start();
  env.defer(() => runtime.stop());

  // An orphan matching the selector exists before the PodSet: it is adopted, not duplicated.
  await env.pods.create({ metadata: { name: 'orphan', namespace: ns, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  // A pod owned by someone else is left alone even though it matches.
  await env.pods.create({
    metadata: { name: 'foreign', namespace: ns, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'other-uid', controller: true }] },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  });
  const ps = await env.podSets.create(podSet('web', 2));
  let pods = await waitForPods(env, (all) => all.filter(ownedBy(ps)).length === 2 && all.filter(ownedBy(ps)).every((p) => p.status?.phase === 'Running'));
  const owned = pods.filter(ownedBy(ps));
  assert.ok(owned.some((p) => p.metadata?.name === 'orphan'), 'the orphan was adopted');
  assert.ok(owned.every((p) => p.metadata?.name === 'orphan' || p.metadata?.generateName === 'web-'), 'the rest were created with generateName <podset>-');
  assert.equal(pods.find((p) => p.metadata?.name === 'foreign')?.metadata?.ownerReferences?.[0]?.uid, 'other-uid');
  const adopted = owned.find((p) => p.metadata?.name === 'orphan');
  assert.deepEqual(adopted?.metadata?.ownerReferences, [{ apiVersion: 'demo.kubeloom.dev/v1alpha1', kind: 'PodSet', name: 'web', uid: ps.metadata?.uid, controller: true, blockOwnerDeletion: true }]);

  // Status through the status subresource, with the finalizer in place.
  await waitForPodSet(env, 'web', (cur) => cur?.status?.replicas === 2 && cur.status.readyReplicas === 2 && cur.status.observedGeneration === 1);
  assert.deepEqual((await env.podSets.get('web')).metadata?.finalizers, [podSetFinalizer]);

  // Release: relabelled out of the selector, the pod loses its controller reference and is replaced.
  await env.pods.patch('orphan', PatchType.Merge, { metadata: { labels: { app: 'gone' } } });
  pods = await waitForPods(env, (all) => all.find((p) => p.metadata?.name === 'orphan')?.metadata?.ownerReferences?.length === 0 && all.filter(ownedBy(ps)).length === 2);
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
  assert.match(text, /controller_reconcile_total\{controller="podset",result="success"\} \d+/);
  assert.match(text, /workqueue_adds_total\{name="podset"\} \d+/);
});

test('two replicas: only the Lease holder reconciles; the other takes over when it stops', async (t) => {
  const env = await setup(t);
  const a = new DemoRuntime({ rest: env.rest, namespace: ns, leaseNamespace: ns, identity: 'a', registry: new Registry(), fakeKubelet: true, onError: () => {} });
  a.start();
  await waitFor(() => a.isLeader());
  const b = new DemoRuntime({ rest: env.rest, namespace: ns, leaseNamespace: ns, identity: 'b', registry: new Registry(), onError: () => {} });
  b.start();
  env.defer(() => b.stop());
  const ps = await env.podSets.create(podSet('web', 2));
  await waitForPods(env, (all) => all.filter(ownedBy(ps)).length === 2);
  assert.equal(b.isLeader(), false);
  const bStats = b.podSetController.controller.stats();
  assert.equal(bStats.success + bStats.error + bStats.requeueAfter, 0, 'the standby never reconciled');

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
