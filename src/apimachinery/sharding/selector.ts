/**
 * Shard selectors of KEP-5866 (k8s.io/apimachinery/pkg/sharding selector.go, types.go, and the
 * CEL-subset parser of k8s.io/apiserver/pkg/sharding parser.go): `shardRange(field, start, end)`
 * requirements joined by `||`, each selecting the objects whose 64-bit FNV-1a hash of `field`
 * (object.metadata.uid or object.metadata.namespace) lies in [start, end). Bounds are quoted
 * `0x`-prefixed lowercase hex of exactly 16 digits, or `'0x10000000000000000'` (2^64) as an end.
 *
 * Differences: upstream parses with cel-go and walks the AST; this is a hand-written parser for the
 * same subset (calls, `||`, parentheses, single- or double-quoted literals without escapes). A
 * selector with no range (matching nothing) exists here for shard rings: the wire cannot express
 * it, so its {@link ShardSelector.toString} is the one-hash range [0, 1) and clients filter the rest.
 */
import type { ObjectMeta } from '../../api/meta/v1.ts';
import { KubeloomError } from '../errors.ts';
import { fnv1a64Into, type Hash64 } from './hash.ts';

/** The fields a shard range may hash (the field paths upstream's parser accepts). */
export const ShardKeyField = {
  /** The object's uid: stable for the object's life, uniformly spread. */
  UID: 'object.metadata.uid',
  /** The object's namespace: keeps a namespace's objects together. */
  Namespace: 'object.metadata.namespace',
} as const;

/** One of the {@link ShardKeyField} values. */
export type ShardKeyFieldValue = (typeof ShardKeyField)[keyof typeof ShardKeyField];

/** The end of the 64-bit hash space (2^64), the largest allowed exclusive end. */
export const HASH_SPACE_END = 1n << 64n;

/** One half-open range [start, end) of the 64-bit hash space. */
export interface ShardRange {
  /** Inclusive lower bound, in [0, 2^64). */
  readonly start: bigint;
  /** Exclusive upper bound, in (start, 2^64]. */
  readonly end: bigint;
}

/** ListMeta.shardInfo (Kubernetes 1.36, alpha): present when the server applied a shard selector. */
export interface ShardInfo {
  /** The shard selector from the request, echoed back. */
  selector: string;
}

/** A shard selector did not parse or validate; `message` says where and why. */
export class ShardSelectorParseError extends KubeloomError {
  constructor(message: string) {
    super('ERR_SHARD_SELECTOR', message);
  }
}

/** A bound as upstream writes it: `0x` and 16 lowercase hex digits, or `0x10000000000000000`. */
export function formatShardBound(b: bigint): string {
  return b === HASH_SPACE_END ? '0x10000000000000000' : `0x${b.toString(16).padStart(16, '0')}`;
}

/**
 * Sorts ranges and merges those that overlap or touch; the result is disjoint and ascending.
 */
export function normalizeRanges(ranges: Iterable<ShardRange>): ShardRange[] {
  const sorted = [...ranges].filter((r) => r.start < r.end).sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: ShardRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && r.start <= last.end) {
      if (r.end > last.end) out[out.length - 1] = { start: last.start, end: r.end };
    } else out.push({ start: r.start, end: r.end });
  }
  return out;
}

const scratch: Hash64 = { hi: 0, lo: 0 };

/**
 * The objects whose hash of {@link ShardSelector.key} falls in one of {@link ShardSelector.ranges}
 * (sharding.Selector). Matching is a binary search over the merged ranges on the hash's 32-bit halves.
 *
 * @example
 * const sel = parseShardSelector("shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')");
 * sel.matches(pod); // true for about half of all pods
 */
export class ShardSelector {
  /** The hashed field. */
  readonly key: ShardKeyFieldValue;
  /** The ranges as given (the wire form lists them in this order). */
  readonly ranges: readonly ShardRange[];
  // Merged ranges as parallel arrays of 32-bit halves (end of 2^64 has hi = 2^32).
  readonly #startHi: number[] = [];
  readonly #startLo: number[] = [];
  readonly #endHi: number[] = [];
  readonly #endLo: number[] = [];

  constructor(key: ShardKeyFieldValue, ranges: readonly ShardRange[]) {
    this.key = key;
    this.ranges = ranges.map((r) => ({ start: r.start, end: r.end }));
    for (const r of normalizeRanges(ranges)) {
      this.#startHi.push(Number(r.start >> 32n));
      this.#startLo.push(Number(r.start & 0xffffffffn));
      this.#endHi.push(Number(r.end >> 32n));
      this.#endLo.push(Number(r.end & 0xffffffffn));
    }
  }

