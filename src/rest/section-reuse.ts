/**
 * Taking the unchanged sections of a watch event's object over from the cached version, without
 * parsing them. kubeloom only: client-go decodes every event whole (its informer then replaces the
 * cached object whole); kubeloom's informer already shares the unchanged subtrees of the frozen
 * cached version (tools/cache/deep-freeze.ts's freezeReusing), and this does it one step earlier,
 * on the bytes.
 *
 * A MODIFIED event mostly repeats what the cache holds: a kubelet's status update leaves the spec
 * as it was, a rollout leaves the status. For every object decoded here, the length and SHA-256 of
 * the bytes of each large top-level section (an object or array member of the object, other than
 * metadata, of at least {@link minSectionBytes}) are remembered beside the object (a WeakMap keyed by
 * it, so they live exactly as long as the cached object). When the next event of the same object
 * arrives, each remembered section is looked for at its key, and the same number of bytes there is
 * hashed: equal digests mean equal bytes, hence a value equal to the cached one (a JSON value ends
 * where its bytes say, whatever follows). That section is cut out of the text given to JSON.parse,
 * a marker stands in its place, and the cached version's frozen value is put back after parsing:
 * it is neither parsed nor compared again, and freezeReusing finds it frozen and keeps it.
 *
 * Why a digest and not the bytes: keeping the bytes of every cached object would about double an
 * informer's memory; a SHA-256 is 32 bytes per section and is computed natively (~1–2 µs for a
 * 1.3 KB spec, against ~10 µs to parse and compare it). A collision would need a SHA-256 collision.
 *
 * Sections whose digest did not match are not hashed again (a status that changes with every event
 * would cost a hash each time for nothing); every {@link refreshEvery}th event of an object, and the
 * first one after a LIST (whose objects carry no digests), measures every section anew.
 *
 * Whatever looks unusual falls back to the plain decoder (ManagedFieldsInterner.parse): an event not
 * of the `{"type":"…","object":{…}}` shape, a marker not found where it was put (the key was written
 * twice, or the bytes found at the key were not the top-level member), or the marker's own text in
 * the event. The cached values put back are deeply frozen and shared with the cache, so this is only
 * for consumers that freeze their objects anyway and apply no transform in between: the informer
 * asks for it with DecodeOptions.previousVersion when both hold.
 */
import { hash } from 'node:crypto';
import type { PreviousVersionLookup } from '../apimachinery/options.ts';
import { fieldsV1MarkerJson, restoreFieldsV1, type ManagedFieldsInterner } from './managed-fields-interner.ts';

/** Stands for a section taken over from the cached version: a string no API server sends. */
const marker = '\u0000kubeloom:unchanged';
const markerJson = JSON.stringify(marker);
/** The marker's text as it would appear in an event's bytes (checked for: such an event is parsed plainly). */
const markerNeedle = Buffer.from('kubeloom:unchanged');

/**
 * Sections shorter than this are parsed rather than hashed: below a few hundred bytes, a hash call
 * (about 0.8 µs whatever the length) costs as much as parsing them.
 */
export const minSectionBytes = 256;

/** Every this many events of one object, all its sections are measured anew (see the module comment). */
export const refreshEvery = 16;

const quote = 0x22;
const backslash = 0x5c;
const objectPrototype = Object.prototype;
const eventPrefix = Buffer.from('{"type":"');
const objectKey = Buffer.from('","object":{');
const metadataKey = Buffer.from('"metadata":{');
const nameMember = Buffer.from('"name":"');
const namespaceMember = Buffer.from('"namespace":"');

/** What is remembered of one decoded object: its large sections' keys, byte lengths and digests. */
interface SectionDigests {
  /** Events of this object decoded since its sections were last all measured. */
  readonly age: number;
  readonly keys: readonly string[];
  readonly lengths: readonly number[];
  readonly digests: readonly string[];
}

/** The digests of the objects decoded here, by object (the cached object, or the one it replaced when equal). */
const digestsOf = new WeakMap<object, SectionDigests>();

/** `"key":` as bytes, made once per key. */
const keyPatterns = new Map<string, Buffer>();
function keyPattern(key: string): Buffer {
  let p = keyPatterns.get(key);
  if (p === undefined) {
    p = Buffer.from(`${JSON.stringify(key)}:`);
    if (keyPatterns.size < 1024) keyPatterns.set(key, p);
  }
  return p;
}

