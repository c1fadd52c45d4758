import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fnv1a64BigInt, fnv1a64Hex } from './hash.ts';
import { HASH_SPACE_END, ShardSelector, ShardSelectorParseError, evenShardSelector, parseShardSelector, shardInfoOf } from './selector.ts';

/** Reference FNV-1a 64 over UTF-8 bytes with BigInt, as Go's hash/fnv New64a. */
function reference(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

test('fnv1a64 matches the published FNV-1a 64 vectors', () => {
  assert.equal(fnv1a64Hex(''), 'cbf29ce484222325');
  assert.equal(fnv1a64Hex('a'), 'af63dc4c8601ec8c');
  assert.equal(fnv1a64Hex('foobar'), '85944171f73967e8');
});

test('fnv1a64 equals a BigInt FNV-1a over the UTF-8 bytes, for uids and non-ASCII strings', () => {
  const samples = ['0b7c9a1e-3f0c-4d3e-9a53-6f7c2b9e1d20', 'kube-system', 'é', '日本語', '😀x', 'a\u0000b'];
  for (let i = 0; i < 500; i++) samples.push(crypto.randomUUID());
  for (const s of samples) assert.equal(fnv1a64BigInt(s), reference(s), s);
});

test('parseShardSelector reads the KEP-5866 grammar and toString writes it back', () => {
  const text = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')";
  const sel = parseShardSelector(text);
  assert.equal(sel.key, 'object.metadata.uid');
  assert.deepEqual(sel.ranges, [
    { start: 0n, end: 0x8000000000000000n },
    { start: 0x8000000000000000n, end: HASH_SPACE_END },
  ]);
  assert.equal(sel.toString(), text);
  assert.deepEqual(sel.merged(), [{ start: 0n, end: HASH_SPACE_END }]);
  const paren = parseShardSelector(`(shardRange(object.metadata.namespace,"0x0000000000000010","0x0000000000000020"))`);
  assert.equal(paren.key, 'object.metadata.namespace');
});

test('parseShardSelector refuses what upstream refuses', () => {
  const bad = [
    '',
    "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
    "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
    "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')",
    "shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')",
    "shardRange(object.metadata.uid, '0x20000000000000000', '0x8000000000000000')",
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && true",
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
    "other(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
  ];
  for (const b of bad) assert.throws(() => parseShardSelector(b), ShardSelectorParseError, b);
});

test('ShardSelector.matches selects by the hash of the uid, half-open at the end', () => {
  const uids = Array.from({ length: 2000 }, () => crypto.randomUUID());
  const shards = [0, 1, 2, 3].map((i) => evenShardSelector(i, 4));
  for (const uid of uids) {
    const owners = shards.filter((s) => s.matches({ metadata: { uid } }));
    assert.equal(owners.length, 1, uid);
    const h = reference(uid);
    const i = shards.indexOf(owners[0]!);
    assert.ok(h >= shards[i]!.ranges[0]!.start && h < shards[i]!.ranges[0]!.end);
  }
  const counts = shards.map((s) => uids.filter((uid) => s.matchesValue(uid)).length);
  for (const c of counts) assert.ok(c > 350 && c < 650, `uneven: ${counts.join(',')}`);
  // Exactly at a boundary: the start is in, the end is out.
  const exact = new ShardSelector('object.metadata.uid', [{ start: reference('x'), end: reference('x') + 1n }]);
  assert.equal(exact.matchesValue('x'), true);
  assert.equal(new ShardSelector('object.metadata.uid', [{ start: 0n, end: reference('x') }]).matchesValue('x'), false);
});

test('evenShardSelector cuts the space as client-go NewShardRangeSelector', () => {
  assert.equal(evenShardSelector(1, 4).toString(), "shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')");
  assert.equal(evenShardSelector(2, 3).toString(), "shardRange(object.metadata.uid, '0xaaaaaaaaaaaaaaac', '0x10000000000000000')");
});

test('a selector with no range matches nothing and still has a wire form', () => {
  const none = ShardSelector.none();
  assert.equal(none.isNone(), true);
  assert.equal(none.matchesValue('anything'), false);
  assert.equal(parseShardSelector(none.toString()).ranges.length, 1);
});

test('shardInfoOf reads ListMeta.shardInfo', () => {
  assert.deepEqual(shardInfoOf({ metadata: { resourceVersion: '1', shardInfo: { selector: 's' } } }), { selector: 's' });
  assert.equal(shardInfoOf({ metadata: { resourceVersion: '1' } }), undefined);
});
