/**
 * Incremental decoding of a protobuf LIST response as its bytes arrive: the `k8s\0` magic, then the
 * runtime.Unknown envelope is read field by field; when its `raw` field (the `…List` message) starts,
 * the decoder descends into it and decodes each `items` entry as soon as that entry's bytes are
 * complete, so items reach the consumer while the rest of the body is on the wire and the body is never
 * held whole — the protobuf counterpart of list-decoder.ts, with the same interface.
 *
 * client-go reads the whole body and then decodes it (rest.Request.transformResponse, apimachinery's
 * `runtime/serializer/protobuf`); kube-apiserver writes the list as one Unknown whose raw is the list
 * message with its ListMeta (field 1) before its items (field 2).
 */
import { StatusError, isStatusObject } from '../apimachinery/errors.ts';
import type { Status } from '../api/meta/v1.ts';
import { kindDesc, type MessageDesc } from '../runtime/protobuf/descriptors.ts';
import { ProtoReader, hasProtobufMagic, readMessage, readTypeMeta, withItemTypeMeta, type FieldsV1Interner } from '../runtime/protobuf/decode.ts';
import { PartInterner } from '../runtime/protobuf/part-interner.ts';
import { ResponseDecodeError } from './errors.ts';
import type { ListEnvelope } from './list-decoder.ts';

type Obj = Record<string, unknown>;

const magic = 0;
const envelope = 1;
const list = 2;

/** Reads a varint at `p` of `buf` (below `n`): [value, next offset], or undefined when incomplete. */
function peekVarint(buf: Buffer, p: number, n: number): [number, number] | undefined {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (p + i >= n) return undefined;
    const c = buf[p + i]!;
    v += (c & 0x7f) * mul;
    if (c < 0x80) return [v, p + i + 1];
    mul *= 128;
  }
  throw new ResponseDecodeError('list response: protobuf varint too long');
}

/**
 * Decodes one protobuf LIST body fed chunk by chunk: {@link ProtobufListDecoder.write} for every chunk
 * in order, then {@link ProtobufListDecoder.end}. Throws {@link ResponseDecodeError} for a body that is
 * not a protobuf list of a known kind or ends early, {@link StatusError} for an error Status.
 */
export class ProtobufListDecoder<T> {
  readonly #interner: FieldsV1Interner | undefined;
  readonly #parts: PartInterner | undefined;
  #phase = magic;
  /** Bytes not yet consumed (a field whose end has not arrived), in arrival order. */
  #pending: Buffer[] = [];
  #pendingLength = 0;
  /** Body bytes consumed before `#pending`. */
  #offset = 0;
  /** Absolute end of the Unknown's raw field (the list message), while inside it. */
  #listEnd = 0;
  #desc: MessageDesc | undefined;
  #itemsField: { number: number; msg: MessageDesc } | undefined;
  #envelope: ListEnvelope = {};
  #typeMeta = { apiVersion: '', kind: '' };
  #status: Obj | undefined;
  #itemCount = 0;

  /**
   * With an `interner`, the items' managedFields fieldsV1 values are shared and frozen. With
   * `shareParts`, every embedded message whose bytes repeat within this list is decoded once and
   * shared, frozen, between the items (see PartInterner); the items themselves stay distinct and
   * unfrozen.
   */
  constructor(options: { interner?: FieldsV1Interner; shareParts?: boolean } = {}) {
    this.#interner = options.interner;
    this.#parts = options.shareParts === true ? new PartInterner() : undefined;
  }

  /** The list's kind, apiVersion and metadata decoded so far (metadata precedes the items). */
  get envelope(): Readonly<ListEnvelope> {
    return this.#envelope;
  }

  /** Items handed over so far. */
  get itemCount(): number {
    return this.#itemCount;
  }

