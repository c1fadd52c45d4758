import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/clock.ts';
import { ControllerExpectations, expectationsTimeoutMs, UIDTrackingControllerExpectations } from './expectations.ts';

test('expectations are satisfied when absent, when met, and once older than the 5-minute timeout', async () => {
  const clock = new FakeClock();
  const e = new ControllerExpectations({ clock });
  assert.equal(e.satisfiedExpectations('ns/a'), true, 'no record: a new controller may sync');
  e.expectCreations('ns/a', 2);
  assert.equal(e.satisfiedExpectations('ns/a'), false);
  e.creationObserved('ns/a');
  assert.equal(e.satisfiedExpectations('ns/a'), false);
  e.creationObserved('ns/a');
  assert.equal(e.satisfiedExpectations('ns/a'), true);
  e.creationObserved('ns/a');
  assert.deepEqual(e.getExpectations('ns/a'), { add: -1, del: 0, timestamp: clock.now() });

  e.expectDeletions('ns/b', 1);
  await clock.step(expectationsTimeoutMs);
  assert.equal(e.satisfiedExpectations('ns/b'), false, 'exactly at the timeout: still pending');
  await clock.step(1);
  assert.equal(e.satisfiedExpectations('ns/b'), true, 'expired');
  assert.equal(expectationsTimeoutMs, 300_000);
});

test('raise and lower only touch existing records; delete forgets', () => {
  const e = new ControllerExpectations({ clock: new FakeClock() });
  e.raiseExpectations('x', 1, 1);
  e.lowerExpectations('x', 1, 1);
  assert.equal(e.getExpectations('x'), undefined);
  e.setExpectations('x', 1, 0);
  e.raiseExpectations('x', 2, 1);
  e.lowerExpectations('x', 1, 0);
  assert.equal(e.getExpectations('x')?.add, 2);
  assert.equal(e.getExpectations('x')?.del, 1);
  e.deleteExpectations('x');
  assert.equal(e.satisfiedExpectations('x'), true);
});

test('UID-tracking expectations count each expected deletion once', () => {
  const e = new UIDTrackingControllerExpectations({ clock: new FakeClock() });
  e.expectDeletionsOf('ns/ps', ['ns/p1', 'ns/p2']);
  e.deletionObservedOf('ns/ps', 'ns/p1');
  e.deletionObservedOf('ns/ps', 'ns/p1');
  e.deletionObservedOf('ns/ps', 'ns/other');
  assert.equal(e.satisfiedExpectations('ns/ps'), false);
  assert.deepEqual([...(e.getUIDs('ns/ps') ?? [])], ['ns/p2']);
  e.deletionObservedOf('ns/ps', 'ns/p2');
  assert.equal(e.satisfiedExpectations('ns/ps'), true);
  e.deleteExpectations('ns/ps');
  assert.equal(e.getUIDs('ns/ps'), undefined);
});