function digest(buf: Buffer, start: number, end: number): string {
  return hash('sha256', buf.subarray(start, end), 'base64');
}

/**
 * Parses JSON watch events, taking unchanged sections over from the cached version (see the module
 * comment). One per watch stream; between events it keeps only reused scratch arrays.
 */
export class SectionReusingParser {
  readonly #interner: ManagedFieldsInterner;
  readonly #previousOf: PreviousVersionLookup;
  /** Cut spans in byte order: start, end, and -1 for a fieldsV1 or the index of the reused section in #reused. */
  readonly #cuts: number[] = [];
  /** Sections taken over: key, value. */
  readonly #reused: unknown[] = [];
  readonly #fieldSpans: number[] = [];
  readonly #sectionSpans: number[] = [];

  constructor(interner: ManagedFieldsInterner, previousOf: PreviousVersionLookup) {
    this.#interner = interner;
    this.#previousOf = previousOf;
  }

  /**
   * JSON.parse of the event in `buf[start, end)`, with fieldsV1 values interned (as
   * ManagedFieldsInterner.parse) and unchanged sections taken over from the cached version. Throws
   * what JSON.parse throws for malformed bytes.
   */
  parse(buf: Buffer, start: number, end: number, managedFieldsOf: (value: unknown) => unknown): unknown {
    // The event alone: every search below then stops at its end, not at the end of the chunk.
    if (start !== 0 || end !== buf.length) {
      buf = buf.subarray(start, end);
      end -= start;
      start = 0;
    }
    const objectStart = eventObjectStart(buf, start, end);
    if (objectStart < 0) return this.#interner.parse(buf, start, end, managedFieldsOf);
    const previous = this.#cached(buf, objectStart, end);
    const known = previous === undefined ? undefined : digestsOf.get(previous);
    const reused = this.#reused;
    const sectionSpans = this.#sectionSpans;
    reused.length = 0;
    sectionSpans.length = 0;
    let keys: string[];
    let lengths: number[];
    let digests: string[];
    let age: number;
    if (known === undefined || known.age + 1 >= refreshEvery) {
      // Measure every section: a walk over the object's members finds where each ends.
      keys = [];
      lengths = [];
      digests = [];
      age = 0;
      if (!measureSections(buf, objectStart, end, keys, lengths, digests, sectionSpans)) return this.#interner.parse(buf, start, end, managedFieldsOf);
      if (known !== undefined && previous !== undefined) {
        for (let k = 0; k < keys.length; k++) {
          const j = known.keys.indexOf(keys[k]!);
          if (j >= 0 && known.lengths[j] === lengths[k] && known.digests[j] === digests[k]) this.#take(previous, keys[k]!, sectionSpans[2 * k]!, sectionSpans[2 * k + 1]!);
        }
      }
    } else {
      // Try the sections that matched last time: hash as many bytes at their key as they had.
      age = known.age + 1;
      keys = known.keys as string[];
      lengths = known.lengths as number[];
      digests = known.digests as string[];
      let from = objectStart;
      for (let k = 0; k < known.keys.length; k++) {
        const key = known.keys[k]!;
        const pattern = keyPattern(key);
        // Sections come in the order they had; the next one is looked for after the last.
        const at = buf.indexOf(pattern, from);
        const valueStart = at + pattern.length;
        const valueEnd = valueStart + known.lengths[k]!;
        if (at < 0 || valueEnd > end || digest(buf, valueStart, valueEnd) !== known.digests[k] || !this.#take(previous!, key, valueStart, valueEnd)) {
          // Not taken: the record keeps only the sections that were (a copy, made once).
          if (keys === known.keys) {
            keys = known.keys.slice(0, k);
            lengths = known.lengths.slice(0, k);
            digests = known.digests.slice(0, k);
          }
          continue;
        }
        from = valueEnd;
        if (keys !== known.keys) {
          keys.push(key);
          lengths.push(known.lengths[k]!);
          digests.push(known.digests[k]!);
        }
      }
    }
    let value = reused.length === 0 ? undefined : this.#parseCut(buf, start, end, managedFieldsOf);
    if (value === undefined) {
      value = this.#interner.parse(buf, start, end, managedFieldsOf);
      // Sections found by their key alone were not where they seemed: remember nothing of them.
      if (age > 0) return value;
    }
    const object = (value as { object?: unknown } | null)?.object;
    if (typeof object === 'object' && object !== null && keys.length > 0) digestsOf.set(object, { age, keys, lengths, digests });
    return value;
  }

