import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../util/clock/clock.ts';
import { Prng } from './prng.ts';
import { Scheduler } from './scheduler.ts';

function drain(s: Scheduler): void {
  while (s.runOne());
}

test('Prng gives the same stream for the same seed and another for another seed', () => {
  const a = new Prng(42);
  const b = new Prng(42);
  const c = new Prng(43);
  const xs = Array.from({ length: 5 }, () => a.nextUint32());
  assert.deepEqual(Array.from({ length: 5 }, () => b.nextUint32()), xs);
  assert.notDeepEqual(Array.from({ length: 5 }, () => c.nextUint32()), xs);
  for (let i = 0; i < 1000; i++) {
    const v = a.next();
    assert.ok(v >= 0 && v < 1);
  }
});

test('without perturbations the scheduler runs lanes in posting order, and items of a lane in their order', () => {
  const s = new Scheduler(new FakeClock(), 1, undefined, 0);
  const ran: string[] = [];
  s.post('a', 'a1', () => ran.push('a1'));
  s.post('b', 'b1', () => ran.push('b1'));
  s.post('a', 'a2', () => ran.push('a2'));
  s.post('b', 'b2', () => ran.push('b2'), 5);
  drain(s);
  assert.deepEqual(ran, ['a1', 'b1', 'a2']);
  assert.equal(s.nextReadyAt(), s.clock.now() + 5);
  assert.equal(s.pendingCount, 1);
});

test('a delayed head holds its whole lane; reordering never reorders within a lane', () => {
  const s = new Scheduler(new FakeClock(), 7, undefined, 1);
  const ran: string[] = [];
  for (let i = 0; i < 20; i++) s.post(`lane${i % 3}`, `${i}`, () => ran.push(`lane${i % 3}:${i}`));
  drain(s);
  assert.equal(ran.length, 20);
  for (const lane of ['lane0', 'lane1', 'lane2']) {
    const order = ran.filter((r) => r.startsWith(`${lane}:`)).map((r) => Number(r.split(':')[1]));
    assert.deepEqual(order, [...order].sort((x, y) => x - y));
  }
  assert.ok(s.applied.every((p) => p.kind === 'reorder') && s.applied.length > 0);
});

test('decide numbers candidates, applies only kept ones, and draws the same numbers either way', () => {
  const all = new Scheduler(new FakeClock(), 5, undefined, 0);
  const kept = new Scheduler(new FakeClock(), 5, new Set([1]), 0);
  const a = Array.from({ length: 10 }, () => all.decide('x', 0.5, () => ''));
  const k = Array.from({ length: 10 }, () => kept.decide('x', 0.5, () => ''));
  assert.equal(all.candidates, kept.candidates);
  assert.deepEqual(kept.applied.map((p) => p.ordinal), [1]);
  // The kept candidate is sized by the same draw as in the run that applied every candidate.
  const second = a.filter((u) => u !== undefined)[1];
  assert.deepEqual(k.filter((u) => u !== undefined), [second]);
});

test('dropLanes discards everything pending on the lanes of a prefix', () => {
  const s = new Scheduler(new FakeClock(), 1, undefined, 0);
  const ran: string[] = [];
  s.post('p/informer/pods', 'x', () => ran.push('x'));
  s.post('p/dispatch/1', 'y', () => ran.push('y'));
  s.post('q/informer/pods', 'z', () => ran.push('z'));
  assert.equal(s.dropLanes('p/'), 2);
  drain(s);
  assert.deepEqual(ran, ['z']);
});
