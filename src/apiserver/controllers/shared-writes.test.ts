/**
 * The stand-ins write through LoopbackClient.modify, which hands them the stored object itself: the
 * registry's update path (managedFields, the status strategy, the stored form) must then never change a
 * stored object, and it keeps what the write did not replace shared with the version before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../util/clock/index.ts';
import { Faults } from '../faults.ts';
import { ApiHandler } from '../handler.ts';
import { ResourceRegistry } from '../resources.ts';
import { Storage, type StoredObject } from '../storage.ts';
import { FakeKubelet } from './fake-kubelet.ts';
import { FakeScheduler } from './fake-scheduler.ts';
import { LoopbackClient } from './loopback-client.ts';

function deepFreeze(o: unknown): void {
  if (o === null || typeof o !== 'object' || Object.isFrozen(o)) return;
  Object.freeze(o);
  for (const v of Object.values(o)) deepFreeze(v);
}

test('the stand-ins never change a stored object (each frozen as it is stored), and a pod status write keeps the stored spec itself', async () => {
  const clock = new FakeClock(Date.parse('2024-06-01T00:00:00Z'));
  const storage = new Storage(1000);
  const none = (): void => undefined;
  const faults = new Faults({ closeWatches: () => 0, stallWatches: () => 0, injectMalformedLine: () => 0, compact: none, restart: async () => undefined });
  const handler = new ApiHandler(new ResourceRegistry(), storage, faults, { token: undefined, bookmarkIntervalMs: 60_000, defaultWatchTimeoutSeconds: 1800, maxRequestBodyBytes: 3 * 1024 * 1024, clock });
  const scope = handler.internalScope();
  // Every state of every object is frozen once stored: a write that changes a stored object throws.
  const versions: StoredObject[] = [];
  storage.subscribeAll((c) => {
    deepFreeze(c.object.obj);
    if (c.store === 'pods') versions.push(c.object);
  });
  const client = new LoopbackClient(scope, 'test');
  for (const name of ['default', 'kube-node-lease']) client.create(client.resourceFor('v1', 'Namespace'), '', { metadata: { name } });
  const errors: unknown[] = [];
  const stats = { podsBound: 0, podsStarted: 0, podsFinished: 0 };
  const kubelet = new FakeKubelet({ client: new LoopbackClient(scope, 'kubelet'), clock, stats, nodeCount: 2, stages: { readyMs: 1000 }, onError: (e) => errors.push(e) });
  const scheduler = new FakeScheduler({ client: new LoopbackClient(scope, 'kube-scheduler'), clock, stats, onError: (e) => errors.push(e) });
  kubelet.start();
  scheduler.start();
  const pods = client.resourceFor('v1', 'Pod');
  client.create(pods, 'default', {
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m' }, limits: { cpu: '1', memory: '64Mi' } } }] },
  });
  const settle = async (): Promise<void> => {
    while (!(kubelet.idle() && scheduler.idle())) await new Promise<void>((r) => setImmediate(r));
  };
  await settle();
  await clock.step(1000);
  await settle();
  await clock.step(10_000);
  await settle();
  await kubelet.stop();
  await scheduler.stop();
  assert.deepEqual(errors, []);
  const pod = client.get(pods, 'default', 'web') as { status: { phase: string; conditions: { type: string; status: string }[] } };
  assert.equal(pod.status.phase, 'Running');
  assert.equal(pod.status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
  // created, bound (spec.nodeName), Running not Ready, Ready: the two status writes keep the bound spec itself.
  assert.equal(versions.length, 4);
  const [, bound, running, ready] = versions.map((v) => v.obj);
  assert.equal(running!.spec, bound!.spec);
  assert.equal(ready!.spec, bound!.spec);
  // And the stored text is what a full re-encoding gives.
  for (const v of versions) assert.equal(v.json, JSON.stringify(v.obj));
});
