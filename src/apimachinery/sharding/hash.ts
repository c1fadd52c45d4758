/**
 * The 64-bit FNV-1a hash KEP-5866 shards by (k8s.io/apimachinery/pkg/sharding hash.go HashField:
 * `hash/fnv` New64a over the UTF-8 bytes of the field's value). JavaScript has no uint64, so the
 * state is kept in four 16-bit limbs: every product stays below 2^26 and the loop needs neither
 * BigInt nor floating point (bench/sharding/hash.ts measures it; BigInt is ~25× slower).
 */

/** A 64-bit hash as two unsigned 32-bit halves. */
export interface Hash64 {
  /** The upper 32 bits, as an unsigned integer. */
  hi: number;
  /** The lower 32 bits, as an unsigned integer. */
  lo: number;
}

// FNV-1a 64: offset basis 0xcbf29ce484222325, prime 0x100000001b3 (2^40 + 0x1b3).
const OFFSET_0 = 0x2325;
const OFFSET_1 = 0x8422;
const OFFSET_2 = 0x9ce4;
const OFFSET_3 = 0xcbf2;
const PRIME_LOW = 0x1b3;

/**
 * Hashes `value` (its UTF-8 bytes, as Go's `[]byte(string)`) with 64-bit FNV-1a into `out`, and
 * returns `out`. Lone surrogates are hashed as U+FFFD, which is what a Go string decoded from the
 * same JSON holds.
 */
export function fnv1a64Into(value: string, out: Hash64): Hash64 {
  let h0 = OFFSET_0;
  let h1 = OFFSET_1;
  let h2 = OFFSET_2;
  let h3 = OFFSET_3;
  const n = value.length;
  for (let i = 0; i < n; i++) {
    let c = value.charCodeAt(i);
    if (c < 0x80) {
      h0 ^= c;
      // h *= prime: h * 0x1b3 + (h << 40), carried limb by limb.
      const t0 = h0 * PRIME_LOW;
      const t1 = h1 * PRIME_LOW + (t0 >>> 16);
      const t2 = h2 * PRIME_LOW + (h0 << 8) + (t1 >>> 16);
      h3 = (h3 * PRIME_LOW + (h1 << 8) + (t2 >>> 16)) & 0xffff;
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      continue;
    }
    // Multi-byte UTF-8: encode the code point, then hash each byte.
    let bytes: number[];
    if (c < 0x800) bytes = [0xc0 | (c >> 6), 0x80 | (c & 0x3f)];
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && value.charCodeAt(i + 1) >= 0xdc00 && value.charCodeAt(i + 1) <= 0xdfff) {
      c = 0x10000 + ((c - 0xd800) << 10) + (value.charCodeAt(++i) - 0xdc00);
      bytes = [0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)];
    } else {
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      bytes = [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)];
    }
    for (const b of bytes) {
      h0 ^= b;
      const t0 = h0 * PRIME_LOW;
      const t1 = h1 * PRIME_LOW + (t0 >>> 16);
      const t2 = h2 * PRIME_LOW + (h0 << 8) + (t1 >>> 16);
      h3 = (h3 * PRIME_LOW + (h1 << 8) + (t2 >>> 16)) & 0xffff;
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
    }
  }
  out.hi = ((h3 << 16) | h2) >>> 0;
  out.lo = ((h1 << 16) | h0) >>> 0;
  return out;
}

/** 64-bit FNV-1a of `value` as two 32-bit halves (a new object; see {@link fnv1a64Into} to reuse one). */
export function fnv1a64(value: string): Hash64 {
  return fnv1a64Into(value, { hi: 0, lo: 0 });
}

/** 64-bit FNV-1a of `value` as a BigInt (convenient, not fast). */
export function fnv1a64BigInt(value: string): bigint {
  const h = fnv1a64(value);
  return (BigInt(h.hi) << 32n) | BigInt(h.lo);
}

/**
 * 64-bit FNV-1a of `value` as 16 lowercase hex digits, without `0x` (sharding.HashField's output).
 *
 * @example
 * fnv1a64Hex(''); // 'cbf29ce484222325'
 */
export function fnv1a64Hex(value: string): string {
  const h = fnv1a64(value);
  return h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0');
}
