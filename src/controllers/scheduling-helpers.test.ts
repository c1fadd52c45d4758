import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, PodSpec } from '../api/core/v1.ts';
import { findMatchingUntoleratedTaint, nodeSelectorRequirementMatches, podMatchesNodeSelectorAndAffinityTerms, toleratesTaint } from './scheduling-helpers.ts';

const node: Node = { metadata: { name: 'n1', labels: { zone: 'a', cpus: '8' } } };

function withTerms(...terms: NonNullable<NonNullable<NonNullable<PodSpec['affinity']>['nodeAffinity']>['requiredDuringSchedulingIgnoredDuringExecution']>['nodeSelectorTerms']): PodSpec {
  return { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } };
}

test('toleratesTaint: Exists matches any value, Equal needs the key and value, a set effect must match', () => {
  const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  assert.equal(toleratesTaint({ key: 'k', operator: 'Exists' }, taint), true);
  assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true);
  assert.equal(toleratesTaint({ key: 'k', operator: 'Equal', value: 'v' }, taint), true);
  assert.equal(toleratesTaint({ key: 'k', value: 'w' }, taint), false);
  assert.equal(toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint), false);
  assert.equal(toleratesTaint({ key: 'other', operator: 'Exists' }, taint), false);
});

test('findMatchingUntoleratedTaint skips PreferNoSchedule and tolerated taints, returns the first other one', () => {
  const taints = [
    { key: 'soft', effect: 'PreferNoSchedule' },
    { key: 'ok', effect: 'NoSchedule' },
    { key: 'hard', value: 'x', effect: 'NoExecute' },
  ];
  assert.deepEqual(findMatchingUntoleratedTaint(taints, [{ key: 'ok', operator: 'Exists' }]), taints[2]);
  assert.equal(findMatchingUntoleratedTaint(taints, [{ operator: 'Exists' }]), undefined);
});

test('nodeSelectorRequirementMatches: In, NotIn (true when absent), Exists, DoesNotExist, Gt/Lt on integers', () => {
  assert.equal(nodeSelectorRequirementMatches('a', { key: 'z', operator: 'In', values: ['a', 'b'] }), true);
  assert.equal(nodeSelectorRequirementMatches(undefined, { key: 'z', operator: 'NotIn', values: ['a'] }), true);
  assert.equal(nodeSelectorRequirementMatches('a', { key: 'z', operator: 'NotIn', values: ['a'] }), false);
  assert.equal(nodeSelectorRequirementMatches(undefined, { key: 'z', operator: 'Exists' }), false);
  assert.equal(nodeSelectorRequirementMatches(undefined, { key: 'z', operator: 'DoesNotExist' }), true);
  assert.equal(nodeSelectorRequirementMatches('8', { key: 'z', operator: 'Gt', values: ['4'] }), true);
  assert.equal(nodeSelectorRequirementMatches('8', { key: 'z', operator: 'Lt', values: ['4'] }), false);
  assert.equal(nodeSelectorRequirementMatches('x', { key: 'z', operator: 'Gt', values: ['4'] }), false);
  assert.equal(nodeSelectorRequirementMatches('a', { key: 'z', operator: 'Near', values: ['a'] }), false);
});

test('podMatchesNodeSelectorAndAffinityTerms: every nodeSelector label, and some required term (labels and metadata.name)', () => {
  assert.equal(podMatchesNodeSelectorAndAffinityTerms(undefined, node), true);
  assert.equal(podMatchesNodeSelectorAndAffinityTerms({ containers: [], nodeSelector: { zone: 'a' } }, node), true);
  assert.equal(podMatchesNodeSelectorAndAffinityTerms({ containers: [], nodeSelector: { zone: 'b' } }, node), false);
  assert.equal(podMatchesNodeSelectorAndAffinityTerms(withTerms({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }), node), false);
  assert.equal(
    podMatchesNodeSelectorAndAffinityTerms(withTerms({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }, { matchExpressions: [{ key: 'cpus', operator: 'Gt', values: ['4'] }] }), node),
    true,
  );
});
