/**
 * Speed of the KEP-5866 hash and of shard matching: 64-bit FNV-1a over uids with the 16-bit-limb
 * implementation (src/apimachinery/sharding/hash.ts) against a straightforward BigInt one, and
 * ShardSelector.matchesValue with 1 range and with a ring member's ~80 ranges.
 *
 * node bench/sharding/hash.ts [--n 1000000]
 */
import { parseArgs } from 'node:util';
import { fnv1a64Into, type Hash64 } from '../../src/apimachinery/sharding/hash.ts';
import { evenShardSelector, ShardKeyField, ShardSelector } from '../../src/apimachinery/sharding/selector.ts';
import { HashRing } from '../../src/sharding/hash-ring.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000000' } } });
const n = Number(values.n);
const uids = Array.from({ length: 10_000 }, () => crypto.randomUUID());
const encoder = new TextEncoder();

function bigintFnv(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of encoder.encode(s)) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

function time(name: string, fn: (s: string) => unknown): void {
  let sink = 0;
  for (let i = 0; i < 20_000; i++) if (fn(uids[i % uids.length]!)) sink++;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) if (fn(uids[i % uids.length]!)) sink++;
  const ns = ((performance.now() - t0) * 1e6) / n;
  process.stdout.write(`${name.padEnd(44)} ${ns.toFixed(1).padStart(7)} ns/op  (${sink > -1 ? '' : ''}${n} ops)\n`);
}

const out: Hash64 = { hi: 0, lo: 0 };
time('fnv1a64 (16-bit limbs), uid', (s) => fnv1a64Into(s, out).hi & 1);
time('fnv1a64 (BigInt reference), uid', (s) => bigintFnv(s) & 1n);
const half = evenShardSelector(0, 2);
time('ShardSelector.matchesValue, 1 range', (s) => half.matchesValue(s));
const ring = new HashRing(['r-0', 'r-1', 'r-2', 'r-3', 'r-4']);
const member = new ShardSelector(ShardKeyField.UID, ring.rangesOf('r-2'));
process.stdout.write(`(ring member r-2 of 5 holds ${member.merged().length} ranges; its selector is ${member.toString().length} characters)\n`);
time(`ShardSelector.matchesValue, ${member.merged().length} ranges`, (s) => member.matchesValue(s));
