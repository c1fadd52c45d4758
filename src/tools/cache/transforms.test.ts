import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeTransforms, stripManagedFields } from './transforms.ts';
import { deepFreeze } from './deep-freeze.ts';

test('stripManagedFields drops managedFields in place, or on a copy when the object is frozen', () => {
  const fresh = { metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }] } };
  assert.equal(stripManagedFields(fresh), fresh);
  assert.deepEqual(fresh, { metadata: { name: 'a' } });
  const frozen = deepFreeze({ kind: 'Pod', metadata: { name: 'b', managedFields: [{ manager: 'x' }] } });
  const copy = stripManagedFields(frozen);
  assert.notEqual(copy, frozen);
  assert.deepEqual(copy, { kind: 'Pod', metadata: { name: 'b' } });
  const plain = { metadata: { name: 'c' } };
  assert.equal(stripManagedFields(plain), plain);
});

test('composeTransforms applies left to right', () => {
  const t = composeTransforms<number>(
    (x) => x + 1,
    (x) => x * 10,
  );
  assert.equal(t(1), 20);
});

test('deepFreeze freezes every nested object and array, and returns its argument', () => {
  const obj = { a: { b: [{ c: 1 }, [2]] }, d: 'x', e: null };
  assert.equal(deepFreeze(obj), obj);
  assert.ok(Object.isFrozen(obj) && Object.isFrozen(obj.a) && Object.isFrozen(obj.a.b) && Object.isFrozen(obj.a.b[0]) && Object.isFrozen(obj.a.b[1]));
  assert.throws(() => {
    (obj.a.b[0] as { c: number }).c = 2;
  }, TypeError);
  assert.equal(deepFreeze(5), 5);
});
