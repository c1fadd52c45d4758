import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../apimachinery/object.ts';
import { enqueueRequestForOwner, enqueueRequestsFromMapFunc, type RequestQueue } from '../handler/handler.ts';
import { kinds } from '../client/kinds.ts';
import { allows, and, annotationChanged, generationChanged, labelChanged, labelSelector, not, or, resourceVersionChanged } from './predicate.ts';

const obj = (meta: KubeObject['metadata']): KubeObject => ({ metadata: meta });
const upd = (a: KubeObject['metadata'], b: KubeObject['metadata']) => ({ objectOld: obj(a), objectNew: obj(b) });

test('update predicates pass changes of generation, resourceVersion, labels and annotations only', () => {
  assert.equal(allows(generationChanged, 'update', upd({ generation: 1 }, { generation: 1, resourceVersion: '2' })), false);
  assert.equal(allows(generationChanged, 'update', upd({ generation: 1 }, { generation: 2 })), true);
  assert.equal(allows(generationChanged, 'create', { object: obj({}), isInInitialList: false }), true);
  assert.equal(allows(resourceVersionChanged, 'update', upd({ resourceVersion: '5' }, { resourceVersion: '5' })), false);
  assert.equal(allows(labelChanged, 'update', upd({ labels: { a: '1' } }, { labels: { a: '1' } })), false);
  assert.equal(allows(labelChanged, 'update', upd({ labels: { a: '1' } }, { labels: { a: '2' } })), true);
  assert.equal(allows(annotationChanged, 'update', upd({}, { annotations: { x: '' } })), true);
});

test('labelSelector and the and/or/not combinators', () => {
  const web = { object: obj({ labels: { app: 'web' } }), isInInitialList: false };
  const db = { object: obj({ labels: { app: 'db' } }), isInInitialList: false };
  const isWeb = labelSelector('app=web');
  assert.equal(allows(isWeb, 'create', web), true);
  assert.equal(allows(labelSelector({ matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] }), 'create', db), true);
  assert.equal(allows(not(isWeb), 'create', web), false);
  assert.equal(allows(or(isWeb, labelSelector('app=db')), 'create', db), true);
  assert.equal(allows(and(isWeb, labelSelector('app=db')), 'create', db), false);
  assert.equal(allows(and(), 'create', db), true);
  assert.equal(allows(or(), 'create', db), false);
});

test('enqueueRequestForOwner follows the controller reference only unless asked, old and new owners on update', () => {
  const added: string[] = [];
  const q: RequestQueue = { add: (r) => added.push(`${r.namespace}/${r.name}`) };
  const owned = (refs: { name: string; controller?: boolean; kind?: string }[]): KubeObject =>
    obj({ namespace: 'ns', ownerReferences: refs.map((r) => ({ apiVersion: 'apps/v1', kind: r.kind ?? 'Deployment', name: r.name, uid: r.name, ...(r.controller ? { controller: true } : {}) })) });
  const h = enqueueRequestForOwner(kinds.appsV1.deployments);
  h.create!({ object: owned([{ name: 'ctl', controller: true }, { name: 'plain' }, { name: 'rs', kind: 'ReplicaSet', controller: true }]), isInInitialList: false }, q);
  assert.deepEqual(added, ['ns/ctl']);
  added.length = 0;
  enqueueRequestForOwner(kinds.appsV1.deployments, { onlyController: false }).create!({ object: owned([{ name: 'ctl', controller: true }, { name: 'plain' }]), isInInitialList: false }, q);
  assert.deepEqual(added, ['ns/ctl', 'ns/plain']);
  added.length = 0;
  h.update!({ objectOld: owned([{ name: 'old', controller: true }]), objectNew: owned([{ name: 'new', controller: true }]) }, q);
  assert.deepEqual(added, ['ns/old', 'ns/new']);
  added.length = 0;
  enqueueRequestsFromMapFunc((o) => [{ namespace: 'x', name: o.metadata?.name ?? '' }]).update!(upd({ name: 'a' }, { name: 'a' }), q);
  assert.deepEqual(added, ['x/a']);
});
