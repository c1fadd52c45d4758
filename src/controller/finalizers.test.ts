import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../api/core/v1.ts';
import { RestClient } from '../rest/client.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { PatchType } from '../apimachinery/options.ts';
import { startApiServer } from '../testing/index.ts';
import { addFinalizer, addFinalizerPatch, hasFinalizer, isFinalizerPatchConflict, removeFinalizer, removeFinalizerPatch } from './finalizers.ts';

test('finalizer patches test the resourceVersion and the list they were computed from', () => {
  const obj = { metadata: { name: 'a', resourceVersion: '7', finalizers: ['x', 'f', 'y', 'f'] } };
  assert.equal(addFinalizerPatch(obj, 'f'), undefined);
  assert.deepEqual(addFinalizerPatch(obj, 'g'), [
    { op: 'test', path: '/metadata/resourceVersion', value: '7' },
    { op: 'test', path: '/metadata/finalizers', value: ['x', 'f', 'y', 'f'] },
    { op: 'add', path: '/metadata/finalizers/-', value: 'g' },
  ]);
  assert.deepEqual(addFinalizerPatch({ metadata: { name: 'a', resourceVersion: '7' } }, 'g'), [
    { op: 'test', path: '/metadata/resourceVersion', value: '7' },
    { op: 'add', path: '/metadata/finalizers', value: ['g'] },
  ]);
  assert.deepEqual(removeFinalizerPatch(obj, 'f'), [
    { op: 'test', path: '/metadata/resourceVersion', value: '7' },
    { op: 'test', path: '/metadata/finalizers', value: ['x', 'f', 'y', 'f'] },
    { op: 'remove', path: '/metadata/finalizers/3' },
    { op: 'remove', path: '/metadata/finalizers/1' },
  ]);
  assert.equal(removeFinalizerPatch(obj, 'g'), undefined);
});

test('addFinalizer/removeFinalizer against the API server, and a stale copy never overwrites a concurrent change', async (t) => {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url });
  t.after(async () => {
    await rest.close();
    await server.stop();
  });
  const cms = new ResourceClient<ConfigMap>(rest, { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, namespace: 'default' });
  const created = await cms.create({ metadata: { name: 'cm' } });

  const withF = await addFinalizer(cms, created, 'demo.kubeloom.dev/f');
  assert.deepEqual(withF.metadata?.finalizers, ['demo.kubeloom.dev/f']);
  assert.equal(await addFinalizer(cms, withF, 'demo.kubeloom.dev/f'), withF, 'already present: no request');

  // Someone else adds a finalizer; our copy (withF) is now stale.
  await cms.patch('cm', PatchType.JSON, [{ op: 'add', path: '/metadata/finalizers/-', value: 'other/g' }]);
  const stale = await removeFinalizer(cms, withF, 'demo.kubeloom.dev/f').then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(isFinalizerPatchConflict(stale), `a stale remove fails with Invalid or Conflict, got ${String(stale)}`);
  const staleAdd = await addFinalizer(cms, created, 'demo.kubeloom.dev/h').then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(isFinalizerPatchConflict(staleAdd));
  assert.deepEqual((await cms.get('cm')).metadata?.finalizers, ['demo.kubeloom.dev/f', 'other/g'], 'the concurrent change survived');

  // Retried from a fresh copy it succeeds, and the last finalizer's removal completes a pending delete.
  const fresh = await removeFinalizer(cms, await cms.get('cm'), 'demo.kubeloom.dev/f');
  assert.deepEqual(fresh.metadata?.finalizers, ['other/g']);
  assert.equal(hasFinalizer(fresh, 'demo.kubeloom.dev/f'), false);
  await cms.delete('cm');
  const deleting = await cms.get('cm');
  assert.ok(deleting.metadata?.deletionTimestamp);
  await removeFinalizer(cms, deleting, 'other/g');
  await assert.rejects(cms.get('cm'), (err: unknown) => (err as { statusCode?: number }).statusCode === 404);
});

test("addFinalizer and removeFinalizer take the Manager's Client with the object's kind", async (t) => {
  const server = await startApiServer();
  const rest = new RestClient({ host: server.url, qps: -1 });
  t.after(async () => {
    await rest.close();
    await server.stop();
  });
  const { Client } = await import('../client/client.ts');
  const { kinds } = await import('../client/kinds.ts');
  const client = new Client({ rest });
  const cm = await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'f' } });
  const added = await addFinalizer(client, kinds.coreV1.configMaps, cm, 'example.com/cleanup');
  assert.deepEqual(added.metadata?.finalizers, ['example.com/cleanup']);
  assert.equal(await addFinalizer(client, kinds.coreV1.configMaps, added, 'example.com/cleanup'), added, 'present: no request');
  const removed = await removeFinalizer(client, kinds.coreV1.configMaps, added, 'example.com/cleanup');
  assert.equal(removed.metadata?.finalizers, undefined);
});
