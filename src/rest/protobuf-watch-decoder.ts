/**
 * Decoding of a protobuf watch stream: length-delimited frames (a 4-byte big-endian length, then that
 * many bytes), each a metav1.WatchEvent message — `type` (1) and `object` (2), a RawExtension whose
 * bytes are the object in its own `k8s\0` envelope. kube-apiserver v1.24 writes the WatchEvent
 * message itself, without a runtime.Unknown around it; a frame that does start with the magic (an
 * Unknown-wrapped event) is read too.
 *
 * Upstream: apimachinery `pkg/util/framer` (LengthDelimitedFramer), `pkg/runtime/serializer/streaming`,
 * `pkg/apis/meta/v1/watch.go`, and apiserver `pkg/endpoints/handlers/watch.go`. Same interface as
 * watch-decoder.ts: errors are returned, events before them are kept.
 */
import type { Status } from '../api/meta/v1.ts';
import { isStatusObject, newStatus, StatusReason } from '../apimachinery/errors.ts';
import type { WatchEvent } from '../apimachinery/watch.ts';
import { ProtoReader, decodeUnknownPayload, hasProtobufMagic, readUnknown, type FieldsV1Interner } from '../runtime/protobuf/decode.ts';
import { WatchDecodeError } from './errors.ts';

const eventTypes: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Incremental decoder of a protobuf watch body: {@link ProtobufWatchDecoder.write} per chunk, then {@link ProtobufWatchDecoder.end}. */
export class ProtobufWatchDecoder<T> {
  readonly #interner: FieldsV1Interner | undefined;
  #pending: Buffer[] = [];
  #pendingLength = 0;
  /** Bytes the next frame needs (its header, then header and body). */
  #need = 4;

  /** With an `interner`, the objects' managedFields fieldsV1 values are shared and frozen. */
  constructor(options: { interner?: FieldsV1Interner } = {}) {
    this.#interner = options.interner;
  }

  /** Decodes every frame `chunk` completes, appending its event to `out`; returns the first decode error. */
  write(chunk: Uint8Array, out: Array<WatchEvent<T>>): WatchDecodeError | undefined {
    const c = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#pending.push(c);
    this.#pendingLength += c.length;
    if (this.#pendingLength < this.#need) return undefined;
    const buf = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingLength);
    let p = 0;
    let error: WatchDecodeError | undefined;
    while (buf.length - p >= 4) {
      const len = buf.readUInt32BE(p);
      if (buf.length - p - 4 < len) break;
      error = this.#decodeFrame(buf, p + 4, p + 4 + len, out);
      p += 4 + len;
      if (error !== undefined) break;
    }
    this.#pending = p === buf.length ? [] : [buf.subarray(p)];
    this.#pendingLength = buf.length - p;
    this.#need = this.#pendingLength >= 4 ? 4 + buf.readUInt32BE(p) : 4;
    return error;
  }

  /** True when part of a frame has been received but not all of it. */
  get midEvent(): boolean {
    return this.#pendingLength > 0;
  }

  /** Finishes the stream: leftover bytes are a truncated frame. */
  end(_out: Array<WatchEvent<T>>): WatchDecodeError | undefined {
    if (this.#pendingLength === 0) return undefined;
    return new WatchDecodeError(`watch stream ended in the middle of an event (${this.#pendingLength} bytes unread)`);
  }

  #decodeFrame(buf: Buffer, start: number, end: number, out: Array<WatchEvent<T>>): WatchDecodeError | undefined {
    try {
      let s = start;
      let e = end;
      if (hasProtobufMagic(buf, s)) {
        const u = readUnknown(buf, s + 4, e);
        s = u.rawStart;
        e = u.rawEnd;
      }
      const r = new ProtoReader(buf, s, this.#interner);
      let type = '';
      let object: Record<string, unknown> | undefined;
      while (r.pos < e) {
        const tag = r.uint32();
        if (tag === 10) type = r.string(e);
        else if (tag === 18) {
          const objEnd = r.end(e);
          // RawExtension { raw = 1 }: the object's own envelope.
          while (r.pos < objEnd) {
            const t = r.uint32();
            if (t === 10) {
              const rawEnd = r.end(objEnd);
              if (!hasProtobufMagic(buf, r.pos)) throw new WatchDecodeError('watch event object is not Kubernetes protobuf');
              object = decodeUnknownPayload(buf, readUnknown(buf, r.pos + 4, rawEnd), this.#interner);
              r.pos = rawEnd;
            } else r.skip(t & 7, objEnd);
          }
          r.pos = objEnd;
        } else r.skip(tag & 7, e);
      }
      if (!eventTypes.has(type)) return new WatchDecodeError(`watch event has unknown type ${JSON.stringify(type)}`);
      if (object === undefined) return new WatchDecodeError(`watch event ${type} carries no object`);
      if (type === 'ERROR') {
        const kind = String(object.kind);
        const status: Status = isStatusObject(object) ? object : newStatus(500, StatusReason.InternalError, `unexpected watch error object of kind ${kind}`);
        out.push({ type: 'ERROR', object: status });
      } else out.push({ type: type as 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: object as T });
      return undefined;
    } catch (err) {
      if (err instanceof WatchDecodeError) return err;
      return new WatchDecodeError(`malformed protobuf watch event: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
