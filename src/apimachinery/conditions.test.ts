import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../api/meta/v1.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { findStatusCondition, isStatusConditionFalse, isStatusConditionTrue, removeStatusCondition, setStatusCondition } from './conditions.ts';

test('setStatusCondition follows meta.SetStatusCondition: lastTransitionTime changes only with the status; reason, message, observedGeneration always', async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0, 0, 500));
  const conditions: Condition[] = [];
  assert.equal(setStatusCondition(undefined, { type: 'Ready', status: 'True', reason: 'Up', message: '' }, clock), false);
  assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Starting', message: 'waiting', observedGeneration: 1 }, clock), true);
  assert.deepEqual(conditions, [{ type: 'Ready', status: 'False', reason: 'Starting', message: 'waiting', observedGeneration: 1, lastTransitionTime: '2026-01-01T10:00:00Z' }]);
  await clock.step(60_000);
  // Same status, new reason and generation: the transition time stays.
  assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pulling', message: 'waiting', observedGeneration: 2 }, clock), true);
  assert.equal(conditions[0]!.lastTransitionTime, '2026-01-01T10:00:00Z');
  assert.equal(conditions[0]!.reason, 'Pulling');
  assert.equal(conditions[0]!.observedGeneration, 2);
  // Nothing differs: no change.
  assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'Pulling', message: 'waiting', observedGeneration: 2 }, clock), false);
  // The status changes: now.
  assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Up', message: '', observedGeneration: 2 }, clock), true);
  assert.equal(conditions[0]!.lastTransitionTime, '2026-01-01T10:01:00Z');
  // A given transition time is kept when the status changes.
  assert.equal(setStatusCondition(conditions, { type: 'Ready', status: 'Unknown', reason: 'Lost', message: '', observedGeneration: 2, lastTransitionTime: '2025-12-31T00:00:00Z' }, clock), true);
  assert.equal(conditions[0]!.lastTransitionTime, '2025-12-31T00:00:00Z');
  setStatusCondition(conditions, { type: 'Degraded', status: 'False', reason: 'AsExpected', message: '' }, clock);
  assert.equal(findStatusCondition(conditions, 'Degraded')?.reason, 'AsExpected');
  assert.equal(isStatusConditionFalse(conditions, 'Degraded'), true);
  assert.equal(isStatusConditionTrue(conditions, 'Degraded'), false);
  assert.equal(isStatusConditionTrue(conditions, 'Missing'), false);
  assert.equal(isStatusConditionFalse(conditions, 'Missing'), false);
  assert.equal(removeStatusCondition(conditions, 'Ready'), true);
  assert.equal(removeStatusCondition(conditions, 'Ready'), false);
  assert.deepEqual(conditions.map((c) => c.type), ['Degraded']);
});
