import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultGarbageCollectionPolicy, deletionFinalizersForGarbageCollection, type DeleteOptions, type GarbageCollectionPolicy } from './garbage-collection-policy.ts';

test('the default policy follows the resource strategy and the version the request came through', () => {
  assert.equal(defaultGarbageCollectionPolicy('jobs.batch', 'v1'), 'OrphanDependents');
  assert.equal(defaultGarbageCollectionPolicy('cronjobs.batch', 'v1'), 'DeleteDependents');
  assert.equal(defaultGarbageCollectionPolicy('cronjobs.batch', 'v1beta1'), 'OrphanDependents');
  assert.equal(defaultGarbageCollectionPolicy('replicationcontrollers', 'v1'), 'OrphanDependents');
  assert.equal(defaultGarbageCollectionPolicy('events', 'v1'), 'Unsupported');
  assert.equal(defaultGarbageCollectionPolicy('events.events.k8s.io', 'v1'), 'Unsupported');
  assert.equal(defaultGarbageCollectionPolicy('deployments.apps', 'v1'), 'DeleteDependents');
  assert.equal(defaultGarbageCollectionPolicy('widgets.example.com', 'v1'), 'DeleteDependents');
});

test('deletionFinalizersForGarbageCollection: options first, then the finalizers the object has, then the default policy', () => {
  const cases: [GarbageCollectionPolicy, string[], DeleteOptions, string[] | undefined][] = [
    ['DeleteDependents', [], {}, undefined],
    ['DeleteDependents', [], { propagationPolicy: 'Background' }, undefined],
    ['DeleteDependents', [], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    ['DeleteDependents', [], { propagationPolicy: 'Orphan' }, ['orphan']],
    ['DeleteDependents', ['a/b'], { propagationPolicy: 'Foreground' }, ['a/b', 'foregroundDeletion']],
    // A later DELETE switches one for the other, or drops them.
    ['DeleteDependents', ['orphan'], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    ['DeleteDependents', ['a/b', 'foregroundDeletion'], { propagationPolicy: 'Background' }, ['a/b']],
    // Without options, what the object carries stays.
    ['DeleteDependents', ['foregroundDeletion'], {}, undefined],
    ['OrphanDependents', ['foregroundDeletion'], {}, undefined],
    // The deprecated boolean: true orphans; false only means "not in the foreground".
    ['DeleteDependents', [], { orphanDependents: true }, ['orphan']],
    ['DeleteDependents', ['foregroundDeletion'], { orphanDependents: false }, []],
    // A strategy that orphans by default.
    ['OrphanDependents', [], {}, ['orphan']],
    ['OrphanDependents', [], { propagationPolicy: 'Background' }, undefined],
    // Unsupported: never any, even when asked.
    ['Unsupported', [], { propagationPolicy: 'Foreground' }, undefined],
    ['Unsupported', ['orphan'], {}, []],
  ];
  for (const [policy, finalizers, options, want] of cases) {
    assert.deepEqual(deletionFinalizersForGarbageCollection(policy, finalizers, options), want, `${policy} ${JSON.stringify(finalizers)} ${JSON.stringify(options)}`);
  }
});
