/**
 * tools/cache object-names.go, store.go (ExplicitKey, ObjectToName), controller.go
 * (DeletionHandlingObjectToName) and index.go (IndexFuncToKeyFuncAdapter).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeletedFinalStateUnknown, ExplicitKey, InvalidKeyError, KeyError, deletionHandlingMetaNamespaceKeyFunc, metaNamespaceKeyFunc } from './key-functions.ts';
import { deletionHandlingObjectToName, newObjectName, objectNameString, objectToName, parseObjectName } from './object-names.ts';
import { indexFuncToKeyFuncAdapter } from './indexer.ts';
import { newStore } from './store.ts';

const pod = { metadata: { namespace: 'default', name: 'web' } };
const node = { metadata: { name: 'n1' } };

test('an ExplicitKey is its own key: a store can delete by key alone', () => {
  assert.equal(metaNamespaceKeyFunc(new ExplicitKey('default/web')), 'default/web');
  assert.equal(deletionHandlingMetaNamespaceKeyFunc(new ExplicitKey('n1')), 'n1');
  const store = newStore<typeof pod>(metaNamespaceKeyFunc);
  store.add(pod);
  store.delete(new ExplicitKey('default/web') as unknown as typeof pod);
  assert.deepEqual(store.listKeys(), []);
});

test('ObjectName: parsed from keys, made from objects and tombstones, printed as the store key', () => {
  assert.deepEqual(parseObjectName('default/web'), { namespace: 'default', name: 'web' });
  assert.deepEqual(parseObjectName('n1'), { namespace: '', name: 'n1' });
  assert.throws(() => parseObjectName('a/b/c'), InvalidKeyError);
  assert.deepEqual(objectToName(pod), newObjectName('default', 'web'));
  assert.equal(objectNameString(objectToName(pod)), metaNamespaceKeyFunc(pod));
  assert.equal(objectNameString(objectToName(node)), 'n1');
  assert.throws(() => objectToName('not an object'), KeyError);
  // meta.Accessor fails for an ExplicitKey, so ObjectToName does too.
  assert.throws(() => objectToName(new ExplicitKey('default/web')), /object has no meta/);
  assert.deepEqual(deletionHandlingObjectToName(new DeletedFinalStateUnknown('kube-system/dns', undefined)), { namespace: 'kube-system', name: 'dns' });
  assert.deepEqual(deletionHandlingObjectToName(pod), { namespace: 'default', name: 'web' });
  assert.ok(Object.isFrozen(newObjectName('a', 'b')));
});

test('indexFuncToKeyFuncAdapter: the one index value is the key; several or none are errors', () => {
  const byUid = indexFuncToKeyFuncAdapter<{ uids: string[] }>((o) => o.uids);
  assert.equal(byUid({ uids: ['u1'] }), 'u1');
  assert.throws(() => byUid({ uids: ['u1', 'u2'] }), /too many keys: \[u1 u2\]/);
  assert.throws(() => byUid({ uids: [] }), /unexpected empty indexKeys/);
  const store = newStore<{ uids: string[] }>(byUid);
  store.add({ uids: ['u9'] });
  assert.deepEqual(store.listKeys(), ['u9']);
});