  /**
   * Decodes every item `chunk` completes into `out`, in order. Bytes are copied only for a field that
   * spans chunks, and then only that field's bytes, once they have all arrived.
   */
  write(chunk: Uint8Array, out: T[]): void {
    let c = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (this.#pendingLength > 0 && c.length > 0) {
      if (this.#pendingLength + c.length < this.#need) {
        this.#pending.push(c);
        this.#pendingLength += c.length;
        return;
      }
      // Exactly the bytes the unfinished field lacks (or one more for an unfinished tag or length).
      const take = Math.max(1, this.#need - this.#pendingLength);
      this.#pending.push(c.subarray(0, take));
      const head = Buffer.concat(this.#pending, this.#pendingLength + take);
      c = c.subarray(take);
      this.#pending = [];
      this.#pendingLength = 0;
      this.#consume(head, out);
    }
    if (c.length > 0) this.#consume(c, out);
  }

  /** Bytes (from the start of `#pending`) the next step waits for. */
  #need = 0;

  /** Runs over `buf` and keeps what it could not consume. */
  #consume(buf: Buffer, out: T[]): void {
    const [consumed, need] = this.#run(buf, out);
    this.#offset += consumed;
    if (consumed < buf.length) {
      this.#pending = [buf.subarray(consumed)];
      this.#pendingLength = buf.length - consumed;
      this.#need = need - consumed;
    }
  }

  /** Consumes what it can of `buf`, at body offset `#offset`: [bytes consumed, bytes of `buf` the next step needs]. */
  #run(buf: Buffer, out: T[]): [number, number] {
    const n = buf.length;
    let p = 0;
    let need = 0;
    while (need === 0) {
      if (this.#phase === magic) {
        if (n - p < 4) {
          need = p + 4;
          break;
        }
        if (!hasProtobufMagic(buf, p)) throw new ResponseDecodeError('list response: not Kubernetes protobuf (no k8s\\0 prefix)');
        p += 4;
        this.#phase = envelope;
        continue;
      }
      if (this.#phase === list && this.#offset + p === this.#listEnd) {
        this.#phase = envelope;
        continue;
      }
      if (p === n) {
        need = n + 1;
        break;
      }
      const tag = peekVarint(buf, p, n);
      if (tag === undefined) {
        need = n + 1;
        break;
      }
      const wire = tag[0] & 7;
      const field = Math.floor(tag[0] / 8);
      if (wire !== 2) {
        // Only length-delimited fields occur in an Unknown and a list; anything else is skipped.
        const size = wire === 0 ? (peekVarint(buf, tag[1], n)?.[1] ?? -1) - tag[1] : wire === 1 ? 8 : wire === 5 ? 4 : NaN;
        if (Number.isNaN(size)) throw new ResponseDecodeError(`list response: unsupported protobuf wire type ${wire}`);
        if (size < 0 || tag[1] + size > n) {
          need = size < 0 ? n + 1 : tag[1] + size;
          break;
        }
        p = tag[1] + size;
        continue;
      }
      const len = peekVarint(buf, tag[1], n);
      if (len === undefined) {
        need = n + 1;
        break;
      }
      const start = len[1];
      const end = start + len[0];
      if (this.#phase === envelope && field === 2 && this.#typeMeta.kind !== 'Status') {
        // The list message: descend into it instead of waiting for all of it.
        this.#startList(this.#offset + end);
        p = start;
        continue;
      }
      if (end > n) {
        need = end;
        break;
      }
      if (this.#phase === envelope) this.#envelopeField(buf, field, start, end);
      else this.#listField(buf, field, start, end, out);
      p = end;
    }
    return [p, need];
  }

  #startList(absoluteEnd: number): void {
    this.#phase = list;
    this.#listEnd = absoluteEnd;
    const { apiVersion, kind } = this.#typeMeta;
    this.#envelope = { kind, apiVersion };
    const desc = kindDesc(apiVersion, kind);
    const items = desc?.byNumber.find((f) => f?.json === 'items');
    if (desc === undefined || items?.msg === undefined) throw new ResponseDecodeError(`list response: no protobuf list message is known for kind "${kind}" of "${apiVersion}"`);
    this.#desc = desc;
    this.#itemsField = { number: items.number, msg: items.msg };
  }

  #envelopeField(buf: Buffer, field: number, start: number, end: number): void {
    if (field === 1) {
      const r = new ProtoReader(buf, start);
      readTypeMeta(r, end, this.#typeMeta);
    } else if (field === 2) {
      // An error Status instead of a list (the only raw not descended into).
      this.#envelope = { kind: 'Status', apiVersion: this.#typeMeta.apiVersion };
      this.#status = readMessage(new ProtoReader(buf, start), kindDesc('v1', 'Status')!, end, { ...this.#envelope });
    } else if (field === 3 && end > start) throw new ResponseDecodeError(`list response: unsupported content encoding "${buf.toString('utf8', start, end)}"`);
    else if (field === 4 && end > start && buf.toString('utf8', start, end) !== 'application/vnd.kubernetes.protobuf') {
      throw new ResponseDecodeError(`list response: unsupported content type "${buf.toString('utf8', start, end)}" in a protobuf envelope`);
    }
  }

  #listField(buf: Buffer, field: number, start: number, end: number, out: T[]): void {
    const r = new ProtoReader(buf, start, this.#interner, this.#parts);
    const items = this.#itemsField!;
    if (field === items.number) {
      const item = readMessage(r, items.msg, end, items.msg.create());
      if (this.#envelope.kind === 'PartialObjectMetadataList') withItemTypeMeta(item, this.#typeMeta.apiVersion);
      out.push(item as T);
      this.#itemCount++;
      return;
    }
    const f = this.#desc!.byNumber[field];
    if (f?.msg !== undefined && !f.repeated) this.#envelope[f.json] = readMessage(r, f.msg, end, {});
  }

  /** Finishes the body; returns kind, apiVersion and metadata. Throws when it was not a complete list. */
  end(): ListEnvelope {
    if (this.#phase !== envelope || this.#pendingLength > 0) {
      throw new ResponseDecodeError(`list response ended early, after ${this.#itemCount} item(s) (${this.#offset + this.#pendingLength} bytes read)`);
    }
    if (this.#envelope.kind === 'Status' || this.#status !== undefined) {
      const status = this.#status ?? {};
      if (isStatusObject(status) && status.status !== 'Success') throw new StatusError({ ...status, code: status.code ?? 500 } as Status);
    }
    if (this.#desc !== undefined && !('metadata' in this.#envelope)) this.#envelope.metadata = {};
    return this.#envelope;
  }
}
