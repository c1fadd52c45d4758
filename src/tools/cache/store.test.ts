import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Cache, newIndexer, newStore } from './store.ts';
import { DeletedFinalStateUnknown, KeyError, deletionHandlingMetaNamespaceKeyFunc, NamespaceIndex, metaNamespaceIndexFunc, metaNamespaceKeyFunc } from './key-functions.ts';
import { IndexConflictError, IndexFuncError, UnknownIndexError, type IndexFunc } from './indexer.ts';

interface Obj {
  metadata: { namespace?: string; name: string; labels?: Record<string, string> };
  spec?: { users?: string[] };
}

const pod = (ns: string, name: string, users: string[] = []): Obj => ({ metadata: { namespace: ns, name }, spec: { users } });
const byUser: IndexFunc<Obj> = (o) => o.spec?.users ?? [];
const sorted = (xs: string[]): string[] => [...xs].sort();
const names = (xs: Obj[]): string[] => sorted(xs.map((o) => o.metadata.name));

test('Store: add, update, delete, get, list, listKeys, replace', () => {
  const store = newStore<Obj>();
  store.add(pod('ns', 'a'));
  store.add(pod('ns', 'b'));
  store.update(pod('ns', 'a', ['x']));
  assert.deepEqual(sorted(store.listKeys()), ['ns/a', 'ns/b']);
  assert.deepEqual(store.get(pod('ns', 'a'))?.spec?.users, ['x']);
  assert.equal(store.getByKey('ns/zzz'), undefined);
  store.delete(new DeletedFinalStateUnknown<Obj>('ns/b', undefined));
  assert.deepEqual(store.listKeys(), ['ns/a']);
  store.delete(pod('ns', 'missing'));
  store.replace([pod('ns', 'c'), pod('other', 'd')], '42');
  assert.deepEqual(names(store.list()), ['c', 'd']);
  assert.equal((store as Cache<Obj>).lastStoreSyncResourceVersion(), '42');
  store.resync();
  assert.throws(() => store.add({} as Obj), KeyError);
});

test('Indexer: byIndex, index, indexKeys and listIndexFuncValues over multi-valued index functions', () => {
  const idx = newIndexer<Obj>(metaNamespaceKeyFunc, { byUser, [NamespaceIndex]: metaNamespaceIndexFunc });
  idx.add(pod('ns1', 'a', ['ernie', 'bert']));
  idx.add(pod('ns1', 'b', ['bert']));
  idx.add(pod('ns2', 'c', ['elmo']));
  assert.deepEqual(names(idx.byIndex('byUser', 'bert')), ['a', 'b']);
  assert.deepEqual(sorted(idx.indexKeys('byUser', 'ernie')), ['ns1/a']);
  assert.deepEqual(sorted(idx.listIndexFuncValues('byUser')), ['bert', 'elmo', 'ernie']);
  assert.deepEqual(names(idx.index('byUser', pod('x', 'q', ['elmo', 'ernie']))), ['a', 'c']);
  assert.deepEqual(names(idx.index('byUser', pod('x', 'q', ['bert']))), ['a', 'b']);
  assert.deepEqual(names(idx.byIndex(NamespaceIndex, 'ns1')), ['a', 'b']);
  // Updating touches only changed values; values that no longer occur disappear.
  idx.update(pod('ns1', 'a', ['bert']));
  assert.deepEqual(sorted(idx.listIndexFuncValues('byUser')), ['bert', 'elmo']);
  idx.delete(pod('ns2', 'c'));
  assert.deepEqual(sorted(idx.listIndexFuncValues('byUser')), ['bert']);
  assert.deepEqual(idx.byIndex('byUser', 'nobody'), []);
});

test('Indexer: unknown index names throw UnknownIndexError with upstream\'s message; listIndexFuncValues returns []', () => {
  const idx = newIndexer<Obj>(metaNamespaceKeyFunc, {});
  for (const call of [() => idx.byIndex('x', 'v'), () => idx.indexKeys('x', 'v'), () => idx.index('x', pod('a', 'b'))]) {
    assert.throws(call, (err: unknown) => err instanceof UnknownIndexError && err.message === 'Index with name x does not exist');
  }
  // Upstream's ListIndexFuncValues has no error result: an unknown index simply has no values.
  assert.deepEqual(idx.listIndexFuncValues('x'), []);
});

test('Indexer: addIndexers indexes existing data and rejects conflicts without registering anything', () => {
  const idx = newIndexer<Obj>(metaNamespaceKeyFunc, { byUser });
  idx.add(pod('ns', 'a', ['u1']));
  idx.addIndexers({ [NamespaceIndex]: metaNamespaceIndexFunc });
  assert.deepEqual(idx.indexKeys(NamespaceIndex, 'ns'), ['ns/a']);
  assert.throws(() => idx.addIndexers({ byUser, other: byUser }), (err: unknown) => err instanceof IndexConflictError && err.message === 'indexer conflict: byUser');
  assert.deepEqual(sorted(Object.keys(idx.getIndexers())), ['byUser', NamespaceIndex].sort());
});

