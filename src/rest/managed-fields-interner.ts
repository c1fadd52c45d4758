/**
 * Sharing of `metadata.managedFields[].fieldsV1` between decoded objects.
 *
 * A fieldsV1 value is the set of fields one manager owns, as a deep tree of small objects
 * (`{"f:metadata":{"f:labels":{".":{},…}},…}`): often half of an object's JSON and most of its
 * decoded heap, and byte for byte the same in every object written by the same manager the same
 * way (the replicas of a Deployment, every status update of a kubelet). The interner decodes each
 * distinct fieldsV1 text once, deep-freezes it, and hands the same object to every later object
 * whose bytes are identical: equal bytes give equal values, so sharing loses nothing but mutability.
 * Parsing the rest of the object skips those bytes, which saves decoding time as well as memory.
 *
 * The bytes `"managedFields":[` cannot occur inside a JSON string unless their quote is escaped,
 * which is checked. One pass over the first such array finds the fieldsV1 member of each entry;
 * every one is cut out of the text before JSON.parse and replaced by a marker, and the markers are
 * then found again in `metadata.managedFields`. When they turn up anywhere else (that array was a
 * managedFields member elsewhere, say in a custom resource), the object is parsed as it is.
 */

const listPattern = Buffer.from('"managedFields":[');
const backslash = 0x5c;
/** Stands for a cut-out fieldsV1 in the text given to JSON.parse: a string no API server sends. */
const marker = '\u0000kubeloom:fieldsV1';
const markerJson = JSON.stringify(marker);

/** Default bound on the text of the distinct fieldsV1 values remembered (8 MiB). */
export const defaultInternerMaxBytes = 8 * 2 ** 20;

function freeze(value: unknown): void {
  // A local deep freeze: tools/cache's deepFreeze sits above this layer.
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const k in value) freeze((value as Record<string, unknown>)[k]);
}

/**
 * Remembers decoded fieldsV1 values by their exact bytes (see the module comment). One per
 * RestClient; when the remembered text exceeds `maxBytes` it starts over (objects decoded before
 * keep what they share).
 */
export class ManagedFieldsInterner {
  /**
   * The values remembered, by a hash of a sample of their bytes; each entry keeps a copy of its bytes
   * and is verified byte for byte. No string is made of the bytes to look them up: a fieldsV1 is
   * often 2–3 KB, and a string key per object (made, then hashed whole by the Map) was a tenth of a
   * JSON sync's garbage.
   */
  readonly #buckets = new Map<number, InternedFields[]>();
  readonly #maxBytes: number;
  #bytes = 0;
  #count = 0;
  /** Start and end offsets of the fieldsV1 objects found in one object (reused). */
  readonly #spans: number[] = [];

  constructor(
    options: {
      /** Bound on the remembered text (default {@link defaultInternerMaxBytes}). */
      maxBytes?: number;
    } = {},
  ) {
    this.#maxBytes = options.maxBytes ?? defaultInternerMaxBytes;
  }

  /** Distinct fieldsV1 values remembered. */
  get size(): number {
    return this.#count;
  }