  /** A selector matching nothing (a shard that owns no range yet). */
  static none(key: ShardKeyFieldValue = ShardKeyField.UID): ShardSelector {
    return new ShardSelector(key, []);
  }

  /** The whole hash space: every object. */
  static all(key: ShardKeyFieldValue = ShardKeyField.UID): ShardSelector {
    return new ShardSelector(key, [{ start: 0n, end: HASH_SPACE_END }]);
  }

  /** True when no range is selected (nothing matches). */
  isNone(): boolean {
    return this.#startHi.length === 0;
  }

  /** The merged, ascending ranges. */
  merged(): ShardRange[] {
    return normalizeRanges(this.ranges);
  }

  /** Whether a hash is selected. */
  matchesHash(h: Hash64): boolean {
    const { hi, lo } = h;
    // The last range starting at or before h.
    let a = 0;
    let b = this.#startHi.length - 1;
    let found = -1;
    while (a <= b) {
      const m = (a + b) >> 1;
      const sh = this.#startHi[m]!;
      if (sh < hi || (sh === hi && this.#startLo[m]! <= lo)) {
        found = m;
        a = m + 1;
      } else b = m - 1;
    }
    if (found < 0) return false;
    const eh = this.#endHi[found]!;
    return hi < eh || (hi === eh && lo < this.#endLo[found]!);
  }

  /** Whether the hash of `value` (a uid or namespace) is selected. */
  matchesValue(value: string): boolean {
    return this.matchesHash(fnv1a64Into(value, scratch));
  }

  /** Whether the object is selected, by the hash of its uid or namespace (sharding.Selector.Matches). */
  matches(obj: { metadata?: Pick<ObjectMeta, 'uid' | 'namespace'> } | undefined): boolean {
    const meta = obj?.metadata;
    const value = this.key === ShardKeyField.UID ? meta?.uid : meta?.namespace;
    return this.matchesValue(value ?? '');
  }

  /** Same ranges (after merging) and key. */
  equals(other: ShardSelector | undefined): boolean {
    if (other === undefined || other.key !== this.key) return false;
    const a = this.merged();
    const b = other.merged();
    return a.length === b.length && a.every((r, i) => r.start === b[i]!.start && r.end === b[i]!.end);
  }

  /**
   * The wire form, as upstream's String(): `shardRange(key, 'start', 'end') || …`. A selector
   * matching nothing is written as the single-hash range [0, 1), which the wire can express.
   */
  toString(): string {
    const ranges = this.ranges.length === 0 ? [{ start: 0n, end: 1n }] : this.ranges;
    return ranges.map((r) => `shardRange(${this.key}, '${formatShardBound(r.start)}', '${formatShardBound(r.end)}')`).join(' || ');
  }
}

type Token = { kind: 'ident' | 'string' | '(' | ')' | ',' | '||'; text: string; pos: number };

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '(' || c === ')' || c === ',') {
      out.push({ kind: c, text: c, pos: i });
      i++;
      continue;
    }
    if (c === '|' && s[i + 1] === '|') {
      out.push({ kind: '||', text: '||', pos: i });
      i += 2;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = s.indexOf(c, i + 1);
      if (end < 0) throw new ShardSelectorParseError(`unterminated string literal at position ${i}`);
      const text = s.slice(i + 1, end);
      if (text.includes('\\')) throw new ShardSelectorParseError(`escape sequences are not supported in string literals (position ${i})`);
      out.push({ kind: 'string', text, pos: i });
      i = end + 1;
      continue;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/.exec(s.slice(i));
    if (m === null) throw new ShardSelectorParseError(`unexpected character ${JSON.stringify(c)} at position ${i}`);
    out.push({ kind: 'ident', text: m[0].replace(/\s+/g, ''), pos: i });
    i += m[0].length;
  }
  return out;
}

function parseBound(tok: Token | undefined, name: string): bigint {
  if (tok?.kind !== 'string') throw new ShardSelectorParseError(`${name} must be a string literal (e.g. '0xff')${tok === undefined ? '' : ` at position ${tok.pos}`}`);
  const s = tok.text;
  if (!s.startsWith('0x')) throw new ShardSelectorParseError(`${name} must have '0x' prefix, got ${JSON.stringify(s)}`);
  const hex = s.slice(2);
  if (hex === '') throw new ShardSelectorParseError(`${name}: hex value is required after '0x'`);
  if (hex.length > 17) throw new ShardSelectorParseError(`${name}: hex value too long (${hex.length} chars, max 17): ${JSON.stringify(hex)}`);
  if (!/^[0-9a-f]+$/.test(hex)) throw new ShardSelectorParseError(`${name}: invalid hex character in ${JSON.stringify(s)}`);
  if (hex.length === 17) {
    if (s !== '0x10000000000000000') throw new ShardSelectorParseError(`${name}: 17-digit hex value must be '0x10000000000000000' (2^64), got ${JSON.stringify(s)}`);
  } else if (hex.length !== 16) {
    throw new ShardSelectorParseError(`${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(s)} (did you mean ${JSON.stringify(`0x${hex.padStart(16, '0')}`)}?)`);
  }
  return BigInt(s);
}