test('Indexer: a throwing index function leaves the store unchanged', () => {
  const idx = newIndexer<Obj>(metaNamespaceKeyFunc, {
    picky: (o) => {
      if (o.metadata.name === 'bad') throw new Error('no');
      return [o.metadata.name];
    },
  });
  idx.add(pod('ns', 'ok'));
  assert.throws(() => idx.add(pod('ns', 'bad')), IndexFuncError);
  assert.deepEqual(idx.listKeys(), ['ns/ok']);
  assert.throws(() => idx.replace([pod('ns', 'bad')], '1'), IndexFuncError);
  assert.deepEqual(idx.listKeys(), ['ns/ok']);
});

test('Indexer property: indices always equal the indices rebuilt from the items', () => {
  const nameArb = fc.constantFrom('a', 'b', 'c', 'd', 'e');
  const nsArb = fc.constantFrom('ns1', 'ns2', '');
  const usersArb = fc.uniqueArray(fc.constantFrom('u1', 'u2', 'u3', 'u4'), { maxLength: 3 });
  const objArb = fc.record({ ns: nsArb, name: nameArb, users: usersArb }).map(({ ns, name, users }) => pod(ns, name, users));
  const opArb = fc.oneof(
    fc.record({ op: fc.constant('add' as const), obj: objArb }),
    fc.record({ op: fc.constant('update' as const), obj: objArb }),
    fc.record({ op: fc.constant('delete' as const), obj: objArb }),
    fc.record({ op: fc.constant('replace' as const), objs: fc.array(objArb, { maxLength: 6 }) }),
    fc.record({ op: fc.constant('addIndexer' as const) }),
  );
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
      const idx = newIndexer<Obj>(metaNamespaceKeyFunc, { byUser });
      const model = new Map<string, Obj>();
      let hasNs = false;
      for (const step of ops) {
        if (step.op === 'add' || step.op === 'update') {
          idx[step.op](step.obj);
          model.set(metaNamespaceKeyFunc(step.obj), step.obj);
        } else if (step.op === 'delete') {
          idx.delete(step.obj);
          model.delete(metaNamespaceKeyFunc(step.obj));
        } else if (step.op === 'replace') {
          idx.replace(step.objs, 'rv');
          model.clear();
          for (const o of step.objs) model.set(metaNamespaceKeyFunc(o), o);
        } else if (!hasNs) {
          idx.addIndexers({ [NamespaceIndex]: metaNamespaceIndexFunc });
          hasNs = true;
        }
        assert.deepEqual(sorted(idx.listKeys()), sorted([...model.keys()]));
        const indexes: [string, IndexFunc<Obj>][] = [['byUser', byUser]];
        if (hasNs) indexes.push([NamespaceIndex, metaNamespaceIndexFunc]);
        for (const [name, fn] of indexes) {
          const expected = new Map<string, string[]>();
          for (const [k, o] of model) for (const v of fn(o)) expected.set(v, [...(expected.get(v) ?? []), k]);
          assert.deepEqual(sorted(idx.listIndexFuncValues(name)), sorted([...expected.keys()]));
          for (const [v, keys] of expected) assert.deepEqual(sorted(idx.indexKeys(name, v)), sorted(keys));
        }
      }
    }),
    { numRuns: 300 },
  );
});

test('the store is at the resourceVersion of its last replace, bookmark, or object added, updated or deleted (threadSafeMap)', () => {
  const store = new Cache<{ metadata: { name: string; resourceVersion?: string } }>(deletionHandlingMetaNamespaceKeyFunc, { byName: (o) => [o.metadata.name] });
  const at = (name: string, rv: string): { metadata: { name: string; resourceVersion: string } } => ({ metadata: { name, resourceVersion: rv } });
  store.replace([at('a', '5')], '10');
  assert.equal(store.lastStoreSyncResourceVersion(), '10');
  store.add(at('b', '11'));
  assert.equal(store.lastStoreSyncResourceVersion(), '11');
  store.update(at('a', '12'));
  assert.equal(store.lastStoreSyncResourceVersion(), '12');
  store.delete(at('b', '13'));
  assert.equal(store.lastStoreSyncResourceVersion(), '13');
  // A tombstone carries no resourceVersion of its own: nothing is recorded (rvFromObject fails).
  store.delete(new DeletedFinalStateUnknown('a', at('a', '12')));
  assert.equal(store.lastStoreSyncResourceVersion(), '13');
  // Deleting a key the store does not hold still records the deleted object's resourceVersion.
  store.delete(at('gone', '14'));
  assert.equal(store.lastStoreSyncResourceVersion(), '14');
  store.bookmark('20');
  assert.equal(store.lastStoreSyncResourceVersion(), '20');
});

test('indexKeys lists keys sorted (sets.List upstream)', () => {
  const indexer = newIndexer<Obj>(metaNamespaceKeyFunc, { byUser });
  for (const name of ['m', 'c', 'x', 'a']) indexer.add(pod('ns', name, ['u']));
  assert.deepEqual(indexer.indexKeys('byUser', 'u'), ['ns/a', 'ns/c', 'ns/m', 'ns/x']);
});

test("a key function's own error reaches the caller as a KeyError wrapping it", () => {
  const boom = new TypeError('no key for you');
  const store = newStore<Obj>(() => {
    throw boom;
  });
  for (const call of [() => store.add(pod('ns', 'a')), () => store.update(pod('ns', 'a')), () => store.delete(pod('ns', 'a')), () => store.get(pod('ns', 'a')), () => store.replace([pod('ns', 'a')], '1')]) {
    assert.throws(call, (e) => e instanceof KeyError && e.cause === boom && /couldn't create key for object .*: no key for you/.test(e.message));
  }
});
