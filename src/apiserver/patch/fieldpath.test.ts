import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareElements, FieldSet, fieldElement, indexElement, keyElement, pathToString, valueElement, type FieldPath } from './fieldpath.ts';

test('FieldSet encodes FieldsV1 like kube-apiserver: "." only for members with children, elements in upstream order', () => {
  const set = new FieldSet([
    ['f:spec', 'f:ports'],
    ['f:spec', 'f:ports', 'k:{"port":443,"protocol":"TCP"}'],
    ['f:spec', 'f:ports', 'k:{"port":443,"protocol":"TCP"}', 'f:port'],
    ['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'],
    ['f:metadata', 'f:finalizers', 'v:"b"'],
    ['f:metadata', 'f:finalizers', 'v:"a"'],
    ['f:spec', 'f:args'],
    ['f:metadata', 'f:labels', 'f:app'],
  ]);
  assert.equal(JSON.stringify(set.toFieldsV1()), JSON.stringify({
    'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} }, 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:args': {},
      'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': {}, 'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:port': {} } },
    },
  }));
});

test('FieldSet.fromFieldsV1 reads back what toFieldsV1 wrote, and ignores malformed parts', () => {
  const fields = { 'f:a': { '.': {}, 'f:b': {}, 'k:{"name":"x"}': { '.': {}, 'f:c': {} } }, 'f:d': 'not an object' };
  const set = FieldSet.fromFieldsV1(fields);
  assert.deepEqual(set.sorted(), [['f:a'], ['f:a', 'f:b'], ['f:a', 'k:{"name":"x"}'], ['f:a', 'k:{"name":"x"}', 'f:c']]);
  assert.deepEqual(FieldSet.fromFieldsV1(null).size, 0);
});

test('elements order as upstream: fields < keys < values < indices, keys and values by value', () => {
  const elements = [indexElement(10), indexElement(2), valueElement(true), valueElement('b'), valueElement(3), keyElement({ containerPort: 443 }),
    keyElement({ containerPort: 80 }), keyElement({ name: 'a', protocol: 'UDP' }), fieldElement('b'), fieldElement('a')];
  assert.deepEqual([...elements].sort(compareElements), [
    'f:a', 'f:b', 'k:{"containerPort":80}', 'k:{"containerPort":443}', 'k:{"name":"a","protocol":"UDP"}', 'v:3', 'v:"b"', 'v:true', 'i:2', 'i:10',
  ]);
});

test('key elements sort their fields by name', () => {
  assert.equal(keyElement({ protocol: 'TCP', containerPort: 80 }), 'k:{"containerPort":80,"protocol":"TCP"}');
});

test('pathToString prints paths the way conflict messages do', () => {
  const table: Array<[FieldPath, string]> = [
    [['f:spec', 'f:replicas'], '.spec.replicas'],
    [['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'], '.spec.containers[name="c"].image'],
    [['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'], '.spec.ports[port=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"x/y"'], '.metadata.finalizers[="x/y"]'],
    [['f:spec', 'f:args', 'i:0'], '.spec.args[0]'],
  ];
  for (const [path, want] of table) assert.equal(pathToString(path), want);
});

test('property: set operations agree with plain sets of path strings, whatever the field names', () => {
  const element = fc.oneof(fc.string({ unit: fc.constantFrom('a', 'e', 'z', '\u0000', '\u0001'), maxLength: 3 }).map(fieldElement), fc.nat(3).map(indexElement));
  const path = fc.array(element, { minLength: 1, maxLength: 3 });
  fc.assert(fc.property(fc.array(path, { maxLength: 8 }), fc.array(path, { maxLength: 8 }), (a, b) => {
    const key = (p: FieldPath): string => JSON.stringify(p);
    const sa = new FieldSet(a);
    const sb = new FieldSet(b);
    const ka = new Set(a.map(key));
    const kb = new Set(b.map(key));
    const keys = (s: FieldSet): string[] => [...s].map(key).sort();
    assert.deepEqual(keys(sa.union(sb)), [...new Set([...ka, ...kb])].sort());
    assert.deepEqual(keys(sa.intersection(sb)), [...ka].filter((k) => kb.has(k)).sort());
    assert.deepEqual(keys(sa.difference(sb)), [...ka].filter((k) => !kb.has(k)).sort());
    assert.deepEqual(keys(FieldSet.fromFieldsV1(sa.toFieldsV1())), [...ka].sort());
  }));
});

test('FieldSet keeps its FieldsV1 encoding while its members stay the same, and encodes afresh once they change', () => {
  const set = new FieldSet([['f:spec', 'f:replicas'], ['f:metadata', 'f:labels', 'f:app']]);
  const encoded = set.toFieldsV1();
  assert.ok(Object.isFrozen(encoded) && Object.isFrozen(encoded['f:spec']), 'shared encodings are frozen');
  // Decoded from its own encoding, filtered to the same members, united with a subset: the same object.
  const decoded = FieldSet.fromFieldsV1(encoded);
  assert.equal(decoded.toFieldsV1(), encoded);
  assert.equal(decoded.difference(new FieldSet([['f:status']])).toFieldsV1(), encoded);
  assert.equal(decoded.union(new FieldSet([['f:spec', 'f:replicas']])).toFieldsV1(), encoded);
  // A client's FieldsV1 (not made here) is encoded again, in the canonical form.
  const sent = { 'f:spec': { 'f:replicas': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } };
  assert.notEqual(FieldSet.fromFieldsV1(sent).toFieldsV1(), sent);
  assert.deepEqual(FieldSet.fromFieldsV1(sent).toFieldsV1(), encoded);
  // Changed members: a new encoding.
  const grown = decoded.union(new FieldSet([['f:spec', 'f:paused']]));
  assert.deepEqual(grown.toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });
  const shrunk = decoded.difference(new FieldSet([['f:spec', 'f:replicas']]));
  assert.deepEqual(shrunk.toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  decoded.add(['f:spec', 'f:minReadySeconds']);
  assert.deepEqual(decoded.toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:minReadySeconds': {}, 'f:replicas': {} } });
  decoded.delete(['f:spec', 'f:minReadySeconds']);
  assert.deepEqual(decoded.toFieldsV1(), encoded);
});

test('sets with the same members share one frozen FieldsV1 encoding; a set decoded from it is the caller\'s own copy', () => {
  const paths: FieldPath[] = [['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'], ['f:metadata', 'f:labels', 'f:app']];
  const a = new FieldSet(paths).toFieldsV1();
  const b = new FieldSet(paths).toFieldsV1();
  assert.equal(a, b);
  assert.ok(Object.isFrozen(a));
  assert.notEqual(new FieldSet([paths[0]!]).toFieldsV1(), a);
  const first = FieldSet.fromFieldsV1(a);
  first.add(['f:spec', 'f:nodeName']);
  const second = FieldSet.fromFieldsV1(a);
  assert.equal(second.size, 2);
  assert.equal(second.toFieldsV1(), a);
  assert.notEqual(first.toFieldsV1(), a);
});
