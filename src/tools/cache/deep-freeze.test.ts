import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deepFreeze, freezeReusing } from './deep-freeze.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;

function assertDeeplyFrozen(v: unknown, path = '$'): void {
  if (!isObject(v)) return;
  assert.ok(Object.isFrozen(v), `${path} is not frozen`);
  for (const [k, child] of Object.entries(v)) assertDeeplyFrozen(child, `${path}.${k}`);
}

/** Every object of `result` that is deep-equal to the one at the same path in `previous` must be that very object. */
function assertMaximallyShared(result: unknown, previous: unknown, path = '$'): void {
  if (!isObject(result) || !isObject(previous) || Array.isArray(result) !== Array.isArray(previous)) return;
  let equal = true;
  try {
    assert.deepStrictEqual(result, previous);
  } catch {
    equal = false;
  }
  if (equal) {
    assert.equal(result, previous, `${path} equals the previous version's but is a copy`);
    return;
  }
  for (const [k, child] of Object.entries(result)) {
    if (Object.hasOwn(previous, k)) assertMaximallyShared(child, (previous as Record<string, unknown>)[k], `${path}.${k}`);
  }
}

test('deepFreeze freezes every nested object and array, and returns its argument', () => {
  const obj = { a: { b: [{ c: 1 }, [2]] }, d: 'x', e: null };
  assert.equal(deepFreeze(obj), obj);
  assertDeeplyFrozen(obj);
  assert.throws(() => {
    (obj.a.b[0] as { c: number }).c = 2;
  }, TypeError);
  assert.equal(deepFreeze(5), 5);
});

test('freezeReusing keeps the unchanged parts of the previous version and freezes only what changed', () => {
  const previous = deepFreeze({
    metadata: { name: 'a', resourceVersion: '1', labels: { app: 'x' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }] },
    spec: { containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }, { type: 'Scheduled', status: 'True' }] },
  });
  const next = JSON.parse(JSON.stringify(previous)) as typeof previous;
  (next.metadata as { resourceVersion: string }).resourceVersion = '2';
  (next.status.conditions[0] as { status: string }).status = 'True';
  const expected: unknown = structuredClone(next);

  const result = freezeReusing(next, previous);

  assert.equal(result, next);
  assert.deepStrictEqual(result, expected);
  assertDeeplyFrozen(result);
  assert.equal(result.metadata.labels, previous.metadata.labels);
  assert.equal(result.metadata.managedFields, previous.metadata.managedFields);
  assert.equal(result.spec, previous.spec);
  assert.equal(result.status.conditions[1], previous.status.conditions[1]);
  assert.notEqual(result.status.conditions[0], previous.status.conditions[0]);
  assert.equal(previous.metadata.resourceVersion, '1');
  assert.equal(previous.status.conditions[0]!.status, 'False');
});

test('freezeReusing returns the previous version itself when nothing changed', () => {
  const previous = deepFreeze({ a: [1, { b: 'x' }], c: null });
  assert.equal(freezeReusing({ a: [1, { b: 'x' }], c: null }, previous), previous);
  assert.equal(freezeReusing(previous, previous), previous);
  const first = deepFreeze({ a: 1 });
  assert.equal(freezeReusing(first, undefined), first);
});

test('freezeReusing tells apart what JSON equality tells apart', () => {
  const cases: Array<[string, unknown, unknown]> = [
    ['a key fewer', { a: 1, b: 2 }, { a: 1 }],
    ['a key more', { a: 1 }, { a: 1, b: 2 }],
    ['same count, other key', { a: 1 }, { b: 1 }],
    ['an undefined value for a missing key', { b: 1 }, { a: undefined }],
    ['a shorter array', [1, 2, 3], [1, 2]],
    ['a longer array', [1, 2], [1, 2, 3]],
    ['object vs array', { 0: 'x' }, ['x']],
    ['-0 vs 0', { n: 0 }, { n: -0 }],
    ['a "__proto__" key the previous version lacks', { a: 1 }, JSON.parse('{"a":1,"__proto__":{}}') as unknown],
    ['"constructor" shadowing the inherited one', {}, { constructor: {} }],
  ];
  for (const [name, prev, next] of cases) {
    const previous = deepFreeze(structuredClone(prev));
    const expected = structuredClone(next);
    const result = freezeReusing(next, previous);
    assert.notEqual(result, previous, name);
    assert.deepStrictEqual(result, expected, name);
    assertDeeplyFrozen(result);
  }
});

test('freezeReusing never shares objects that are not plain objects or arrays', () => {
  class Box {
    v = 1;
  }
  const previous = deepFreeze({ box: new Box(), when: new Date(0) });
  const next = { box: new Box(), when: new Date(0) };
  const result = freezeReusing(next, previous);
  assert.equal(result, next);
  assert.notEqual(result.box, previous.box);
  assert.notEqual(result.when, previous.when);
  assert.ok(Object.isFrozen(result.box) && Object.isFrozen(result.when));
});

test('freezeReusing leaves frozen parts of the new version alone (a transform may reuse cached objects)', () => {
  const shared = deepFreeze({ x: 1 });
  const previous = deepFreeze({ a: { x: 2 }, b: 'old' });
  const next = { a: shared, b: 'new' };
  const result = freezeReusing(next, previous);
  assert.equal(result.a, shared);
  assertDeeplyFrozen(result);
});

/** Applies random edits to a copy of `base`: replace or delete a key, append to or truncate an array. */
function edit(base: Json, edits: Array<[number, number, Json]>): Json {
  const copy = structuredClone(base);
  const nodes: Array<Json[] | { [k: string]: Json }> = [];
  const collect = (v: Json): void => {
    if (!isObject(v)) return;
    nodes.push(v);
    for (const child of Object.values(v)) collect(child);
  };
  collect(copy);
  for (const [which, op, value] of edits) {
    const node = nodes[which % Math.max(1, nodes.length)];
    if (node === undefined) return value;
    if (Array.isArray(node)) {
      if (op % 3 === 0) node.push(value);
      else if (op % 3 === 1) node.length = Math.max(0, node.length - 1);
      else if (node.length > 0) node[op % node.length] = value;
    } else {
      const keys = Object.keys(node);
      if (op % 3 === 0 || keys.length === 0) node[`k${op}`] = value;
      else if (op % 3 === 1) delete node[keys[op % keys.length]!];
      else node[keys[op % keys.length]!] = value;
    }
  }
  return copy;
}

test('freezeReusing: the result equals the new version, is deeply frozen, shares every unchanged part and leaves the previous version intact', () => {
  const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>;
  fc.assert(
    fc.property(json, fc.array(fc.tuple(fc.nat(), fc.nat(), json), { maxLength: 4 }), (base, edits) => {
      const previous = deepFreeze(structuredClone(base));
      const next = edit(base, edits);
      const expected = structuredClone(next);
      const result = freezeReusing(next, previous);
      assert.deepStrictEqual(result, expected);
      assertDeeplyFrozen(result);
      assert.deepStrictEqual(previous, base);
      assertMaximallyShared(result, previous);
    }),
    { numRuns: 500 },
  );
});