  /** Records that the section `key` at `buf[valueStart, valueEnd)` is taken over from `previous`; false when it cannot be. */
  #take(previous: Record<string, unknown>, key: string, valueStart: number, valueEnd: number): boolean {
    const value = previous[key];
    if (typeof value !== 'object' || value === null || !Object.isFrozen(value) || !Object.hasOwn(previous, key)) return false;
    this.#reused.push(key, value, valueStart, valueEnd);
    return true;
  }

  /** The cached version named by the event's metadata (a hint: the digests decide what is taken over). */
  #cached(buf: Buffer, objectStart: number, end: number): Record<string, unknown> | undefined {
    const meta = buf.indexOf(metadataKey, objectStart);
    if (meta < 0 || meta >= end) return undefined;
    const nameAt = meta + metadataKey.length;
    const name = stringAfter(buf, nameAt, end, nameMember);
    if (name === undefined) return undefined;
    // The namespace mostly follows the name (`"name":"…","namespace":"…"`); otherwise it is searched.
    let namespace = stringAfter(buf, nameAt + nameMember.length + name.length + 2, end, namespaceMember);
    if (namespace === undefined) {
      const nsAt = buf.indexOf(namespaceMember, meta);
      namespace = nsAt >= 0 ? (stringAfter(buf, nsAt, end, namespaceMember) ?? '') : '';
    }
    const found = this.#previousOf(namespace, name);
    if (typeof found !== 'object' || found === null || Object.getPrototypeOf(found) !== objectPrototype || !Object.isFrozen(found)) return undefined;
    return found as Record<string, unknown>;
  }

  /**
   * Parses the event with the fieldsV1 values and the taken-over sections cut out, then puts them
   * back; undefined when that cannot be done safely (the caller then parses the event plainly).
   */
  #parseCut(buf: Buffer, start: number, end: number, managedFieldsOf: (value: unknown) => unknown): unknown {
    const needle = buf.indexOf(markerNeedle, start);
    if (needle >= 0 && needle < end) return undefined;
    const reused = this.#reused;
    const cuts = this.#cuts;
    cuts.length = 0;
    const spans = this.#fieldSpans;
    spans.length = 0;
    this.#interner.findFieldsV1Spans(buf, start, end, spans);
    // Merge the two sorted span lists; overlapping spans mean a section was not where it seemed.
    let f = 0;
    let r = 0;
    while (f < spans.length || r < reused.length) {
      const takeField = r >= reused.length || (f < spans.length && spans[f]! < (reused[r + 2] as number));
      if (takeField) {
        cuts.push(spans[f]!, spans[f + 1]!, -1);
        f += 2;
      } else {
        cuts.push(reused[r + 2] as number, reused[r + 3] as number, r);
        r += 4;
      }
      const n = cuts.length;
      if (n > 3 && cuts[n - 3]! < cuts[n - 5]!) return undefined;
    }
    let text = '';
    let last = start;
    const shared: unknown[] = [];
    for (let k = 0; k < cuts.length; k += 3) {
      const open = cuts[k]!;
      if (cuts[k + 2] === -1) {
        shared.push(this.#interner.internBytes(buf, open, cuts[k + 1]!));
        text += buf.toString('utf8', last, open) + fieldsV1MarkerJson;
      } else {
        text += buf.toString('utf8', last, open) + markerJson;
      }
      last = cuts[k + 1]!;
    }
    text += buf.toString('utf8', last, end);
    const value = JSON.parse(text) as { object?: unknown } | null;
    const object = value?.object as Record<string, unknown> | undefined;
    if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
    if (shared.length > 0 && !restoreFieldsV1(managedFieldsOf(value), shared)) return undefined;
    for (let k = 0; k < reused.length; k += 4) {
      const key = reused[k] as string;
      // A marker elsewhere (the bytes at the key were not the top-level member) or overwritten (the
      // key written twice): nothing is guessed, the event is parsed plainly.
      if (!Object.hasOwn(object, key) || object[key] !== marker) return undefined;
      object[key] = reused[k + 1];
    }
    return value;
  }
}

