import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from '../../api/core/v1.ts';
import { duplicatedIndexPodsForRemoval, firstPendingIndexes, getNewIndexFailureCounts, matchSuccessPolicy, OrderedIntervals, podGenerateNameWithIndex } from './indexed-job-utils.ts';

const pod = (name: string, index?: string, annotations: Record<string, string> = {}): Pod => ({
  metadata: { name, annotations: { ...(index === undefined ? {} : { 'batch.kubernetes.io/job-completion-index': index }), ...annotations } },
  spec: { containers: [] },
});

test('OrderedIntervals prints runs of three or more as a range and two consecutive indexes with a comma, as completedIndexes does', () => {
  const cases: Array<[number[], string]> = [
    [[], ''],
    [[0], '0'],
    [[3, 4], '3,4'],
    [[1, 3, 4, 5, 7], '1,3-5,7'],
    [[0, 1, 2, 5, 6, 9], '0-2,5,6,9'],
  ];
  for (const [indexes, text] of cases) assert.equal(new OrderedIntervals().withOrderedIndexes(indexes).toString(), text, `${indexes.join(' ')}`);
});

test('OrderedIntervals.parse skips corrupt parts, stops at completions, clips a range reaching past it and merges adjacent runs', () => {
  assert.deepEqual(OrderedIntervals.parse('1,3-5,7', 10).intervals, [{ first: 1, last: 1 }, { first: 3, last: 5 }, { first: 7, last: 7 }]);
  assert.deepEqual(OrderedIntervals.parse('0,x,2-a,3-9', 6).intervals, [{ first: 0, last: 0 }, { first: 3, last: 5 }]);
  assert.deepEqual(OrderedIntervals.parse('1,2,3,8', 5).intervals, [{ first: 1, last: 3 }]);
  const merged = OrderedIntervals.parse('0,4-5', 10).merge(OrderedIntervals.parse('1-2,6', 10));
  assert.equal(merged.toString(), '0-2,4-6');
  assert.equal(merged.total(), 6);
  assert.deepEqual([0, 3, 5, 7].map((i) => merged.has(i)), [true, false, true, false]);
});

test('firstPendingIndexes picks the lowest indexes neither running nor done', () => {
  const done = OrderedIntervals.parse('0,3', 10);
  assert.deepEqual(firstPendingIndexes([pod('a', '1'), pod('b', 'x')], done, 3, 6), [2, 4, 5]);
  assert.deepEqual(firstPendingIndexes([], done, 10, 5), [1, 2, 4]);
  assert.deepEqual(firstPendingIndexes([], done, 0, 5), []);
});

test('duplicatedIndexPodsForRemoval keeps one pod per index and removes pods without an index or past completions', () => {
  const order = (a: Pod, b: Pod): number => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
  const { remove, keep } = duplicatedIndexPodsForRemoval([pod('c', '1'), pod('a', '1'), pod('none'), pod('far', '5'), pod('b', '0')], 3, order);
  assert.deepEqual(remove.map((p) => p.metadata?.name), ['none', 'far', 'a']);
  assert.deepEqual(keep.map((p) => p.metadata?.name), ['b', 'c']);
});

test('a replacement continues its index failure counts: a counted failure adds to failure-count, an ignored one to ignored-failure-count', () => {
  const failed = pod('f', '2', { 'batch.kubernetes.io/job-index-failure-count': '1', 'batch.kubernetes.io/job-index-ignored-failure-count': '2' });
  assert.deepEqual(getNewIndexFailureCounts(undefined, true), { failures: 0, ignored: 0 });
  assert.deepEqual(getNewIndexFailureCounts(failed, true), { failures: 2, ignored: 2 });
  assert.deepEqual(getNewIndexFailureCounts(failed, false), { failures: 1, ignored: 3 });
  assert.deepEqual(getNewIndexFailureCounts(pod('bad', '2', { 'batch.kubernetes.io/job-index-failure-count': '-4' }), true), { failures: 1, ignored: 0 });
});

test('pods are named <job>-<index>-, the job name cut so the prefix fits 58 characters', () => {
  assert.equal(podGenerateNameWithIndex('pi', 3), 'pi-3-');
  const long = 'j'.repeat(70);
  assert.equal(podGenerateNameWithIndex(long, 12), `${'j'.repeat(54)}-12-`);
});

test('matchSuccessPolicy: the first rule met, by indexes, by a count within indexes, or by a count alone', () => {
  const done = OrderedIntervals.parse('1,3', 10);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-1' }, { succeededIndexes: '1,3' }] }, 10, done), 'Matched rules at index 1');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '1-4', succeededCount: 2 }] }, 10, done), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '1-4', succeededCount: 3 }] }, 10, done), undefined);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 2 }] }, 10, done), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 1 }] }, 10, new OrderedIntervals()), undefined, 'nothing succeeded yet');
  assert.equal(matchSuccessPolicy(undefined, 10, done), undefined);
});
