import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { Pod } from '../../api/core/v1.ts';
import { startApiServer } from '../../apiserver/index.ts';
import { newSharedInformerFactory } from '../../informers/factory.ts';
import { newClientset, type Clientset } from '../../kubernetes/clientset.ts';
import { EventBroadcaster } from '../../tools/events/record/event.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import type { ControllerContext } from '../controller-context.ts';
import { isPodTerminated, PodGCController, quarantineTimeMs } from './gc-controller.ts';

/** A server on a fake clock and a PodGCController whose passes the test runs itself (gc()). */
async function setup(t: TestContext, terminatedPodThreshold?: number): Promise<{ client: Clientset; clock: FakeClock; gc: PodGCController; synced: (ok: (pods: Pod[]) => boolean) => Promise<void> }> {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = await startApiServer({ clock });
  const client = newClientset({ host: server.url });
  // The informers on the real clock (their waits poll it); the controller's own time is the fake one.
  const informerFactory = newSharedInformerFactory(client);
  const ctx: ControllerContext = { client, informerFactory, eventBroadcaster: new EventBroadcaster({ clock }), clock, onError: (_c, err) => assert.fail(String(err)) };
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
  return { client, clock, gc, synced };
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
