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
 * The bytes `"managedFields":[` and `"fieldsV1":{` cannot occur inside a JSON string unless their
 * quote is escaped, which is checked. Within the first managedFields array, every fieldsV1 object is
 * cut out of the text before JSON.parse and replaced by a marker, and the markers are then found
 * again in `metadata.managedFields`. When they turn up anywhere else (a managedFields member
 * elsewhere, say in a custom resource), the object is parsed as it is.
 */
import { scanComposite, type CompositeScanState } from './json-scan.ts';

const pattern = Buffer.from('"fieldsV1":{');
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
  readonly #values = new Map<string, unknown>();
  readonly #maxBytes: number;
  #bytes = 0;
  readonly #scan: CompositeScanState = { depth: 0, inString: false, skip: 0 };

  constructor(options: { maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? defaultInternerMaxBytes;
  }

  /** Distinct fieldsV1 values remembered. */
  get size(): number {
    return this.#values.size;
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
    const state = this.#scan;
    state.depth = 1;
    state.inString = false;
    state.skip = 0;
    const listEnd = scanComposite(buf, list + listPattern.length, end, state);
    // Not a complete array: JSON.parse will say what is wrong with the whole.
    if (listEnd < 0) return JSON.parse(buf.toString('utf8', start, end));
    let text = '';
    let last = start;
    const shared: unknown[] = [];
    for (let at = buf.indexOf(pattern, list); at >= 0 && at < listEnd; at = buf.indexOf(pattern, at + 1)) {
      if (isEscaped(buf, at, start)) continue;
      const open = at + pattern.length - 1;
      state.depth = 1;
      state.inString = false;
      state.skip = 0;
      const close = scanComposite(buf, open + 1, listEnd, state);
      if (close < 0) return JSON.parse(buf.toString('utf8', start, end));
      shared.push(this.#intern(buf, open, close));
      text += buf.toString('utf8', last, open) + markerJson;
      last = close;
      at = close - 1;
    }
    if (shared.length === 0) return JSON.parse(buf.toString('utf8', start, end));
    text += buf.toString('utf8', last, end);
    const value: unknown = JSON.parse(text);
    if (restore(managedFieldsOf(value), shared)) return value;
    return JSON.parse(buf.toString('utf8', start, end));
  }

  #intern(buf: Buffer, open: number, close: number): unknown {
    const key = buf.toString('latin1', open, close);
    let value = this.#values.get(key);
    if (value === undefined) {
      value = JSON.parse(buf.toString('utf8', open, close));
      freeze(value);
      if (this.#bytes + key.length > this.#maxBytes) {
        this.#values.clear();
        this.#bytes = 0;
      }
      this.#values.set(key, value);
      this.#bytes += key.length;
    }
    return value;
  }
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
