import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fnv1a64BigInt } from '../apimachinery/sharding/hash.ts';
import { HASH_SPACE_END, ShardKeyField, ShardSelector } from '../apimachinery/sharding/selector.ts';
import { HashRing } from './hash-ring.ts';
import { coarsenRanges, formatRanges, intersectRanges, parseRanges, rangesFraction, subtractRanges, unionRanges } from './ranges.ts';

test('the ranges of a ring partition the hash space and agree with ownerOf', () => {
  const ring = new HashRing(['r-0', 'r-1', 'r-2']);
  const all = ring.members.flatMap((m) => ring.rangesOf(m));
  assert.deepEqual(unionRanges([], all), [{ start: 0n, end: HASH_SPACE_END }]);
  for (let i = 0; i < ring.members.length; i++) {
    for (let j = i + 1; j < ring.members.length; j++) assert.deepEqual(intersectRanges(ring.rangesOf(ring.members[i]!), ring.rangesOf(ring.members[j]!)), []);
  }
  const selectors = new Map(ring.members.map((m) => [m, new ShardSelector(ShardKeyField.UID, ring.rangesOf(m))]));
  for (let i = 0; i < 3000; i++) {
    const uid = crypto.randomUUID();
    const owner = ring.ownerOf(fnv1a64BigInt(uid))!;
    for (const [m, sel] of selectors) assert.equal(sel.matchesValue(uid), m === owner, uid);
  }
  for (const m of ring.members) {
    const f = rangesFraction(ring.rangesOf(m));
    assert.ok(f > 0.25 && f < 0.42, `${m}: ${f}`);
  }
});

test('a member joining takes about 1/N of the space, only from the others, and nothing else moves', () => {
  const before = new HashRing(['a', 'b', 'c', 'd']);
  const after = new HashRing(['a', 'b', 'c', 'd', 'e']);
  let moved = 0;
  for (const m of before.members) {
    const lost = subtractRanges(before.rangesOf(m), after.rangesOf(m));
    // Everything a member loses goes to the newcomer.
    assert.deepEqual(subtractRanges(lost, after.rangesOf('e')), []);
    moved += rangesFraction(lost);
    assert.deepEqual(subtractRanges(after.rangesOf(m), before.rangesOf(m)), []);
  }
  assert.ok(Math.abs(moved - rangesFraction(after.rangesOf('e'))) < 1e-5);
  assert.ok(moved > 0.12 && moved < 0.3, String(moved));
});

test('range sets round-trip through their annotation text', () => {
  const ranges = new HashRing(['x', 'y']).rangesOf('x');
  assert.deepEqual(parseRanges(formatRanges(ranges)), ranges);
  assert.deepEqual(parseRanges(''), []);
  assert.deepEqual(parseRanges('zz-1,5-3'), []);
});

test('coarsenRanges fills the smallest gaps until at most max ranges remain, covering everything it was given', () => {
  const ranges = new HashRing(['a', 'b', 'c', 'd', 'e']).rangesOf('c');
  assert.ok(ranges.length > 64);
  const coarse = coarsenRanges(ranges, 64);
  assert.equal(coarse.length, 64);
  assert.deepEqual(subtractRanges(ranges, coarse), []);
  assert.ok(rangesFraction(coarse) - rangesFraction(ranges) < 0.03);
  assert.deepEqual(coarsenRanges([{ start: 0n, end: 10n }, { start: 20n, end: 30n }, { start: 31n, end: 40n }], 2), [{ start: 0n, end: 10n }, { start: 20n, end: 40n }]);
});
