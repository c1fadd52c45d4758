import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isNotFound, StatusError } from '../../apimachinery/errors.ts';
import { parseSelector } from '../../apimachinery/labels.ts';
import { Lister, listAllByNamespace } from './lister.ts';
import { newIndexer } from './store.ts';
import { NamespaceIndex, deletionHandlingMetaNamespaceKeyFunc, metaNamespaceIndexFunc } from './key-functions.ts';

interface Obj {
  metadata: { namespace?: string; name: string; labels?: Record<string, string> };
}
const obj = (ns: string, name: string, app?: string): Obj => ({ metadata: app === undefined ? { namespace: ns, name } : { namespace: ns, name, labels: { app } } });
const names = (xs: Obj[]): string[] => xs.map((x) => `${x.metadata.namespace ?? ''}/${x.metadata.name}`).sort();

function indexer(withNamespaceIndex = true) {
  const idx = newIndexer<Obj>(deletionHandlingMetaNamespaceKeyFunc, withNamespaceIndex ? { [NamespaceIndex]: metaNamespaceIndexFunc } : {});
  for (const o of [obj('a', 'web-1', 'web'), obj('a', 'db-1', 'db'), obj('b', 'web-2', 'web'), obj('', 'node-1')]) idx.add(o);
  return idx;
}

test('Lister.list filters by label selector (object or string), across namespaces', () => {
  const lister = new Lister<Obj>(indexer(), { group: '', resource: 'pods' });
  assert.deepEqual(names(lister.list()), ['/node-1', 'a/db-1', 'a/web-1', 'b/web-2']);
  assert.deepEqual(names(lister.list('app=web')), ['a/web-1', 'b/web-2']);
  assert.deepEqual(names(lister.list(parseSelector('app in (db)'))), ['a/db-1']);
});

test('Lister.namespace(ns) lists and gets within one namespace, with or without the namespace index', () => {
  for (const withIndex of [true, false]) {
    const lister = new Lister<Obj>(indexer(withIndex), { group: '', resource: 'pods' });
    assert.deepEqual(names(lister.namespace('a').list()), ['a/db-1', 'a/web-1']);
    assert.deepEqual(names(lister.namespace('a').list('app=web')), ['a/web-1']);
    assert.equal(lister.namespace('b').get('web-2').metadata.name, 'web-2');
    assert.deepEqual(names(listAllByNamespace(indexer(withIndex), '')), ['/node-1', 'a/db-1', 'a/web-1', 'b/web-2']);
  }
});

test('Lister.get throws a NotFound StatusError naming the group and resource', () => {
  const lister = new Lister<Obj>(indexer(), { group: 'apps', resource: 'deployments' });
  assert.equal(lister.get('node-1').metadata.name, 'node-1');
  assert.throws(
    () => lister.get('missing'),
    (err: unknown) => err instanceof StatusError && isNotFound(err) && err.message === 'deployments.apps "missing" not found',
  );
  assert.throws(() => lister.namespace('a').get('web-2'), (err: unknown) => isNotFound(err));
});
