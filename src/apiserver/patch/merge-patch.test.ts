import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyMergePatch } from './merge-patch.ts';

// RFC 7386 appendix A, every example in order.
const rfcCases: Array<[unknown, unknown, unknown]> = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

test('applyMergePatch: RFC 7386 appendix A examples', () => {
  rfcCases.forEach(([doc, patch, want], i) => assert.deepEqual(applyMergePatch(doc, patch), want, `example ${i + 1}`));
});

test('applyMergePatch: a Deployment patch merges maps, deletes with null, replaces lists', () => {
  const live = {
    metadata: { name: 'web', labels: { app: 'web', tier: 'front' } },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } } },
  };
  const patched = applyMergePatch(live, {
    metadata: { labels: { tier: null, team: 'x' } },
    spec: { replicas: 3, template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } },
  });
  assert.deepEqual(patched, {
    metadata: { name: 'web', labels: { app: 'web', team: 'x' } },
    spec: { replicas: 3, template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } },
  });
});

test('applyMergePatch: the result shares no structure with the inputs', () => {
  const doc = { a: { b: [1] } };
  const patch = { c: { d: [2] } };
  const out = applyMergePatch(doc, patch) as { a: { b: number[] }; c: { d: number[] } };
  out.a.b.push(9);
  out.c.d.push(9);
  assert.deepEqual(doc, { a: { b: [1] } });
  assert.deepEqual(patch, { c: { d: [2] } });
});

// A merge patch generated from two documents, as `kubectl patch --type merge` would send (createMergePatch).
function createMergePatch(from: unknown, to: unknown): unknown {
  if (typeof from !== 'object' || from === null || Array.isArray(from) || typeof to !== 'object' || to === null || Array.isArray(to)) return to;
  const patch: Record<string, unknown> = {};
  const a = from as Record<string, unknown>;
  const b = to as Record<string, unknown>;
  for (const k of Object.keys(a)) if (!Object.hasOwn(b, k)) patch[k] = null;
  for (const [k, v] of Object.entries(b)) {
    if (!Object.hasOwn(a, k)) patch[k] = v;
    else if (JSON.stringify(a[k]) !== JSON.stringify(v)) patch[k] = createMergePatch(a[k], v);
  }
  return patch;
}

// Documents without nulls (a merge patch cannot express setting a member to null).
const doc = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.string({ maxLength: 3 }), fc.array(fc.integer(), { maxLength: 3 }), tie('object')),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 3, noNullPrototype: true }),
})).value, { maxKeys: 4, noNullPrototype: true });

test('property: applying createMergePatch(a, b) to a gives b, and never mutates its inputs', () => {
  fc.assert(fc.property(doc, doc, (a, b) => {
    const patch = createMergePatch(a, b);
    const aBefore = structuredClone(a);
    const patchBefore = structuredClone(patch);
    assert.deepEqual(applyMergePatch(a, patch), b);
    assert.deepEqual(a, aBefore);
    assert.deepEqual(patch, patchBefore);
  }));
});
