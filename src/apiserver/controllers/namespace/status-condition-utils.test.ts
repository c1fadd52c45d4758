import { test } from 'node:test';
import assert from 'node:assert/strict';
import { problemsOf, updateConditions } from './status-condition-utils.ts';

test('what is left in a namespace is reported per resource and per finalizer, sorted, in upstream words', () => {
  const problems = problemsOf({
    remainingByResource: new Map([
      ['widgets.example.com', 2],
      ['configmaps.', 1],
      ['secrets.', 0],
    ]),
    remainingByFinalizer: new Map([
      ['z.io/last', 1],
      ['a.io/first', 2],
    ]),
    deleteErrors: ['second failure', 'first failure'],
  });
  assert.deepEqual(problems, [
    { type: 'NamespaceDeletionContentFailure', reason: 'ContentDeletionFailed', message: 'Failed to delete all resource types, 2 remaining: first failure, second failure' },
    { type: 'NamespaceContentRemaining', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances' },
    { type: 'NamespaceFinalizersRemaining', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: a.io/first in 2 resource instances, z.io/last in 1 resource instances' },
  ]);
});

test('every condition type is written once; a later pass changes only what changed, and the time only when the status flips', () => {
  const first = updateConditions([], [{ type: 'NamespaceContentRemaining', reason: 'SomeResourcesRemain', message: 'x' }], 't1');
  assert.deepEqual(
    first?.map((c) => [c.type, c.status, c.reason, c.lastTransitionTime]),
    [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 't1'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 't1'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 't1'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 't1'],
      ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 't1'],
    ],
  );
  assert.equal(updateConditions(first!, [{ type: 'NamespaceContentRemaining', reason: 'SomeResourcesRemain', message: 'x' }], 't2'), undefined, 'nothing changed');
  const reworded = updateConditions(first!, [{ type: 'NamespaceContentRemaining', reason: 'SomeResourcesRemain', message: 'y' }], 't2');
  assert.equal(reworded?.find((c) => c.type === 'NamespaceContentRemaining')?.lastTransitionTime, 't1');
  const cleared = updateConditions(first!, [], 't3');
  const remaining = cleared?.find((c) => c.type === 'NamespaceContentRemaining');
  assert.deepEqual([remaining?.status, remaining?.reason, remaining?.lastTransitionTime], ['False', 'ContentRemoved', 't3']);
});
