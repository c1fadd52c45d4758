import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorString } from './field-errors.ts';
import { nameIsDnsSubdomain } from './name-validation.ts';
import { validateKubeFinalizerNames, validateObjectMetaAccessor, validateObjectMetaAccessorUpdate } from './object-meta-validation.ts';

const brief = (errs: ReturnType<typeof validateObjectMetaAccessor>): string[] => errs.map((e) => errorString(e).replace(/ \(e\.g\. .*$/, '').replace(/: (name part|prefix part|a valid label).*$/, ': $1 …'));

test('create-time metadata: names, namespace, generation, labels, annotations, owner references and finalizers', () => {
  const cases: Array<[string, Record<string, unknown>, boolean, string[]]> = [
    ['a valid object', { name: 'a', namespace: 'ns', labels: { 'example.com/a': 'b' }, annotations: { 'UPPER/x': 'kept: keys are checked lower-cased' }, finalizers: ['example.com/f'] }, true, []],
    ['no name', { namespace: 'ns' }, true, ['metadata.name: Required value: name or generateName is required']],
    ['namespace on a cluster-scoped kind', { name: 'a', namespace: 'ns' }, false, ['metadata.namespace: Forbidden: not allowed on this type']],
    ['negative generation', { name: 'a', generation: -1 }, false, ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']],
    ['bad label key and value', { name: 'a', labels: { 'bad key!': 'bad value!' } }, false, ['metadata.labels: Invalid value: "bad key!": name part …', 'metadata.labels: Invalid value: "bad value!": a valid label …']],
    ['annotations past 256 KiB', { name: 'a', annotations: { big: 'x'.repeat(262142) } }, false, ['metadata.annotations: Too long: may not be more than 262144 bytes']],
    ['incomplete owner references', { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }, { apiVersion: 'a/b/c', kind: 'K', name: 'y', uid: 'u' }] }, false, [
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
    ]],
    ['an Event as owner', { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }, false, [
      'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    ]],
    ['two controllers', { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'x', uid: '1', controller: true }, { apiVersion: 'v1', kind: 'K', name: 'y', uid: '2', controller: true }] }, false, [
      'metadata.ownerReferences: Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", Kind:"K", Name:"x", UID:"1", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{APIVersion:"v1", Kind:"K", Name:"y", UID:"2", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(nil)}}: Only one reference can have Controller set to true. Found "true" in references for x and y',
    ]],
    ['orphan and foregroundDeletion', { name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, false, ['metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set']],
  ];
  for (const [name, meta, namespaced, expected] of cases) assert.deepEqual(brief(validateObjectMetaAccessor(meta, namespaced, nameIsDnsSubdomain)), expected, name);
});

test('built-in kinds want non-standard finalizers domain-qualified', () => {
  assert.deepEqual(validateKubeFinalizerNames(['kubernetes', 'orphan', 'foregroundDeletion', 'example.com/x', 'mine'], 'metadata.finalizers').map(errorString), [
    'metadata.finalizers[4]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});

test('update-time metadata: immutable identity, no new finalizers while deleting', () => {
  const old = { name: 'a', namespace: 'ns', uid: 'u1', finalizers: ['example.com/a'], deletionTimestamp: '2024-01-01T00:00:00Z' };
  assert.deepEqual(validateObjectMetaAccessorUpdate({ ...old, uid: 'u2', finalizers: ['example.com/c', 'example.com/a', 'example.com/b'] }, old).map(errorString), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/c"}',
    'metadata.uid: Invalid value: "u2": field is immutable',
  ]);
  assert.deepEqual(validateObjectMetaAccessorUpdate({ ...old, finalizers: [] }, old), []);
});
