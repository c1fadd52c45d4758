import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DeletedFinalStateUnknown,
  InvalidKeyError,
  KeyError,
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceIndexFunc,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
} from './key-functions.ts';

test('metaNamespaceKeyFunc builds namespace/name, or name for cluster-scoped objects', () => {
  const cases: [unknown, string][] = [
    [{ metadata: { namespace: 'ns', name: 'a' } }, 'ns/a'],
    [{ metadata: { name: 'node-1' } }, 'node-1'],
    [{ metadata: { namespace: '', name: 'b' } }, 'b'],
    [{ metadata: {} }, ''],
  ];
  for (const [obj, key] of cases) assert.equal(metaNamespaceKeyFunc(obj), key);
});

test('metaNamespaceKeyFunc throws KeyError for values without metadata', () => {
  for (const bad of [undefined, null, 42, 'x', {}, { metadata: 'nope' }]) {
    assert.throws(() => metaNamespaceKeyFunc(bad), (err: unknown) => err instanceof KeyError && err.code === 'ERR_CACHE_KEY' && err.obj === bad);
  }
});

test('deletionHandlingMetaNamespaceKeyFunc unwraps tombstones to their key', () => {
  const tomb = new DeletedFinalStateUnknown('ns/gone', { metadata: { namespace: 'other', name: 'x' } });
  assert.equal(deletionHandlingMetaNamespaceKeyFunc(tomb), 'ns/gone');
  assert.equal(deletionHandlingMetaNamespaceKeyFunc({ metadata: { namespace: 'ns', name: 'a' } }), 'ns/a');
  assert.ok(Object.isFrozen(tomb));
});

test('splitMetaNamespaceKey follows client-go: name, namespace/name, otherwise an error', () => {
  assert.deepEqual(splitMetaNamespaceKey('a'), { namespace: '', name: 'a' });
  assert.deepEqual(splitMetaNamespaceKey('ns/a'), { namespace: 'ns', name: 'a' });
  assert.deepEqual(splitMetaNamespaceKey('/a'), { namespace: '', name: 'a' });
  assert.deepEqual(splitMetaNamespaceKey(''), { namespace: '', name: '' });
  assert.throws(() => splitMetaNamespaceKey('a/b/c'), (err: unknown) => err instanceof InvalidKeyError && err.message === 'unexpected key format: "a/b/c"');
});

test('metaNamespaceIndexFunc indexes by namespace, "" for cluster-scoped', () => {
  assert.deepEqual(metaNamespaceIndexFunc({ metadata: { namespace: 'ns', name: 'a' } }), ['ns']);
  assert.deepEqual(metaNamespaceIndexFunc({ metadata: { name: 'n' } }), ['']);
});