  /**
   * JSON.parse of `buf[start, end)` (UTF-8), with every fieldsV1 object in the managedFields that
   * `managedFieldsOf` finds in the result shared and frozen. Throws what JSON.parse throws.
   */
  parse(buf: Buffer, start: number, end: number, managedFieldsOf: (value: unknown) => unknown): unknown {
    // Only the managedFields array is searched: it is short, and the rest of the object is not.
    let list = buf.indexOf(listPattern, start);
    while (list >= 0 && list < end && isEscaped(buf, list, start)) list = buf.indexOf(listPattern, list + 1);
    if (list < 0 || list >= end) return JSON.parse(buf.toString('utf8', start, end));
    // One pass over the array finds each entry's fieldsV1 object.
    const spans = this.#spans;
    spans.length = 0;
    if (!findFieldsV1(buf, list + listPattern.length, end, spans)) return JSON.parse(buf.toString('utf8', start, end));
    let text = '';
    let last = start;
    const shared: unknown[] = [];
    for (let k = 0; k < spans.length; k += 2) {
      const open = spans[k]!;
      const close = spans[k + 1]!;
      shared.push(this.#intern(buf, open, close));
      text += buf.toString('utf8', last, open) + markerJson;
      last = close;
    }
    if (shared.length === 0) return JSON.parse(buf.toString('utf8', start, end));
    text += buf.toString('utf8', last, end);
    const value: unknown = JSON.parse(text);
    if (restore(managedFieldsOf(value), shared)) return value;
    return JSON.parse(buf.toString('utf8', start, end));
  }

  /** The shared, frozen value of the fieldsV1 JSON in `buf[start, end)` (protobuf's FieldsV1.Raw). */
  internBytes(buf: Buffer, start: number, end: number): unknown {
    return this.#intern(buf, start, end);
  }

  #intern(buf: Buffer, open: number, close: number): unknown {
    const len = close - open;
    let h = len;
    // About 256 samples: values that differ only in a uid (the managedFields of Pods of different
    // ReplicaSets: ownerReferences) must still land in different buckets. With 64 samples, the 40
    // distinct values of 10,000 Pods of 40 Deployments fell into one bucket, and every lookup compared
    // ~20 entries.
    const step = len > 256 ? len >>> 8 : 1;
    for (let i = open; i < close; i += step) h = (Math.imul(h, 31) + buf[i]!) | 0;
    const bucket = this.#buckets.get(h);
    if (bucket !== undefined) {
      for (let i = 0; i < bucket.length; i++) {
        const entry = bucket[i]!;
        if (entry.bytes.length === len && buf.compare(entry.bytes, 0, len, open, close) === 0) {
          // Most recently used first: consecutive objects (a list is sorted by name) mostly share a value.
          if (i > 0) {
            bucket[i] = bucket[0]!;
            bucket[0] = entry;
          }
          return entry.value;
        }
      }
    }
    const value: unknown = JSON.parse(buf.toString('utf8', open, close));
    freeze(value);
    if (this.#bytes + len > this.#maxBytes) {
      this.#buckets.clear();
      this.#bytes = 0;
      this.#count = 0;
    }
    // A copy: the bytes of a response chunk must not be kept alive by the interner.
    const entry: InternedFields = { bytes: Buffer.from(buf.subarray(open, close)), value };
    const current = this.#buckets.get(h);
    if (current === undefined) this.#buckets.set(h, [entry]);
    else current.push(entry);
    this.#bytes += len;
    this.#count++;
    return value;
  }
}

/** One remembered fieldsV1: its bytes and its decoded, frozen value. */
interface InternedFields {
  bytes: Buffer;
  value: unknown;
}

const fieldsV1Key = Buffer.from('fieldsV1":{');

/**
 * Scans a managedFields array from just after its `[` and records, in `spans`, the start and end of
 * every entry's fieldsV1 object (a member of an entry, so at depth 2). False when the array does not
 * end before `end`. Like json-scan.ts's loop, it tracks only strings and nesting.
 */
function findFieldsV1(buf: Buffer, i: number, end: number, spans: number[]): boolean {
  let depth = 1;
  let open = -1;
  while (i < end) {
    const c = buf[i++]!;
    if (c === 0x22) {
      // A string: at depth 2 it may be the fieldsV1 key of an entry.
      if (depth === 2 && open < 0 && matchesAt(buf, i, end, fieldsV1Key)) {
        i += fieldsV1Key.length;
        open = i - 1;
        depth++;
        continue;
      }
      while (i < end) {
        const d = buf[i++]!;
        if (d === 0x22) break;
        if (d === backslash) i++;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 2 && open >= 0) {
        spans.push(open, i);
        open = -1;
      } else if (depth === 0) return true;
    }
  }
  return false;
}

function matchesAt(buf: Buffer, i: number, end: number, bytes: Buffer): boolean {
  if (i + bytes.length > end) return false;
  for (let k = 0; k < bytes.length; k++) if (buf[i + k] !== bytes[k]) return false;
  return true;
}

/** True when the quote at `at` is escaped: an odd run of backslashes precedes it. */
function isEscaped(buf: Buffer, at: number, start: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= start && buf[i] === backslash; i--) n++;
  return (n & 1) === 1;
}

/** Puts the shared values where the markers are, in order; false unless every marker was in managedFields. */
function restore(managedFields: unknown, shared: unknown[]): boolean {
  if (!Array.isArray(managedFields)) return false;
  let k = 0;
  for (const entry of managedFields as unknown[]) {
    if (typeof entry !== 'object' || entry === null || (entry as { fieldsV1?: unknown }).fieldsV1 !== marker) continue;
    if (k === shared.length) return false;
    (entry as { fieldsV1?: unknown }).fieldsV1 = shared[k++];
  }
  return k === shared.length;
}

/** Where a list item keeps its managedFields. */
export function itemManagedFields(item: unknown): unknown {
  return (item as { metadata?: { managedFields?: unknown } } | null)?.metadata?.managedFields;
}

/** Where a watch event's object keeps its managedFields. */
export function eventManagedFields(event: unknown): unknown {
  return itemManagedFields((event as { object?: unknown } | null)?.object);
}
