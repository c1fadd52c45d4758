import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/core/v1.ts';
import { DeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import { enqueueForObject, enqueueForOwner, enqueueMapped } from './enqueue.ts';

function sink(): { keys: string[]; add: (key: string) => void } {
  const keys: string[] = [];
  return { keys, add: (key) => keys.push(key) };
}

function pod(name: string, owners: { kind: string; apiVersion: string; name: string; controller?: boolean }[] = []): Pod {
  return { metadata: { namespace: 'ns', name, ownerReferences: owners.map((o) => ({ ...o, uid: `uid-${o.name}` })) }, spec: { containers: [] } };
}

test('enqueueForObject enqueues the object key on add, update and delete, and the tombstone key', () => {
  const s = sink();
  const h = enqueueForObject<Pod>(s);
  h.onAdd(pod('a'), true);
  h.onUpdate(pod('a'), pod('b'));
  h.onDelete(pod('c'));
  h.onDelete(new DeletedFinalStateUnknown<Pod>('ns/gone', undefined));
  assert.deepEqual(s.keys, ['ns/a', 'ns/b', 'ns/c', 'ns/gone']);
});

test('enqueueForOwner follows the controller reference of the matching kind and group only', () => {
  const cases: { name: string; owners: Parameters<typeof pod>[1]; options: Parameters<typeof enqueueForOwner>[1]; want: string[] }[] = [
    { name: 'controller ref', owners: [{ kind: 'PodSet', apiVersion: 'demo.kubeloom.dev/v1alpha1', name: 'ps', controller: true }], options: { ownerKind: 'PodSet', group: 'demo.kubeloom.dev' }, want: ['ns/ps'] },
    { name: 'non-controller ref skipped', owners: [{ kind: 'PodSet', apiVersion: 'demo.kubeloom.dev/v1alpha1', name: 'ps' }], options: { ownerKind: 'PodSet', group: 'demo.kubeloom.dev' }, want: [] },
    { name: 'non-controller ref when asked', owners: [{ kind: 'PodSet', apiVersion: 'demo.kubeloom.dev/v1alpha1', name: 'ps' }], options: { ownerKind: 'PodSet', group: 'demo.kubeloom.dev', onlyController: false }, want: ['ns/ps'] },
    { name: 'other kind', owners: [{ kind: 'ReplicaSet', apiVersion: 'apps/v1', name: 'rs', controller: true }], options: { ownerKind: 'PodSet' }, want: [] },
    { name: 'other group', owners: [{ kind: 'PodSet', apiVersion: 'other.io/v1', name: 'ps', controller: true }], options: { ownerKind: 'PodSet', group: 'demo.kubeloom.dev' }, want: [] },
    { name: 'exact apiVersion', owners: [{ kind: 'PodSet', apiVersion: 'demo.kubeloom.dev/v1', name: 'ps', controller: true }], options: { ownerKind: 'PodSet', ownerApiVersion: 'demo.kubeloom.dev/v1alpha1' }, want: [] },
  ];
  for (const c of cases) {
    const s = sink();
    enqueueForOwner<Pod>(s, c.options).onAdd(pod('p', c.owners), false);
    assert.deepEqual(s.keys, c.want, c.name);
  }
});

test('enqueueForOwner on update enqueues the old and the new owner once each; on a tombstone its last state', () => {
  const s = sink();
  const h = enqueueForOwner<Pod>(s, { ownerKind: 'PodSet' });
  const a = pod('p', [{ kind: 'PodSet', apiVersion: 'x/v1', name: 'a', controller: true }]);
  const b = pod('p', [{ kind: 'PodSet', apiVersion: 'x/v1', name: 'b', controller: true }]);
  h.onUpdate(a, b);
  h.onUpdate(b, b);
  h.onDelete(new DeletedFinalStateUnknown('ns/p', a));
  h.onDelete(new DeletedFinalStateUnknown<Pod>('ns/p', undefined));
  assert.deepEqual(s.keys, ['ns/a', 'ns/b', 'ns/b', 'ns/a']);
});

test('enqueueMapped enqueues the mapped keys of old and new objects, deduplicated', () => {
  const s = sink();
  const h = enqueueMapped<Pod>(s, (p) => [`ns/${p.metadata?.labels?.['app'] ?? 'none'}`, 'ns/all']);
  const web = { metadata: { name: 'p', labels: { app: 'web' } } };
  const api = { metadata: { name: 'p', labels: { app: 'api' } } };
  h.onAdd(web, false);
  h.onUpdate(web, api);
  h.onDelete(new DeletedFinalStateUnknown('ns/p', api));
  assert.deepEqual(s.keys, ['ns/web', 'ns/all', 'ns/web', 'ns/all', 'ns/api', 'ns/api', 'ns/all']);
});
