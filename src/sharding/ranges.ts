/**
 * Set algebra on ranges of the 64-bit hash space (kubeloom; no upstream counterpart): a shard ring
 * computes what a replica gains and loses as differences of range sets, and stores the ranges it
 * holds in its Lease in the compact text form below.
 */
import { HASH_SPACE_END, normalizeRanges, type ShardRange } from '../apimachinery/sharding/selector.ts';

/** The union of two range sets, merged and ascending. */
export function unionRanges(a: readonly ShardRange[], b: readonly ShardRange[]): ShardRange[] {
  return normalizeRanges([...a, ...b]);
}

/** The ranges of `a` not in `b`. */
export function subtractRanges(a: readonly ShardRange[], b: readonly ShardRange[]): ShardRange[] {
  const cut = normalizeRanges(b);
  const out: ShardRange[] = [];
  for (const r of normalizeRanges(a)) {
    let start = r.start;
    for (const c of cut) {
      if (c.end <= start) continue;
      if (c.start >= r.end) break;
      if (c.start > start) out.push({ start, end: c.start });
      start = c.end > start ? c.end : start;
      if (start >= r.end) break;
    }
    if (start < r.end) out.push({ start, end: r.end });
  }
  return out;
}

/** The ranges in both `a` and `b`. */
export function intersectRanges(a: readonly ShardRange[], b: readonly ShardRange[]): ShardRange[] {
  return subtractRanges(a, subtractRanges(a, b));
}

/** How much of the hash space the ranges cover, in [0, 1]. */
export function rangesFraction(ranges: readonly ShardRange[]): number {
  let total = 0n;
  for (const r of normalizeRanges(ranges)) total += r.end - r.start;
  return Number((total * 1_000_000n) / HASH_SPACE_END) / 1_000_000;
}

/** Whether two range sets cover the same hashes. */
export function sameRanges(a: readonly ShardRange[], b: readonly ShardRange[]): boolean {
  const x = normalizeRanges(a);
  const y = normalizeRanges(b);
  return x.length === y.length && x.every((r, i) => r.start === y[i]!.start && r.end === y[i]!.end);
}

/** Compact text of a range set: `start-end` in hex (no 0x), comma-separated; '' for none. */
export function formatRanges(ranges: readonly ShardRange[]): string {
  return normalizeRanges(ranges)
    .map((r) => `${r.start.toString(16)}-${r.end.toString(16)}`)
    .join(',');
}

/** Parses {@link formatRanges}' text; malformed parts are skipped (a foreign annotation must not stop a ring). */
export function parseRanges(text: string | undefined): ShardRange[] {
  if (text === undefined || text === '') return [];
  const out: ShardRange[] = [];
  for (const part of text.split(',')) {
    const m = /^([0-9a-f]{1,17})-([0-9a-f]{1,17})$/.exec(part.trim());
    if (m === null) continue;
    const start = BigInt(`0x${m[1]}`);
    const end = BigInt(`0x${m[2]}`);
    if (start < end && end <= HASH_SPACE_END) out.push({ start, end });
  }
  return normalizeRanges(out);
}

/**
 * At most `max` ranges covering `ranges`: the smallest gaps are filled first. A shard selector with
 * fewer terms keeps list and watch URLs short (each term is about 100 bytes URL-encoded, and Node's
 * HTTP server refuses request heads over 16 KiB); the cache then also holds the objects of the
 * filled gaps, which the controller does not work on.
 */
export function coarsenRanges(ranges: readonly ShardRange[], max: number): ShardRange[] {
  const out = normalizeRanges(ranges);
  if (max < 1 || out.length <= max) return out;
  const gaps = out.slice(1).map((r, i) => ({ i, size: r.start - out[i]!.end }));
  gaps.sort((a, b) => (a.size < b.size ? -1 : a.size > b.size ? 1 : a.i - b.i));
  const fill = new Set(gaps.slice(0, out.length - max).map((g) => g.i));
  const merged: ShardRange[] = [];
  for (let i = 0; i < out.length; i++) {
    const r = out[i]!;
    if (i > 0 && fill.has(i - 1)) merged[merged.length - 1] = { start: merged[merged.length - 1]!.start, end: r.end };
    else merged.push(r);
  }
  return merged;
}
