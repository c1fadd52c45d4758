/**
 * Incremental decoding of a LIST response (`{"kind":…,"apiVersion":…,"metadata":…,"items":[…]}`)
 * as its bytes arrive, so that items are parsed and handed over while the rest of the body is still
 * on the wire, and the body never exists as one string.
 *
 * client-go reads the whole body and decodes it at once (rest.Request.transformResponse, then the
 * apimachinery JSON serializer); kube-apiserver writes a JSON list as one document, and from 1.33
 * streams it item by item (staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/collections.go).
 * This decoder reads either form.
 *
 * This is a hot path. A byte scanner finds where each item starts and ends: outside strings it only
 * looks at brackets and quotes, inside strings at quotes and backslashes; UTF-8 continuation bytes
 * never equal those ASCII bytes, so scanning bytes is safe. An item that lies within one chunk is
 * decoded straight from that chunk; one split across chunks is joined once, when its end arrives.
 * Each item is turned into a string and parsed with JSON.parse exactly once. The members other than
 * `items` (kind, apiVersion, metadata, anything else, in any order) are parsed as they complete.
 *
 * An item is handed over only once the separator after it (`,` or `]`) has arrived: a body cut
 * after an item, or an error Status the server appended to a partial list when it failed mid-way
 * (responsewriters.SerializeObject's errSerializationFatal), never reaches the consumer as an item.
 */
import { StatusError, isStatusObject } from '../apimachinery/errors.ts';
import type { ListMeta, Status } from '../api/meta/v1.ts';
import { ResponseDecodeError } from './errors.ts';
import { scanComposite as scanCompositeEnd, type CompositeScanState } from './json-scan.ts';
import { itemManagedFields, type ManagedFieldsInterner } from './managed-fields-interner.ts';

/** What a list carries besides its items: kind, apiVersion, metadata and any other top-level member. */
export interface ListEnvelope {
  /** The list's `group/version`. */
  apiVersion?: string;
  /** The list's kind (`PodList`, `List`, ...). */
  kind?: string;
  /** resourceVersion, continue token and remainingItemCount. */
  metadata?: ListMeta;
  [member: string]: unknown;
}

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;
const colon = 0x3a;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

// Where the scanner is in the list's top-level structure.
const beforeList = 0; // before the opening '{'
const keyOrEnd = 1; // after '{': a member name or '}'
const key = 2; // after ',': a member name
const colonNext = 3; // after a member name
const valueNext = 4; // after ':' of a member other than items
const itemsNext = 5; // after "items":
const itemOrEnd = 6; // after '[': an item or ']'
const itemNext = 7; // after ',' in items: an item
const afterItem = 8; // ',' or ']'
const afterMember = 9; // ',' or '}'
const done = 10; // after the closing '}': only whitespace may follow
const failed = 11;

// What is being scanned when a token spans chunks.
const scanNone = 0;
const scanComposite = 1; // an object or array: depth and strings are tracked
const scanString = 2;
const scanScalar = 3; // a number or literal: ends at a delimiter

// What the scanned value is.
const forKey = 0;
const forMember = 1;
const forItem = 2;

/** How many bytes after a failure are kept to look for an error Status the server appended. */
const maxTailBytes = 64 * 1024;

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

