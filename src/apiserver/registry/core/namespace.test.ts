import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namespaceFinalized, prepareNamespaceForCreate, prepareNamespaceForUpdate, validateNamespaceCreate, validateNamespaceUpdate } from './namespace.ts';

test('create appends the kubernetes finalizer after any given ones and starts Active', () => {
  const ns: Record<string, unknown> = { metadata: { name: 'a' }, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } };
  prepareNamespaceForCreate(ns);
  assert.deepEqual(ns.spec, { finalizers: ['example.com/x', 'kubernetes'] });
  assert.deepEqual(ns.status, { phase: 'Active' });
});

test('the main resource keeps spec.finalizers and status; finalize keeps status only', () => {
  const old = { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };
  const main: Record<string, unknown> = { spec: { finalizers: [] }, status: { phase: 'Terminating' } };
  prepareNamespaceForUpdate(undefined, old, main);
  assert.deepEqual(main, old);
  const finalize: Record<string, unknown> = { spec: { finalizers: [] }, status: { phase: 'Terminating' } };
  prepareNamespaceForUpdate('finalize', old, finalize);
  assert.deepEqual(finalize, { spec: {}, status: { phase: 'Active' } }, 'an empty list is not kept');
  assert.equal(namespaceFinalized(finalize), true);
  assert.equal(namespaceFinalized(old), false);
});

test('finalizer names: standard names bare, others qualified (IsQualifiedName messages)', () => {
  const causes = (finalizers: string[]): string[] => validateNamespaceCreate({ spec: { finalizers } }).map((c) => `${c.field}: ${c.message}`);
  assert.deepEqual(causes(['kubernetes', 'orphan', 'foregroundDeletion', 'example.com/x']), []);
  assert.deepEqual(causes(['custom']), ['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']);
  assert.deepEqual(causes(['/x']), ['spec.finalizers: Invalid value: "/x": prefix part must be non-empty']);
  assert.deepEqual(causes(['Example.com/x']), [
    "spec.finalizers: Invalid value: \"Example.com/x\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.equal(validateNamespaceUpdate('finalize', { spec: { finalizers: ['a/b/c'] } })[0]?.field, 'spec.finalizers[0]');
});

test('/status: the phase must say what the deletionTimestamp says', () => {
  assert.deepEqual(validateNamespaceUpdate('status', { metadata: {}, status: { phase: 'Active' } }), []);
  assert.deepEqual(validateNamespaceUpdate('status', { metadata: { deletionTimestamp: 't' }, status: { phase: 'Terminating' } }), []);
  assert.equal(validateNamespaceUpdate('status', { metadata: {}, status: {} })[0]?.message, "Invalid value: \"\": may only be 'Active' if `deletionTimestamp` is empty");
  assert.deepEqual(validateNamespaceUpdate(undefined, { metadata: {}, status: { phase: 'Nonsense' } }), [], 'the main resource never changes the phase');
});
