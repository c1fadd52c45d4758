import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../api/core/v1.ts';
import { PatchType } from '../apimachinery/options.ts';
import { startApiServer } from '../apiserver/index.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { kinds } from '../client/kinds.ts';
import { resourceVersionChanged } from '../predicate/predicate.ts';
import type { ReconcileCause } from '../reconcile/causes.ts';
import { eventually } from '../testing/eventually.ts';
import type { LogFields } from '../tools/events/logger.ts';
import type { ManagerIntrospection } from './introspection.ts';
import { newManager } from './manager.ts';

test('A reconcile knows why it ran: coalesced updates give one reconcile two causes, also in its log lines and /debug/controllers', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const lines: Array<{ message: string; fields: LogFields | undefined }> = [];
  const logger = { debug: (message: string, fields?: LogFields) => lines.push({ message, fields }), info: (message: string, fields?: LogFields) => lines.push({ message, fields }), error() {} };
  const mgr = newManager({ host: server.url, qps: -1 }, { logger, healthProbeBindAddress: '127.0.0.1:0', introspection: true });
  const cms = mgr.getClient();
  await cms.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'cm' }, data: { v: '0' } });

  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const seen: Array<readonly ReconcileCause[]> = [];
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps, { predicates: [resourceVersionChanged] })
    .named('cm-causes')
    .withOptions({ needLeaderElection: false })
    .complete(async (req, ctx) => {
      if (req.name !== 'cm') return;
      seen.push(ctx.causes ?? []);
      ctx.logger.info('reconciling');
      if (seen.length === 1) await gate;
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });

  // The first reconcile (the initial list) is held while the object changes twice.
  await eventually(() => seen.length === 1, { timeoutMs: 5_000 });
  const first = seen[0]!;
  assert.equal(first.length, 1);
  assert.deepEqual({ ...first[0], time: 0 }, { type: 'create', kind: 'ConfigMap', namespace: 'default', name: 'cm', resourceVersion: first[0]!.resourceVersion, initialList: true, predicates: ['ResourceVersionChangedPredicate'], handler: 'EnqueueRequestForObject', time: 0 });
  const a = await cms.patch(kinds.coreV1.configMaps, { namespace: 'default', name: 'cm' }, PatchType.Merge, { data: { v: '1' } });
  const b = await cms.patch(kinds.coreV1.configMaps, { namespace: 'default', name: 'cm' }, PatchType.Merge, { data: { v: '2' } });
  const pending = (): number => mgr.introspect().controllers.find((c) => c.name === 'cm-causes')?.queue.pending.find((p) => p.key === 'default/cm')?.causes ?? 0;
  await eventually(() => pending() === 2, { timeoutMs: 5_000 });
  const busy = mgr.introspect().controllers.find((c) => c.name === 'cm-causes')!;
  assert.equal(busy.workersBusy, 1);
  assert.deepEqual(busy.queue.inFlight.map((f) => f.key), ['default/cm']);
  release();
  await eventually(() => seen.length === 2, { timeoutMs: 5_000 });
  assert.deepEqual(
    seen[1]!.map((c) => [c.type, c.kind, c.name, c.resourceVersion, c.handler, c.predicates.join(',')]),
    [
      ['update', 'ConfigMap', 'cm', (a as ConfigMap).metadata!.resourceVersion, 'EnqueueRequestForObject', 'ResourceVersionChangedPredicate'],
      ['update', 'ConfigMap', 'cm', (b as ConfigMap).metadata!.resourceVersion, 'EnqueueRequestForObject', 'ResourceVersionChangedPredicate'],
    ],
  );
  // Every line the reconcile logs carries its causes.
  const logged = lines.filter((l) => l.message === 'reconciling' && l.fields?.['name'] === 'cm').map((l) => l.fields?.['causes']);
  assert.deepEqual(logged[1], [
    `update ConfigMap default/cm rv=${(a as ConfigMap).metadata!.resourceVersion} passing ResourceVersionChangedPredicate by EnqueueRequestForObject`,
    `update ConfigMap default/cm rv=${(b as ConfigMap).metadata!.resourceVersion} passing ResourceVersionChangedPredicate by EnqueueRequestForObject`,
  ]);
  await eventually(() => lines.filter((l) => l.message === 'Reconcile done' && l.fields?.['name'] === 'cm').length === 2, { timeoutMs: 5_000 });

  // /debug/controllers on the probe server.
  const doc = (await (await fetch(`http://${mgr.addresses().healthProbe}/debug/controllers`)).json()) as ManagerIntrospection;
  const informer = doc.informers.find((i) => i.resource === 'v1, Resource=configmaps')!;
  assert.equal(informer.synced, true);
  assert.equal(informer.items, (await cms.list(kinds.coreV1.configMaps)).length);
  assert.equal(informer.resourceVersion, (b as ConfigMap).metadata!.resourceVersion);
  assert.equal(informer.lists, 1);
  assert.equal(informer.relists, 0);
  assert.equal(informer.watchRestarts, 0);
  assert.ok(informer.lastEventAgeSeconds !== undefined && informer.lastEventAgeSeconds >= 0);
  const c = doc.controllers.find((x) => x.name === 'cm-causes')!;
  assert.deepEqual({ errors: c.errors, busy: c.workersBusy, depth: c.queue.depth, retries: c.queue.retries }, { errors: 0, busy: 0, depth: 0, retries: 0 });
  assert.equal(c.reconciles, c.success);
  assert.deepEqual(doc.leaderElection, { enabled: false, isLeader: false, healthy: true });
  assert.deepEqual(doc.webhooks, { enabled: false, paths: [] });
  assert.deepEqual(doc.stalledWatches, []);
  // The timeline.
  const timeline = (await (await fetch(`http://${mgr.addresses().healthProbe}/debug/reconciles`)).json()) as { reconciles: Array<{ key: string; result: string; causes: unknown[] }> };
  assert.deepEqual(timeline.reconciles.filter((r) => r.key === 'default/cm').map((r) => [r.key, r.result, r.causes.length]), [['default/cm', 'success', 1], ['default/cm', 'success', 2]]);
  assert.equal(timeline.reconciles.length, c.reconciles);
});

test('/debug/controllers is off unless the introspection option is set; an error is kept as the last error and its requeue is a cause', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: { debug() {}, info() {}, error() {} }, healthProbeBindAddress: '127.0.0.1:0' });
  await mgr.getClient().create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'bad' } });
  const seen: Array<readonly ReconcileCause[]> = [];
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps)
    .named('cm-errors')
    .withOptions({ needLeaderElection: false })
    .complete((req, ctx) => {
      if (req.name !== 'bad') return;
      seen.push(ctx.causes ?? []);
      if (seen.length === 1) throw new Error('first attempt fails');
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await eventually(() => seen.length === 2, { timeoutMs: 5_000 });
  assert.deepEqual(seen[1]!.map((c) => [c.type, c.reason]), [['requeue', 'error']]);
  const res = await fetch(`http://${mgr.addresses().healthProbe}/debug/controllers`);
  assert.equal(res.status, 404);
  await res.text();
  const c = mgr.introspect().controllers.find((x) => x.name === 'cm-errors')!;
  assert.equal(c.errors, 1);
  assert.equal(c.queue.retries, 1);
  assert.equal(c.lastError?.message, 'first attempt fails');
  assert.equal(c.lastError?.key, 'default/bad');
});
