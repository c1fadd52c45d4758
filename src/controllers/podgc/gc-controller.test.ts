import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Pod } from '../../api/core/v1.ts';
import { startApiServer, type ApiServer } from '../../apiserver/index.ts';
import { newSharedInformerFactory } from '../../informers/factory.ts';
import { newClientset, type Clientset } from '../../kubernetes/clientset.ts';
import { EventBroadcaster } from '../../tools/events/record/event.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import type { ControllerContext } from '../controller-context.ts';
import { isPodTerminated, PodGCController, quarantineTimeMs } from './gc-controller.ts';

/** A server on a fake clock and a PodGCController whose passes the test runs itself (gc()). */
async function setup(
  t: TestContext,
  terminatedPodThreshold?: number,
  onError: ControllerContext['onError'] = (_c, err) => assert.fail(String(err)),
): Promise<{ client: Clientset; clock: FakeClock; gc: PodGCController; server: ApiServer; synced: (ok: (pods: Pod[]) => boolean) => Promise<void> }> {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = await startApiServer({ clock });
  const client = newClientset({ host: server.url });
  // The informers on the real clock (their waits poll it); the controller's own time is the fake one.
  const informerFactory = newSharedInformerFactory(client);
  const ctx: ControllerContext = { client, informerFactory, eventBroadcaster: new EventBroadcaster({ clock }), clock, onError };
  const gc = new PodGCController(ctx, terminatedPodThreshold === undefined ? {} : { terminatedPodThreshold });
  const stop = new AbortController();
  informerFactory.start({ signal: stop.signal });
  await informerFactory.waitForCacheSync({ signal: stop.signal });
  t.after(async () => {
    stop.abort();
    await informerFactory.shutdown();
    await client.close();
    await server.stop();
  });
  const podInformer = informerFactory.coreV1().pods();
  // Waits until the cache (what gc() reads) shows the pods the test expects.
  const synced = async (ok: (pods: Pod[]) => boolean): Promise<void> => {
    while (!ok(podInformer.lister().list())) await new Promise((r) => setImmediate(r));
  };
  return { client, clock, gc, server, synced };
}

const pod = (name: string, nodeName?: string): Pod => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'x:1' }], ...(nodeName === undefined ? {} : { nodeName }) } });
const names = async (client: Clientset): Promise<string[]> => (await client.coreV1().pods('default').list()).items.map((p) => p.metadata?.name ?? '').sort();

test('isPodTerminated: every phase but Pending, Running and Unknown, an empty one included (upstream)', () => {
  assert.deepEqual(
    ['Pending', 'Running', 'Unknown', 'Succeeded', 'Failed', undefined].map((phase) => isPodTerminated({ status: phase === undefined ? {} : { phase } })),
    [false, false, false, true, true, true],
  );
});

test('terminated pods beyond the threshold are deleted oldest first; running pods are not counted', async (t) => {
  const { client, clock, gc, synced } = await setup(t, 2);
  const pods = client.coreV1().pods('default');
  for (const [name, phase] of [['d', 'Succeeded'], ['c', 'Failed'], ['run', 'Running'], ['b', 'Succeeded'], ['a', 'Failed']] as const) {
    const created = await pods.create(pod(name, 'n1'));
    await pods.updateStatus({ ...created, status: { phase } });
    await clock.step(1000);
  }
  await client.coreV1().nodes().create({ metadata: { name: 'n1' } });
  await synced((ps) => ps.filter((p) => p.status?.phase !== 'Pending').length === 5);
  await gc.gc();
  // d and c are the oldest of the four terminated pods; two are kept.
  assert.deepEqual(await names(client), ['a', 'b', 'run']);
});

test('a pod bound to a node that is gone is deleted only after the quarantine and a live check', async (t) => {
  const { client, clock, gc, synced } = await setup(t);
  const pods = client.coreV1().pods('default');
  await client.coreV1().nodes().create({ metadata: { name: 'n1' } });
  await pods.create(pod('on-n1', 'n1'));
  await pods.create(pod('on-gone', 'gone'));
  await pods.create(pod('on-late', 'late'));
  await synced((ps) => ps.length === 3);
  await gc.gc();
  assert.deepEqual(await names(client), ['on-gone', 'on-late', 'on-n1']);
  // The node "late" appears during the quarantine: its pod stays.
  await client.coreV1().nodes().create({ metadata: { name: 'late' } });
  await clock.step(quarantineTimeMs - 1);
  await gc.gc();
  assert.deepEqual(await names(client), ['on-gone', 'on-late', 'on-n1']);
  await clock.step(1);
  await gc.gc();
  assert.deepEqual(await names(client), ['on-late', 'on-n1']);
});

test('an unscheduled pod that is terminating is force-deleted; a terminating bound pod and a pending one are not', async (t) => {
  const failed: string[] = [];
  const { client, gc, server, synced } = await setup(t, undefined, (_c, _err, key) => failed.push(key));
  const pods = client.coreV1().pods('default');
  await client.coreV1().nodes().create({ metadata: { name: 'n1' } });
  // A finalizer keeps the unscheduled pod after its DELETE (deleted at once otherwise: no kubelet to wait for).
  await pods.create({ ...pod('held'), metadata: { name: 'held', finalizers: ['kubeloom.dev/hold'] } });
  await pods.delete('held');
  await pods.create({ ...pod('bound', 'n1'), metadata: { name: 'bound', finalizers: ['kubeloom.dev/hold'] } });
  await pods.delete('bound');
  await pods.create(pod('pending'));
  await synced((ps) => ps.length === 3 && ps.filter((p) => p.metadata?.deletionTimestamp !== undefined).length === 2);
  // Every pod DELETE fails now: the failures name the pods podgc tried to delete.
  server.faults.failNext({ verb: 'delete', resource: 'pods', status: 403, count: 10 });
  await gc.gc();
  assert.deepEqual(failed, ['default/held']);
});