function preview(text: string): string {
  const t = text.trim();
  return t.length > 120 ? `${t.slice(0, 120)}…` : t;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The error for a Status object that reports a failure (as rest.Result.Into raises it), else undefined. */
function failureStatus(value: unknown, cause?: Error): StatusError | undefined {
  if (!isStatusObject(value) || value.status === 'Success') return undefined;
  const status: Status = { ...value, code: value.code ?? 500 };
  return new StatusError(status, cause === undefined ? undefined : { cause });
}

/** An error Status at the end of `text` (what errSerializationFatal appends), if there is one. */
function trailingStatus(text: string, cause: Error): StatusError | undefined {
  for (let at = text.lastIndexOf('{"kind":"Status"'); at >= 0; at = at === 0 ? -1 : text.lastIndexOf('{"kind":"Status"', at - 1)) {
    let value: unknown;
    try {
      value = JSON.parse(text.slice(at));
    } catch {
      continue;
    }
    return failureStatus(value, cause);
  }
  return undefined;
}

/**
 * Decodes one LIST response body fed chunk by chunk: {@link ListStreamDecoder.write} for every
 * chunk in order, then {@link ListStreamDecoder.end}.
 *
 * Errors are {@link ResponseDecodeError}s (a body that is not a JSON object, malformed JSON, items
 * that are not an array, two items members, a truncated body), or a {@link StatusError} when the
 * body is an error Status, or when a truncated or malformed list ends with one. After an error the
 * decoder keeps up to 64 KiB of what follows, to find such a Status: `write` throws once that much
 * is kept, `end` always throws.
 *
 * @example
 * const decoder = new ListStreamDecoder<Pod>();
 * for await (const chunk of body) {
 *   const items: Pod[] = [];
 *   decoder.write(chunk, items);
 *   for (const pod of items) cache.add(pod);
 * }
 * const { metadata } = decoder.end();
 */
export class ListStreamDecoder<T> {
  readonly #interner: ManagedFieldsInterner | undefined;
  #phase = beforeList;
  /** Bytes in the chunks before the current one (for messages). */
  #offset = 0;
  #envelope: ListEnvelope = {};
  #sawItems = false;
  #itemsNull = false;
  #itemCount = 0;
  /** The last complete item, handed over once the separator after it arrives. */
  #held: T | undefined;
  #holding = false;
  // The token being scanned (an item, a member's name or value), possibly across chunks.
  #scan = scanNone;
  #target = forKey;
  /** Nesting, string and escape state of the token (see json-scan.ts). */
  readonly #state: CompositeScanState = { depth: 0, inString: false, skip: 0 };
  /** Bytes of the token from earlier chunks. */
  #pieces: Buffer[] = [];
  #piecesLength = 0;
  #memberName = '';
  // After a failure: the error and the bytes from where it happened.
  #error: ResponseDecodeError | undefined;
  #tail: Buffer[] = [];
  #tailLength = 0;

  /**
   * With an `interner`, the items' managedFields fieldsV1 values are shared and frozen (see
   * ManagedFieldsInterner); the rest of every item is a fresh, mutable JSON.parse result.
   */
  constructor(options: { interner?: ManagedFieldsInterner } = {}) {
    this.#interner = options.interner;
  }

  /** The members other than items decoded so far (an API server writes kind and apiVersion first). */
  get envelope(): Readonly<ListEnvelope> {
    return this.#envelope;
  }

  /** Items handed over so far. */
  get itemCount(): number {
    return this.#itemCount;
  }

  /** True when the list had `"items": null`, an empty list. */
  get itemsNull(): boolean {
    return this.#itemsNull;
  }

  /**
   * Scans `chunk`, appending to `out` every item it completes, in order. Throws only after a
   * failure, once the bytes kept to explain it reach their limit.
   */
  write(chunk: Uint8Array, out: T[]): void {
    const buf = asBuffer(chunk);
    const n = buf.length;
    if (this.#phase === failed) {
      this.#keepTail(buf, 0);
      this.#offset += n;
      return;
    }
    let i = 0;
    if (this.#scan !== scanNone) {
      const end = this.#scanToken(buf, 0, n);
      if (end < 0) {
        this.#pieces.push(buf);
        this.#piecesLength += n;
        this.#offset += n;
        return;
      }
      this.#pieces.push(buf.subarray(0, end));
      const token = Buffer.concat(this.#pieces, this.#piecesLength + end);
      this.#pieces = [];
      this.#piecesLength = 0;
      if (!this.#complete(token, 0, token.length)) {
        this.#fail(this.#error!, buf, end, token);
        this.#offset += n;
        return;
      }
      i = end;
    }
    this.#run(buf, i, n, out);
    this.#offset += n;
  }

  /**
   * Finishes the body and returns the list's members other than items. Throws when the body was
   * not a complete list, or is an error Status.
   */
  end(): ListEnvelope {
    if (this.#phase === failed) throw this.#explain(this.#error!);
    if (this.#phase !== done) {
      const where = this.#sawItems ? `after ${this.#itemCount} item(s)` : 'before its items';
      const error = new ResponseDecodeError(`list response ended early, ${where} (${this.#offset} bytes read)`);
      // A complete item that no ',' or ']' followed may be the Status of an encoding that failed.
      const status = this.#holding ? failureStatus(this.#held, error) : undefined;
      if (status !== undefined) throw status;
      this.#tail = this.#pieces;
      this.#tailLength = this.#piecesLength;
      throw this.#explain(error);
    }
    const envelope = this.#envelope;
    const status = this.#sawItems ? undefined : failureStatus(envelope);
    if (status !== undefined) throw status;
    return envelope;
  }

  /** The top-level structure, byte by byte; tokens go to the scanners. */
  #run(buf: Buffer, i: number, n: number, out: T[]): void {
    while (i < n) {
      const phase = this.#phase;
      if (phase === itemOrEnd || phase === itemNext || phase === afterItem) {
        i = this.#items(buf, i, n, out);
        if (i < 0) return;
        continue;
      }
      const c = buf[i]!;
      if (isWhitespace(c)) {
        i++;
        continue;
      }
      switch (phase) {
        case beforeList:
          if (c !== openBrace) return this.#failAt(buf, i, `response is not a JSON object: ${preview(buf.toString('utf8', i, Math.min(n, i + 200)))}`);
          this.#phase = keyOrEnd;
          i++;
          break;
        case keyOrEnd:
        case key:
          if (c === closeBrace && phase === keyOrEnd) {
            this.#phase = done;
            i++;
            break;
          }
          if (c !== quote) return this.#failAt(buf, i, `expected a member name at byte ${this.#offset + i}`);
          i = this.#startToken(buf, i, n, scanString, forKey);
          if (i < 0) return;
          break;
        case colonNext:
          if (c !== colon) return this.#failAt(buf, i, `expected ':' at byte ${this.#offset + i}`);
          this.#phase = this.#memberName === 'items' ? itemsNext : valueNext;
          i++;
          break;
        case itemsNext:
          if (this.#sawItems) return this.#failAt(buf, i, 'the list has two items members');
          this.#sawItems = true;
          if (c === openBracket) {
            this.#phase = itemOrEnd;
            i++;
            break;
          }
          // Not an array: decoded like any member, then refused unless null.
          i = this.#startToken(buf, i, n, scanKind(c), forMember);
          if (i < 0) return;
          break;
        case valueNext:
          i = this.#startToken(buf, i, n, scanKind(c), forMember);
          if (i < 0) return;
          break;
        case afterMember:
          if (c === comma) this.#phase = key;
          else if (c === closeBrace) this.#phase = done;
          else return this.#failAt(buf, i, `expected ',' or '}' at byte ${this.#offset + i}`);
          i++;
          break;
        case done:
          return this.#failAt(buf, i, `unexpected data after the list at byte ${this.#offset + i}`);
        default:
          return;
      }
    }
  }

  /** Items and their separators; returns where the top-level structure resumes, or -1 at the chunk's end. */
  #items(buf: Buffer, i: number, n: number, out: T[]): number {
    while (i < n) {
      const c = buf[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      if (this.#phase === afterItem) {
        if (c === comma) {
          this.#release(out);
          this.#phase = itemNext;
          i++;
          continue;
        }
        if (c === closeBracket) {
          this.#release(out);
          this.#phase = afterMember;
          return i + 1;
        }
        this.#failAt(buf, i, `expected ',' or ']' after item ${this.#itemCount + 1} at byte ${this.#offset + i}`);
        return -1;
      }
      if (c === closeBracket && this.#phase === itemOrEnd) {
        this.#phase = afterMember;
        return i + 1;
      }
      if (c === openBrace) {
        // An object, the usual item: scanned here rather than through #startToken.
        const state = this.#state;
        state.depth = 1;
        state.inString = false;
        const end = scanCompositeEnd(buf, i + 1, n, state);
        if (end < 0) {
          this.#scan = scanComposite;
          this.#target = forItem;
          this.#pieces.push(buf.subarray(i));
          this.#piecesLength = n - i;
          return -1;
        }
        if (!this.#parseItem(buf, i, end)) {
          this.#fail(this.#error!, buf, i, undefined);
          return -1;
        }
        i = end;
        continue;
      }
      i = this.#startToken(buf, i, n, scanKind(c), forItem);
      if (i < 0) return -1;
    }
    return -1;
  }

  /**
   * Starts a token at `i` and completes it when it ends within the chunk: returns the index after
   * it, or -1 when the chunk ended first (its bytes are kept) or the token failed.
   */
  #startToken(buf: Buffer, i: number, n: number, kind: number, target: number): number {
    this.#scan = kind;
    this.#target = target;
    this.#state.depth = kind === scanComposite ? 1 : 0;
    this.#state.inString = false;
    const end = this.#scanToken(buf, kind === scanScalar ? i : i + 1, n);
    if (end < 0) {
      this.#pieces.push(buf.subarray(i));
      this.#piecesLength = n - i;
      return -1;
    }
    if (!this.#complete(buf, i, end)) {
      this.#fail(this.#error!, buf, i, undefined);
      return -1;
    }
    return end;
  }

  /** Continues the current token from `i`; returns the index after its end, or -1 (state kept). */
  #scanToken(buf: Buffer, i: number, n: number): number {
    const state = this.#state;
    if (state.skip > 0) {
      // The chunk before ended right after a backslash: this byte is the escaped character.
      i += state.skip;
      state.skip = 0;
      if (i > n) {
        state.skip = i - n;
        return -1;
      }
    }
    switch (this.#scan) {
      case scanComposite:
        return scanCompositeEnd(buf, i, n, state);
      case scanString:
        while (i < n) {
          const c = buf[i++]!;
          if (c === quote) return i;
          if (c === backslash) i++;
        }
        state.skip = i - n;
        return -1;
      default:
        for (; i < n; i++) {
          const c = buf[i]!;
          if (c === comma || c === closeBracket || c === closeBrace || isWhitespace(c)) return i;
        }
        return -1;
    }
  }

  /** A token is complete: interprets it where it stands. Returns false on failure (#error set). */
  #complete(buf: Buffer, start: number, end: number): boolean {
    const target = this.#target;
    this.#scan = scanNone;
    if (target === forItem) return this.#parseItem(buf, start, end);
    const text = buf.toString('utf8', start, end);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const what = target === forKey ? 'a malformed member name' : `malformed member ${JSON.stringify(this.#memberName)}`;
      this.#error = new ResponseDecodeError(`list response: ${what}: ${preview(text)}`, { cause: err });
      return false;
    }
    if (target === forKey) {
      this.#memberName = value as string;
      this.#phase = colonNext;
      return true;
    }
    const name = this.#memberName;
    if (name === 'items') {
      if (value !== null) {
        this.#error = new ResponseDecodeError(`list response: items is ${describe(value)}, not an array`);
        return false;
      }
      this.#itemsNull = true;
    } else if (name === '__proto__') {
      // As JSON.parse: an own member, not the prototype.
      Object.defineProperty(this.#envelope, name, { value, writable: true, enumerable: true, configurable: true });
    } else {
      this.#envelope[name] = value;
    }
    this.#phase = afterMember;
    return true;
  }

  #parseItem(buf: Buffer, start: number, end: number): boolean {
    try {
      this.#held = (this.#interner === undefined ? JSON.parse(buf.toString('utf8', start, end)) : this.#interner.parse(buf, start, end, itemManagedFields)) as T;
    } catch (err) {
      this.#error = new ResponseDecodeError(`list response: item ${this.#itemCount + 1} is not valid JSON: ${preview(buf.toString('utf8', start, Math.min(end, start + 200)))}`, { cause: err });
      return false;
    }
    this.#holding = true;
    this.#phase = afterItem;
    return true;
  }

  #release(out: T[]): void {
    if (!this.#holding) return;
    out.push(this.#held as T);
    this.#held = undefined;
    this.#holding = false;
    this.#itemCount++;
  }

  #failAt(buf: Buffer, i: number, message: string): void {
    this.#fail(new ResponseDecodeError(`list response: ${message}`), buf, i, undefined);
  }

  /** Enters the failed state, keeping `token` (the failing token's bytes) and the chunk from `from`. */
  #fail(error: ResponseDecodeError, buf: Buffer, from: number, token: Buffer | undefined): void {
    this.#phase = failed;
    this.#error = error;
    this.#scan = scanNone;
    this.#holding = false;
    this.#held = undefined;
    this.#pieces = [];
    this.#piecesLength = 0;
    this.#tail = [];
    this.#tailLength = 0;
    if (token !== undefined) {
      this.#tail.push(token);
      this.#tailLength = token.length;
    }
    this.#keepTail(buf, from);
  }

  #keepTail(buf: Buffer, from: number): void {
    if (from < buf.length) {
      this.#tail.push(buf.subarray(from));
      this.#tailLength += buf.length - from;
    }
    if (this.#tailLength > maxTailBytes) throw this.#explain(this.#error!);
  }

  /** The error for a failed body: the server's Status when one ends what was kept, else `error`. */
  #explain(error: ResponseDecodeError): Error {
    const kept = Buffer.concat(this.#tail, this.#tailLength);
    return trailingStatus(kept.toString('utf8', Math.max(0, kept.length - maxTailBytes)), error) ?? error;
  }
}

function scanKind(c: number): number {
  if (c === openBrace || c === openBracket) return scanComposite;
  if (c === quote) return scanString;
  return scanScalar;
}
