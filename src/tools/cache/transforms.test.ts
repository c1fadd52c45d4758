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