/** Index just after the object's `{` of a `{"type":"…","object":{` event, or -1. */
function eventObjectStart(buf: Buffer, start: number, end: number): number {
  if (end - start < eventPrefix.length + objectKey.length + 2) return -1;
  for (let k = 0; k < eventPrefix.length; k++) if (buf[start + k] !== eventPrefix[k]) return -1;
  let i = start + eventPrefix.length;
  // The type is a short upper-case word.
  while (i < end && buf[i]! >= 0x41 && buf[i]! <= 0x5a) i++;
  if (i + objectKey.length > end) return -1;
  for (let k = 0; k < objectKey.length; k++) if (buf[i + k] !== objectKey[k]) return -1;
  return i + objectKey.length;
}

/** The plain ASCII string right after `member` at `at` (no escapes), or undefined. */
function stringAfter(buf: Buffer, at: number, end: number, member: Buffer): string | undefined {
  if (at + member.length > end) return undefined;
  for (let k = 0; k < member.length; k++) if (buf[at + k] !== member[k]) return undefined;
  const from = at + member.length;
  for (let i = from; i < end; i++) {
    const c = buf[i]!;
    if (c === quote) return buf.toString('latin1', from, i);
    if (c === backslash || c >= 0x80) return undefined;
  }
  return undefined;
}

/**
 * Walks the members of the event's object from just after its `{` and records, for each object or
 * array member other than metadata of at least {@link minSectionBytes}, its key, length, digest and
 * span. False when the bytes are not a well-formed sequence of members (JSON.parse will say why).
 */
function measureSections(buf: Buffer, i: number, end: number, keys: string[], lengths: number[], digests: string[], spans: number[]): boolean {
  i = skipWhitespace(buf, i, end);
  if (buf[i] === 0x7d) return true;
  // Every member's key: a recorded key written twice (JSON.parse keeps the last value) records nothing.
  const all: string[] = [];
  for (;;) {
    if (buf[i] !== quote) return false;
    const keyStart = i + 1;
    i = skipString(buf, keyStart, end);
    if (i < 0) return false;
    const keyEnd = i - 1;
    i = skipWhitespace(buf, i, end);
    if (buf[i] !== 0x3a) return false;
    const valueStart = skipWhitespace(buf, i + 1, end);
    i = skipValue(buf, valueStart, end);
    if (i < 0) return false;
    const c = buf[valueStart];
    // An escaped key may spell a recorded one: such objects are not measured.
    const key = plainKey(buf, keyStart, keyEnd);
    if (key === undefined) return false;
    all.push(key);
    // Only sections written as `"key":value` are looked for later (by that exact pattern).
    if ((c === 0x7b || c === 0x5b) && i - valueStart >= minSectionBytes && valueStart === keyEnd + 2 && key !== 'metadata') {
      keys.push(key);
      lengths.push(i - valueStart);
      digests.push(digest(buf, valueStart, i));
      spans.push(valueStart, i);
    }
    i = skipWhitespace(buf, i, end);
    const sep = buf[i];
    if (sep === 0x7d) {
      for (const k of keys) if (all.indexOf(k) !== all.lastIndexOf(k)) return false;
      return true;
    }
    if (sep !== 0x2c) return false;
    i = skipWhitespace(buf, i + 1, end);
  }
}

function skipWhitespace(buf: Buffer, i: number, end: number): number {
  while (i < end) {
    const c = buf[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** From just after a string's opening quote: the index after its closing quote, or -1. */
function skipString(buf: Buffer, i: number, end: number): number {
  while (i < end) {
    const c = buf[i++]!;
    if (c === quote) return i;
    if (c === backslash) i++;
  }
  return -1;
}

/** The index after the JSON value starting at `i` (not validated: JSON.parse checks it), or -1. */
function skipValue(buf: Buffer, i: number, end: number): number {
  const c = buf[i];
  if (c === quote) return skipString(buf, i + 1, end);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    while (i < end) {
      const d = buf[i++]!;
      if (d === quote) {
        i = skipString(buf, i, end);
        if (i < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i;
      }
    }
    return -1;
  }
  // A scalar: up to the next delimiter.
  while (i < end) {
    const d = buf[i]!;
    if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) return i;
    i++;
  }
  return i;
}

/** The key whose bytes lie in `buf[from, to)` when plain printable ASCII without escapes, else undefined. */
function plainKey(buf: Buffer, from: number, to: number): string | undefined {
  for (let k = from; k < to; k++) {
    const c = buf[k]!;
    if (c === backslash || c >= 0x80 || c < 0x20) return undefined;
  }
  return buf.toString('latin1', from, to);
}