/**
 * Parses a shard selector (the `shardSelector` query parameter). Throws
 * {@link ShardSelectorParseError} for anything but `shardRange(field, 'start', 'end')` calls joined
 * by `||` (parentheses allowed), for unknown fields, malformed bounds, start ≥ end, or ranges over
 * different fields. An empty string is an error, as upstream (omit the parameter instead).
 */
export function parseShardSelector(text: string): ShardSelector {
  const s = text.trim();
  if (s === '') throw new ShardSelectorParseError('empty shard selector is not allowed; omit the parameter for unfiltered lists');
  const toks = tokenize(s);
  let p = 0;
  const expect = (kind: Token['kind'], what: string): Token => {
    const t = toks[p];
    if (t?.kind !== kind) throw new ShardSelectorParseError(`expected ${what}${t === undefined ? ' at end of input' : ` at position ${t.pos}, got ${JSON.stringify(t.text)}`}`);
    p++;
    return t;
  };
  const ranges: { key: string; range: ShardRange }[] = [];
  const term = (): void => {
    const t = toks[p];
    if (t?.kind === '(') {
      p++;
      expr();
      expect(')', "')'");
      return;
    }
    const fn = expect('ident', 'shardRange(...)');
    if (fn.text !== 'shardRange') throw new ShardSelectorParseError(`unsupported function ${JSON.stringify(fn.text)}; only shardRange() and || are allowed`);
    expect('(', "'(' after shardRange");
    const field = expect('ident', 'a field path (e.g. object.metadata.uid)').text;
    if (field !== ShardKeyField.UID && field !== ShardKeyField.Namespace) {
      throw new ShardSelectorParseError(`unsupported field path ${JSON.stringify(field)}; supported: object.metadata.uid, object.metadata.namespace`);
    }
    expect(',', "','");
    const start = parseBound(toks[p++], 'hexStart');
    expect(',', "','");
    const end = parseBound(toks[p++], 'hexEnd');
    expect(')', "')'");
    if (start === HASH_SPACE_END) throw new ShardSelectorParseError('hexStart must be below 0x10000000000000000');
    if (!(start < end)) throw new ShardSelectorParseError(`shard range start ${formatShardBound(start)} must be less than end ${formatShardBound(end)}`);
    ranges.push({ key: field, range: { start, end } });
  };
  const expr = (): void => {
    term();
    while (toks[p]?.kind === '||') {
      p++;
      term();
    }
  };
  expr();
  if (p < toks.length) throw new ShardSelectorParseError(`unexpected ${JSON.stringify(toks[p]!.text)} at position ${toks[p]!.pos}`);
  const key = ranges[0]!.key;
  for (const r of ranges) {
    if (r.key !== key) throw new ShardSelectorParseError(`all shard ranges must use the same field, got ${JSON.stringify(key)} and ${JSON.stringify(r.key)}`);
  }
  return new ShardSelector(key as ShardKeyFieldValue, ranges.map((r) => r.range));
}

/**
 * Shard `index` of `total` equal contiguous shards (client-go sharding.NewShardRangeSelector):
 * the space is cut every ⌊(2^64 − 1) / total⌋ + 1 and the last shard ends at 2^64.
 *
 * @example
 * evenShardSelector(0, 2).toString(); // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 */
export function evenShardSelector(index: number, total: number, key: ShardKeyFieldValue = ShardKeyField.UID): ShardSelector {
  if (!Number.isInteger(total) || total < 1 || !Number.isInteger(index) || index < 0 || index >= total) {
    throw new ShardSelectorParseError(`invalid shard ${index} of ${total}`);
  }
  const step = (HASH_SPACE_END - 1n) / BigInt(total) + 1n;
  const start = step * BigInt(index);
  const end = index === total - 1 ? HASH_SPACE_END : step * BigInt(index + 1);
  return new ShardSelector(key, [{ start, end }]);
}

/** The list's `metadata.shardInfo`, when the server applied a shard selector (absent before 1.36). */
export function shardInfoOf(list: { metadata?: object } | undefined): ShardInfo | undefined {
  const info = (list?.metadata as { shardInfo?: unknown } | undefined)?.shardInfo;
  if (typeof info !== 'object' || info === null) return undefined;
  const selector = (info as { selector?: unknown }).selector;
  return typeof selector === 'string' ? { selector } : undefined;
}
