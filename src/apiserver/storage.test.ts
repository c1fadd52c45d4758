import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage, RevisionCompactedError, type Change } from './storage.ts';

function cm(name: string, v: string, namespace = 'default'): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { v } };
}

const view = (items: Iterable<{ key: string; rv: number; obj: Record<string, unknown> }>): string[] =>
  [...items].map((s) => `${s.key}@${s.rv}=${(s.obj.data as { v: string }).v}`);

test('every write takes the next global revision and stamps it as resourceVersion, keys in Go struct order (kind first, maps sorted)', () => {
  const s = new Storage(10);
  const a = s.write('configmaps', 'default/a', 'ADDED', { data: { v: '1' }, metadata: { name: 'a', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' }, kind: 'ConfigMap', apiVersion: 'v1' });
  const b = s.write('secrets', 'default/b', 'ADDED', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' } });
  assert.deepEqual([a.rv, b.rv, s.revision], [1, 2, 2]);
  assert.equal(a.json, '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","resourceVersion":"1","creationTimestamp":"2024-01-01T00:00:00Z"},"data":{"v":"1"}}');
});

test('listAt rebuilds the state at an older revision from the history', () => {
  const s = new Storage(100);
  s.write('cm', 'default/b', 'ADDED', cm('b', '1')); // 1
  s.write('cm', 'default/a', 'ADDED', cm('a', '1')); // 2
  s.write('other', 'x', 'ADDED', cm('x', '1')); // 3
  s.write('cm', 'default/a', 'MODIFIED', cm('a', '2')); // 4
  s.write('cm', 'default/b', 'DELETED', cm('b', '1')); // 5
  s.write('cm', 'default/c', 'ADDED', cm('c', '1')); // 6
  const cases: Array<[number, string[]]> = [
    [0, []],
    [1, ['default/b@1=1']],
    [3, ['default/a@2=1', 'default/b@1=1']],
    [4, ['default/a@4=2', 'default/b@1=1']],
    [5, ['default/a@4=2']],
    [6, ['default/a@4=2', 'default/c@6=1']],
  ];
  for (const [rv, expected] of cases) assert.deepEqual(view(s.listAt('cm', rv)), expected, `at ${rv}`);
  assert.deepEqual(view(s.listAt('cm', 3, { startKey: 'default/a\u0000' })), ['default/b@1=1']);
});

test('scan ranges over one namespace from a start key and counts what is left', () => {
  const s = new Storage(100);
  for (const key of ['b/x', 'a/y', 'a/x', 'a-b/z', 'a0/q', 'c/x']) {
    const [ns, name] = key.split('/') as [string, string];
    s.write('cm', key, 'ADDED', cm(name, '1', ns));
  }
  const keys = (r: { items: Iterable<{ key: string }> }): string[] => [...r.items].map((i) => i.key);
  const all = s.scan('cm', s.revision);
  assert.deepEqual(keys(all), ['a-b/z', 'a/x', 'a/y', 'a0/q', 'b/x', 'c/x']);
  const a = s.scan('cm', s.revision, { namespace: 'a' });
  assert.equal(a.total, 2);
  assert.deepEqual(keys(a), ['a/x', 'a/y']);
  const rest = s.scan('cm', s.revision, { namespace: 'a', startKey: 'a/x\u0000' });
  assert.deepEqual([rest.total, keys(rest)], [1, ['a/y']]);
  assert.deepEqual(keys(s.scan('cm', s.revision, { startKey: 'a0' })), ['a0/q', 'b/x', 'c/x']);
  assert.deepEqual(keys(s.scan('none', s.revision)), []);
});

test('the bounded history compacts the oldest revisions; compact() drops up to a revision', () => {
  const s = new Storage(3);
  for (let i = 1; i <= 5; i++) s.write('cm', `default/c${i}`, 'ADDED', cm(`c${i}`, '1'));
  assert.equal(s.compactedRevision, 2);
  assert.deepEqual(
    s.changesSince('cm', 2).map((c: Change) => c.rv),
    [3, 4, 5],
  );
  assert.throws(() => s.changesSince('cm', 1), RevisionCompactedError);
  assert.throws(() => s.listAt('cm', 1), RevisionCompactedError);
  s.compact(4);
  assert.equal(s.compactedRevision, 4);
  assert.deepEqual(
    s.changesSince('cm', 4).map((c) => c.rv),
    [5],
  );
  assert.throws(() => s.changesSince('cm', 3), RevisionCompactedError);
  // Compacting backwards or past the current revision is harmless.
  s.compact(2);
  s.compact(99);
  assert.equal(s.compactedRevision, 5);
});

test('listeners see every change of their resource with its previous state', () => {
  const s = new Storage(10);
  const seen: string[] = [];
  const off = s.subscribe('cm', (c) => seen.push(`${c.type} ${c.key} ${c.rv} prev=${c.prev?.rv ?? '-'}`));
  s.write('cm', 'default/a', 'ADDED', cm('a', '1'));
  s.write('other', 'x', 'ADDED', cm('x', '1'));
  s.write('cm', 'default/a', 'MODIFIED', cm('a', '2'));
  s.write('cm', 'default/a', 'DELETED', cm('a', '2'));
  off();
  s.write('cm', 'default/b', 'ADDED', cm('b', '1'));
  assert.deepEqual(seen, ['ADDED default/a 1 prev=-', 'MODIFIED default/a 3 prev=1', 'DELETED default/a 4 prev=3']);
  assert.equal(s.get('cm', 'default/a'), undefined);
  assert.equal(s.count('cm'), 1);
});

test('a store decoder shapes every read: get, list, scan, the history and the previous state of a new change', () => {
  const s = new Storage(100);
  s.write('cm', 'default/a', 'ADDED', cm('a', 'old')); // 1
  s.write('cm', 'default/b', 'ADDED', cm('b', 'old')); // 2
  // Objects written before revision 3 are read with their value upper-cased, as a codec would decode them.
  s.setDecoder('cm', (o) => (o.rv >= 3 ? o : { ...o, obj: { ...o.obj, data: { v: 'OLD' } } }));
  s.write('cm', 'default/c', 'ADDED', cm('c', 'new')); // 3
  assert.deepEqual(view([s.get('cm', 'default/a')!]), ['default/a@1=OLD']);
  assert.deepEqual(view(s.listAt('cm', s.revision)), ['default/a@1=OLD', 'default/b@2=OLD', 'default/c@3=new']);
  assert.deepEqual(view(s.listAt('cm', 2)), ['default/a@1=OLD', 'default/b@2=OLD']);
  assert.deepEqual(view(s.scan('cm', s.revision).items), ['default/a@1=OLD', 'default/b@2=OLD', 'default/c@3=new']);
  assert.deepEqual(view(s.changesSince('cm', 0).map((c) => c.object)), ['default/a@1=OLD', 'default/b@2=OLD', 'default/c@3=new']);
  const seen: Change[] = [];
  s.subscribe('cm', (c) => seen.push(c));
  s.write('cm', 'default/a', 'MODIFIED', cm('a', 'newer')); // 4
  assert.deepEqual(view([seen[0]!.prev!]), ['default/a@1=OLD']);
  s.setDecoder('cm', undefined);
  assert.deepEqual(view([s.get('cm', 'default/b')!]), ['default/b@2=old']);
});
