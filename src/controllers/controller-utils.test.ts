import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Namespace, Pod } from '../api/core/v1.ts';
import { Lister } from '../tools/cache/lister.ts';
import { deletionHandlingMetaNamespaceKeyFunc } from '../tools/cache/key-functions.ts';
import { newIndexer } from '../tools/cache/store.ts';
import { comparePodsForDeletion, computeHash, enqueueNamespace, getActiveNamespace, isPodAvailable, safeEncodeString, slowStartBatch } from './controller-utils.ts';

const now = Date.parse('2026-01-01T12:00:00Z');

function pod(name: string, opts: { node?: string; phase?: string; readySince?: string; created?: string; restarts?: number; cost?: string } = {}): Pod {
  return {
    metadata: { name, creationTimestamp: opts.created ?? '2026-01-01T11:00:00Z', ...(opts.cost === undefined ? {} : { annotations: { 'controller.kubernetes.io/pod-deletion-cost': opts.cost } }) },
    spec: { containers: [], ...(opts.node === undefined ? {} : { nodeName: opts.node }) },
    status: {
      phase: opts.phase ?? 'Running',
      ...(opts.readySince === undefined ? {} : { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: opts.readySince }] }),
      containerStatuses: [{ name: 'c', image: 'x', imageID: '', ready: true, restartCount: opts.restarts ?? 0 }],
    },
  };
}

test('slowStartBatch calls in batches of 1, 2, 4, … and stops after the first batch with a failure', async () => {
  let calls = 0;
  const result = await slowStartBatch(10, 1, async () => {
    const n = ++calls;
    await Promise.resolve();
    if (n === 5) throw new Error('refused');
  });
  assert.equal(calls, 7, 'batches 1, 2, 4: the fifth call fails in the third batch, no fourth batch');
  assert.equal(result.successes, 6);
  assert.equal((result.error as Error).message, 'refused');
  assert.deepEqual(await slowStartBatch(0, 1, () => Promise.resolve()), { successes: 0, error: undefined });
});

test('comparePodsForDeletion: unassigned, then pending, then unready, then lower deletion cost, then doubled-up, then recently ready, then restarts, then newer', () => {
  const order = (a: Pod, b: Pod, ra = 0, rb = 0): number => Math.sign(comparePodsForDeletion(a, b, ra, rb, now));
  const ready = '2026-01-01T11:30:00Z';
  assert.equal(order(pod('a'), pod('b', { node: 'n' })), -1, 'unassigned first');
  assert.equal(order(pod('a', { node: 'n', phase: 'Pending' }), pod('b', { node: 'n' })), -1, 'pending before running');
  assert.equal(order(pod('a', { node: 'n' }), pod('b', { node: 'n', readySince: ready })), -1, 'unready before ready');
  assert.equal(order(pod('a', { node: 'n', readySince: ready, cost: '-5' }), pod('b', { node: 'n', readySince: ready })), -1, 'lower cost first');
  assert.equal(order(pod('a', { node: 'n', readySince: ready }), pod('b', { node: 'n', readySince: ready }), 3, 1), -1, 'more pods on the node first');
  assert.equal(order(pod('a', { node: 'n', readySince: '2026-01-01T11:59:00Z' }), pod('b', { node: 'n', readySince: '2026-01-01T09:00:00Z' })), -1, 'ready for less time first');
  assert.equal(order(pod('a', { node: 'n', readySince: ready, restarts: 4 }), pod('b', { node: 'n', readySince: ready })), -1, 'more restarts first');
  assert.equal(order(pod('a', { node: 'n', readySince: ready, created: '2026-01-01T11:59:00Z' }), pod('b', { node: 'n', readySince: ready, created: '2026-01-01T01:00:00Z' })), -1, 'newer first');
  // On the logarithmic scale, creation times within the same power of two of age compare equal.
  assert.equal(order(pod('a', { node: 'n', readySince: ready, created: '2026-01-01T11:00:00Z' }), pod('b', { node: 'n', readySince: ready, created: '2026-01-01T11:00:01Z' })), 0);
});

test('isPodAvailable needs the Ready condition for minReadySeconds', () => {
  const p = pod('a', { readySince: '2026-01-01T11:59:50Z' });
  assert.equal(isPodAvailable(p, 0, now), true);
  assert.equal(isPodAvailable(p, 5, now), true);
  assert.equal(isPodAvailable(p, 10, now), false, 'exactly minReadySeconds is not yet available (Before, not !After)');
  assert.equal(isPodAvailable(pod('b'), 0, now), false);
});

test('computeHash is stable across key order, changes with the collision count, and uses the safe alphabet', () => {
  const a = computeHash({ metadata: { labels: { a: '1', b: '2' } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  const b = computeHash({ spec: { containers: [{ image: 'x', name: 'c' }] }, metadata: { labels: { b: '2', a: '1' } } });
  assert.equal(a, b);
  assert.notEqual(computeHash({ x: 1 }, 1), computeHash({ x: 1 }, 2));
  assert.match(a, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.equal(safeEncodeString('0123'), '4567');
});

test('getActiveNamespace: an Active namespace (or one without a phase yet); not a missing, terminating or deleted one', () => {
  const idx = newIndexer<Namespace>(deletionHandlingMetaNamespaceKeyFunc, {});
  idx.add({ metadata: { name: 'active' }, status: { phase: 'Active' } });
  idx.add({ metadata: { name: 'new' } });
  idx.add({ metadata: { name: 'terminating' }, status: { phase: 'Terminating' } });
  idx.add({ metadata: { name: 'deleting', deletionTimestamp: '2026-01-01T12:00:00Z' }, status: { phase: 'Active' } });
  const lister = new Lister<Namespace>(idx, { group: '', resource: 'namespaces' });
  assert.equal(getActiveNamespace(lister, 'active')?.metadata?.name, 'active');
  assert.equal(getActiveNamespace(lister, 'new')?.metadata?.name, 'new');
  assert.equal(getActiveNamespace(lister, 'terminating'), undefined);
  assert.equal(getActiveNamespace(lister, 'deleting'), undefined);
  assert.equal(getActiveNamespace(lister, 'missing'), undefined);
});

test('enqueueNamespace enqueues the name on add and update, nothing on delete', () => {
  const keys: string[] = [];
  const handler = enqueueNamespace({ add: (k) => keys.push(k) });
  const ns: Namespace = { metadata: { name: 'a' } };
  handler.onAdd(ns, true);
  handler.onUpdate(ns, { metadata: { name: 'b' } });
  handler.onDelete({ metadata: { name: 'c' } });
  assert.deepEqual(keys, ['a', 'b']);
});
