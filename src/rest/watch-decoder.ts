/**
 * Decoding of the API server's watch stream (rest/watch.Decoder over the JSON framer): one JSON
 * object per line, `{"type": "...", "object": {...}}`.
 *
 * This is a hot path. Bytes are scanned for '\n' chunk by chunk; a line that lies within one chunk is
 * decoded straight from that chunk, and only a line split across chunks is joined (once, when its end
 * arrives). Each line is turned into a string and parsed exactly once. A line that is not a watch
 * event, or bytes left over when the stream ends, raise {@link WatchDecodeError}: events are never
 * dropped silently.
 */
import type { Status } from '../api/meta/v1.ts';
import { isStatusObject, newStatus, StatusReason } from '../apimachinery/errors.ts';
import type { WatchEvent } from '../apimachinery/watch.ts';
import { WatchDecodeError } from './errors.ts';
import { eventManagedFields, type ManagedFieldsInterner } from './managed-fields-interner.ts';

const newline = 0x0a;
const eventTypes: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

function isBlank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== newline) return false;
  }
  return true;
}

function preview(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Validates a parsed line as a watch event (types are checked, objects must be JSON objects). */
export function toWatchEvent<T>(value: unknown, line: string): WatchEvent<T> {
  if (typeof value !== 'object' || value === null) throw new WatchDecodeError(`watch stream line is not an event object: ${preview(line)}`);
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !eventTypes.has(type)) throw new WatchDecodeError(`watch event has unknown type ${JSON.stringify(type)}: ${preview(line)}`);
  if (typeof object !== 'object' || object === null || Array.isArray(object)) throw new WatchDecodeError(`watch event ${type} carries no object: ${preview(line)}`);
  if (type === 'ERROR') {
    // A non-Status error object still must not vanish: keep it visible as an internal error Status.
    const status: Status = isStatusObject(object) ? object : newStatus(500, StatusReason.InternalError, `unexpected watch error object: ${preview(JSON.stringify(object))}`);
    return { type: 'ERROR', object: status };
  }
  return { type: type as 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: object as T };
}

/**
 * An incremental decoder: feed it chunks with {@link WatchStreamDecoder.write}, then call
 * {@link WatchStreamDecoder.end} when the stream ends.
 */
export class WatchStreamDecoder<T> {
  readonly #interner: ManagedFieldsInterner | undefined;
  // Bytes of an unfinished line, in arrival order (only non-empty while a line spans chunks).
  #pending: Buffer[] = [];
  #pendingLength = 0;

  /** With an `interner`, the objects' managedFields fieldsV1 values are shared and frozen (see ManagedFieldsInterner). */
  constructor(options: { interner?: ManagedFieldsInterner } = {}) {
    this.#interner = options.interner;
  }

  /**
   * Decodes every complete line in `chunk`, appending its events to `out`. Returns the decode error of
   * the first bad line (events before it are in `out`; nothing after it is decoded), or undefined.
   */
  write(chunk: Uint8Array, out: Array<WatchEvent<T>>): WatchDecodeError | undefined {
    const buf = asBuffer(chunk);
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(newline, start);
      if (nl < 0) break;
      let error: WatchDecodeError | undefined;
      if (this.#pendingLength === 0) {
        error = this.#decodeLine(buf, start, nl, out);
      } else {
        this.#pending.push(buf.subarray(start, nl));
        const line = Buffer.concat(this.#pending, this.#pendingLength + (nl - start));
        this.#pending = [];
        this.#pendingLength = 0;
        error = this.#decodeLine(line, 0, line.length, out);
      }
      if (error !== undefined) return error;
      start = nl + 1;
    }
    if (start < buf.length) {
      this.#pending.push(buf.subarray(start));
      this.#pendingLength += buf.length - start;
    }
    return undefined;
  }

  /** True when part of a line has been received but not its end. */
  get midEvent(): boolean {
    return this.#pending.some((b) => !isBlank(b, 0, b.length));
  }

  /**
   * Finishes the stream: a final line without a trailing newline is decoded (servers always end events
   * with one, but JSON is self-delimiting); a truncated one is an error.
   */
  end(out: Array<WatchEvent<T>>): WatchDecodeError | undefined {
    if (!this.midEvent) return undefined;
    const line = Buffer.concat(this.#pending, this.#pendingLength);
    this.#pending = [];
    this.#pendingLength = 0;
    const error = this.#decodeLine(line, 0, line.length, out);
    if (error !== undefined) return new WatchDecodeError(`watch stream ended in the middle of an event (${line.length} bytes unread)`, { cause: error });
    return undefined;
  }

  #decodeLine(buf: Buffer, start: number, end: number, out: Array<WatchEvent<T>>): WatchDecodeError | undefined {
    if (isBlank(buf, start, end)) return undefined;
    let value: unknown;
    try {
      value = this.#interner === undefined ? JSON.parse(buf.toString('utf8', start, end)) : this.#interner.parse(buf, start, end, eventManagedFields);
    } catch (err) {
      return new WatchDecodeError(`malformed watch event: ${preview(buf.toString('utf8', start, Math.min(end, start + 200)))}`, { cause: err });
    }
    // The usual event needs no checking beyond this; anything else goes through toWatchEvent.
    const e = value as { type?: unknown; object?: unknown } | null;
    if (typeof e === 'object' && e !== null && typeof e.object === 'object' && e.object !== null && !Array.isArray(e.object) && (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED' || e.type === 'BOOKMARK')) {
      out.push({ type: e.type, object: e.object as T });
      return undefined;
    }
    try {
      out.push(toWatchEvent<T>(value, buf.toString('utf8', start, end)));
      return undefined;
    } catch (err) {
      return err as WatchDecodeError;
    }
  }
}
