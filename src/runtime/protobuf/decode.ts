/**
 * Decoding Kubernetes protobuf (`application/vnd.kubernetes.protobuf`) straight into the plain
 * objects JSON decoding gives: the `k8s\0` magic, the runtime.Unknown envelope, then the message walked
 * with the compiled model (descriptors.ts), writing each field under its JSON name as encoding/json
 * would write it — omitempty fields left out when zero, structs always present, nil slices and
 * pointers without omitempty as null, times as RFC 3339 strings, quantities as their canonical text,
 * int-or-string as a number or a string, byte slices in base64, raw extensions and fieldsV1 parsed
 * from the JSON they hold. No intermediate message objects are built.
 *
 * Upstream: apimachinery `pkg/runtime/serializer/protobuf/protobuf.go` (envelope), the gogo-generated
 * `Unmarshal` methods of `generated.pb.go`, and the JSON marshalers of the special types (see
 * descriptors.ts). Where Go would fail (unknown kind, bad wire type) a {@link ProtobufDecodeError} is
 * thrown; unknown field numbers are skipped, as gogo skips them.
 */
import { KubeloomError } from '../../apimachinery/errors.ts';
import { Kind, Special, kindDesc, metaDesc, type FieldDesc, type MessageDesc } from './descriptors.ts';

type Obj = Record<string, unknown>;

/** The media type of Kubernetes protobuf. */
export const protobufContentType = 'application/vnd.kubernetes.protobuf';

/** The 4 bytes before a protobuf-encoded object: `k8s\0`. */
export const protobufMagic: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A body or field that is not Kubernetes protobuf of a known kind. */
export class ProtobufDecodeError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_PROTOBUF_DECODE', message, options);
  }
}

/**
 * Shares decoded fieldsV1 values by their bytes (ManagedFieldsInterner implements it). It is called
 * for every fieldsV1 the decoder meets, so its lookup should not copy the bytes (a hash of a sample
 * verified byte for byte, as ManagedFieldsInterner does).
 */
export interface FieldsV1Interner {
  /** The (frozen, shared) value of the JSON in `buf[start, end)`. */
  internBytes(buf: Buffer, start: number, end: number): unknown;
}

/**
 * Decodes a message value the decoder meets inside an object, possibly sharing an earlier decoded
 * value for the same bytes (PartInterner implements it). Called for every embedded message that is
 * not a special type; it must leave the reader at `end`.
 */
export interface MessagePartDecoder {
  /** The value of the `desc` message in `[r.pos, end)`. */
  part(r: ProtoReader, desc: MessageDesc, end: number): unknown;
}

/** Options of the decoding functions. */
export interface ProtobufDecodeOptions {
  /** Shares managedFields' fieldsV1 values between objects (default: each object gets its own). */
  interner?: FieldsV1Interner;
}

const two32 = 4294967296;

/** Node's Buffer with the native slice methods its toString() dispatches to (no argument checks). */
export type FastBuffer = Buffer & {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
  base64Slice(start: number, end: number): string;
};

function asBuffer(b: Uint8Array): FastBuffer {
  return (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)) as FastBuffer;
}

/**
 * A cursor over one buffer. The decode functions below take it with an end offset: a message is the
 * bytes between the cursor and `end`.
 */
export class ProtoReader {
  buf: FastBuffer;
  pos: number;
  interner: FieldsV1Interner | undefined;
  /** Decodes the embedded messages (see {@link MessagePartDecoder}); undefined: each is decoded afresh. */
  parts: MessagePartDecoder | undefined;

  constructor(buf: Uint8Array, pos = 0, interner?: FieldsV1Interner, parts?: MessagePartDecoder) {
    this.buf = asBuffer(buf);
    this.pos = pos;
    this.interner = interner;
    this.parts = parts;
  }

  /** A varint of at most 32 bits (tags, lengths, int32, enums); int32's 10-byte negatives included. */
  uint32(): number {
    const b = this.buf;
    let p = this.pos;
    let c = b[p++]!;
    let v = c & 0x7f;
    if (c >= 0x80) {
      c = b[p++]!;
      v |= (c & 0x7f) << 7;
      if (c >= 0x80) {
        c = b[p++]!;
        v |= (c & 0x7f) << 14;
        if (c >= 0x80) {
          c = b[p++]!;
          v |= (c & 0x7f) << 21;
          if (c >= 0x80) {
            c = b[p++]!;
            v |= c << 28;
            // The upper bytes of a sign-extended negative int32.
            while (c >= 0x80) {
              if (p >= b.length) throw new ProtobufDecodeError('truncated varint');
              c = b[p++]!;
            }
          }
        }
      }
    }
    if (p > b.length) throw new ProtobufDecodeError('truncated varint');
    this.pos = p;
    return v >>> 0;
  }

  /** A varint read as a signed 64-bit integer, as a number (exact up to 2^53). */
  int64(): number {
    const b = this.buf;
    let p = this.pos;
    let lo = 0;
    let hi = 0;
    let c = 0;
    let shift = 0;
    for (; shift < 28; shift += 7) {
      c = b[p++]!;
      lo |= (c & 0x7f) << shift;
      if (c < 0x80) {
        if (p > b.length) throw new ProtobufDecodeError('truncated varint');
        this.pos = p;
        return lo >>> 0;
      }
    }
    c = b[p++]!;
    lo |= (c & 0x0f) << 28;
    hi = (c & 0x7f) >> 4;
    if (c >= 0x80) {
      for (shift = 3; shift < 32; shift += 7) {
        c = b[p++]!;
        hi |= (c & 0x7f) << shift;
        if (c < 0x80) break;
      }
      if (c >= 0x80) throw new ProtobufDecodeError('varint too long');
    }
    if (p > b.length) throw new ProtobufDecodeError('truncated varint');
    this.pos = p;
    if (hi & 0x80000000) return -((~hi >>> 0) * two32 + (~lo >>> 0) + 1);
    return (hi >>> 0) * two32 + (lo >>> 0);
  }

  /** The end offset of a length-delimited field starting at the cursor (the cursor moves past the length). */
  end(limit: number): number {
    const len = this.uint32();
    const e = this.pos + len;
    if (e > limit) throw new ProtobufDecodeError('truncated message');
    return e;
  }

  string(limit: number): string {
    const e = this.end(limit);
    const s = this.pos;
    this.pos = e;
    if (e - s <= maxInternedLength) return shortString(this.buf, s, e);
    return this.buf.utf8Slice(s, e);
  }

  skip(wire: number, limit: number): void {
    if (wire === 0) this.int64();
    else if (wire === 2) this.pos = this.end(limit);
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    if (this.pos > limit) throw new ProtobufDecodeError('truncated message');
  }
}


// ---------------------------------------------------------------------------------------------------
// Short strings

/**
 * Short ASCII strings (label keys and values, enum-like values, field names of managedFields, ...)
 * repeat from object to object. They are looked up in a direct-mapped table by a hash of their bytes
 * and verified: a hit costs a hash and a compare instead of a native call and a new string, and the
 * decoded objects share one copy of each, which also saves memory.
 */
const maxInternedLength = 40;
const internSlots = 8192;
const internTable: Array<string | undefined> = new Array<string | undefined>(internSlots).fill(undefined);

function shortString(buf: FastBuffer, s: number, e: number): string {
  if (s === e) return '';
  let h = e - s;
  for (let i = s; i < e; i++) {
    const c = buf[i]!;
    if (c >= 0x80) return buf.utf8Slice(s, e);
    h = (Math.imul(h, 31) + c) | 0;
  }
  const slot = h & (internSlots - 1);
  const hit = internTable[slot];
  if (hit !== undefined && hit.length === e - s) {
    let same = true;
    for (let i = 0; i < hit.length; i++) {
      if (hit.charCodeAt(i) !== buf[s + i]) {
        same = false;
        break;
      }
    }
    if (same) return hit;
  }
  const str = buf.latin1Slice(s, e);
  internTable[slot] = str;
  return str;
}

// ---------------------------------------------------------------------------------------------------
// Special messages

const timeTexts = new Map<number, string>();

/** metav1.Time's JSON: RFC 3339 in UTC, whole seconds; the zero time (empty message) is null. */
function readTime(r: ProtoReader, end: number, micro: boolean): string | null {
  if (r.pos === end) return null;
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 8) seconds = r.int64();
    else if (tag === 16) nanos = r.uint32() | 0;
    else r.skip(tag & 7, end);
  }
  // Go's zero time.Time (0001-01-01T00:00:00Z) marshals as null.
  if (seconds === -62135596800 && nanos === 0) return null;
  // Objects of a list share their timestamps more often than not: formatted ones are remembered.
  if (!micro) {
    let text = timeTexts.get(seconds);
    if (text === undefined) {
      if (timeTexts.size >= 4096) timeTexts.clear();
      text = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
      timeTexts.set(seconds, text);
    }
    return text;
  }
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** Go's time.Duration.String() of a count of nanoseconds (metav1.Duration's JSON). */
export function formatDurationNanos(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  const u = Math.abs(ns);
  const fraction = (value: number, digits: number): string => {
    const whole = Math.floor(value / 10 ** digits);
    const rest = String(value % 10 ** digits).padStart(digits, '0').replace(/0+$/, '');
    return rest === '' ? String(whole) : `${whole}.${rest}`;
  };
  if (u < 1e3) return `${sign}${u}ns`;
  if (u < 1e6) return `${sign}${fraction(u, 3)}µs`;
  if (u < 1e9) return `${sign}${fraction(u, 6)}ms`;
  const h = Math.floor(u / 3.6e12);
  const m = Math.floor((u % 3.6e12) / 6e10);
  const s = fraction(u % 6e10, 9);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/** JSON.parse of `buf[start, end)`; an empty value is null (a nil RawExtension / JSON). */
function parseJson(r: ProtoReader, start: number, end: number): unknown {
  if (start === end) return null;
  const b = r.buf;
  // A RawExtension may hold an embedded protobuf object (watch events, lists of runtime.Object).
  if (end - start >= 4 && b[start] === 0x6b && b[start + 1] === 0x38 && b[start + 2] === 0x73 && b[start + 3] === 0) {
    return decodeObjectAt(b, start, end, r.interner);
  }
  try {
    return JSON.parse(b.utf8Slice(start, end)) as unknown;
  } catch (err) {
    throw new ProtobufDecodeError('a raw extension holds neither JSON nor protobuf', { cause: err });
  }
}

/** The bytes of field 1 of the message (RawExtension.raw, FieldsV1.Raw, JSON.raw), as [start, end). */
function rawField(r: ProtoReader, end: number): [number, number] {
  let s = 0;
  let e = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) {
      e = r.end(end);
      s = r.pos;
      r.pos = e;
    } else r.skip(tag & 7, end);
  }
  return [s, e];
}

function readSpecial(r: ProtoReader, desc: MessageDesc, end: number): unknown {
  switch (desc.special) {
    case Special.time:
      return readTime(r, end, false);
    case Special.microTime:
      return readTime(r, end, true);
    case Special.quantity: {
      // resource.Quantity's text is written canonical by the server (Quantity.String()).
      let s = '0';
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 10) s = r.string(end);
        else r.skip(tag & 7, end);
      }
      return s;
    }
    case Special.intOrString: {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 8) type = r.int64();
        else if (tag === 16) intVal = r.uint32() | 0;
        else if (tag === 26) strVal = r.string(end);
        else r.skip(tag & 7, end);
      }
      return type === 1 ? strVal : intVal;
    }
    case Special.fieldsV1: {
      const [s, e] = rawField(r, end);
      if (s === e) return null;
      return r.interner !== undefined ? r.interner.internBytes(r.buf, s, e) : parseJson(r, s, e);
    }
    case Special.rawExtension:
    case Special.json: {
      const [s, e] = rawField(r, end);
      return parseJson(r, s, e);
    }
    case Special.duration: {
      let ns = 0;
      while (r.pos < end) {
        const tag = r.uint32();
        if (tag === 8) ns = r.int64();
        else r.skip(tag & 7, end);
      }
      return formatDurationNanos(ns);
    }
    case Special.sliceWrapper: {
      const items = readMessage(r, desc, end, {}).items;
      return items ?? null;
    }
    default: {
      // JSONSchemaPropsOr{Array,Bool,StringArray}: the schema when set, else the other form.
      const o = readMessage(r, desc, end, {});
      const [schemaField, other] =
        desc.special === Special.schemaOrArray ? ['schema', 'jSONSchemas'] : desc.special === Special.schemaOrBool ? ['schema', 'allows'] : ['schema', 'property'];
      if (o[schemaField] !== undefined && o[schemaField] !== null) return o[schemaField];
      return o[other] ?? (desc.special === Special.schemaOrBool ? false : null);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Messages

/** A message's value: a plain object, or the JSON form of a special type. */
export function readMessageValue(r: ProtoReader, desc: MessageDesc, end: number): unknown {
  if (desc.special !== Special.none) return readSpecial(r, desc, end);
  const parts = r.parts;
  if (parts !== undefined) return parts.part(r, desc, end);
  return readMessage(r, desc, end, desc.create());
}

function readScalar(r: ProtoReader, f: FieldDesc, wire: number, end: number): unknown {
  switch (f.kind) {
    case Kind.string:
      return r.string(end);
    case Kind.int32:
      return r.uint32() | 0;
    case Kind.int64:
      return r.int64();
    case Kind.bool:
      return r.int64() !== 0;
    case Kind.uint:
      return r.int64();
    case Kind.bytes: {
      const e = r.end(end);
      const s = r.pos;
      r.pos = e;
      return r.buf.base64Slice(s, e);
    }
    case Kind.double: {
      const v = r.buf.readDoubleLE(r.pos);
      r.pos += 8;
      return v;
    }
    case Kind.float: {
      const v = r.buf.readFloatLE(r.pos);
      r.pos += 4;
      return v;
    }
    case Kind.fixed32: {
      const v = r.buf.readUInt32LE(r.pos);
      r.pos += 4;
      return v;
    }
    case Kind.fixed64: {
      const v = Number(r.buf.readBigInt64LE(r.pos));
      r.pos += 8;
      return v;
    }
  }
  throw new ProtobufDecodeError(`field ${f.json}: unexpected wire type ${wire}`);
}

function readMapEntry(r: ProtoReader, f: FieldDesc, end: number, map: Obj): void {
  let key = '';
  let value: unknown;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) key = r.string(end);
    else if (tag >>> 3 === 2) {
      if (f.kind === Kind.message) {
        const e = r.end(end);
        value = readMessageValue(r, f.msg!, e);
        r.pos = e;
      } else value = readScalar(r, f, tag & 7, end);
    } else r.skip(tag & 7, end);
  }
  map[key] = value ?? absentScalar(f);
}

function absentScalar(f: FieldDesc): unknown {
  switch (f.kind) {
    case Kind.string:
    case Kind.bytes:
      return '';
    case Kind.bool:
      return false;
    case Kind.message:
      return emptyValue(f.msg!);
    default:
      return 0;
  }
}

const emptyBuffer = Buffer.alloc(0);

/** The JSON of a message with no field set (a Go zero struct). */
function emptyValue(desc: MessageDesc): unknown {
  return readMessageValue(new ProtoReader(emptyBuffer), desc, 0);
}

/** The JSON value of a field absent from the wire, as Go writes its zero value. */
function absentValue(owner: MessageDesc, f: FieldDesc): unknown {
  if (f.repeated || f.map) return owner.isList && f.json === 'items' ? [] : null;
  if (f.pointer) return null;
  return absentScalar(f);
}

/** Decodes the message in `[r.pos, end)` into `out` (fields of inlined structs included). */
export function readMessage(r: ProtoReader, desc: MessageDesc, end: number, out: Obj): Obj {
  const byNumber = desc.byNumber;
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    const f = byNumber[tag >>> 3];
    if (f === undefined) {
      r.skip(wire, end);
      continue;
    }
    if (f.kind === Kind.message || f.map) {
      if (wire !== 2) throw new ProtobufDecodeError(`field ${f.json}: unexpected wire type ${wire}`);
      const e = r.end(end);
      if (f.map) {
        let map = out[f.json] as Obj | undefined;
        if (map === undefined) out[f.json] = map = f.createMap!();
        readMapEntry(r, f, e, map);
      } else if (f.inline) {
        readMessage(r, f.msg!, e, out);
      } else {
        const v = readMessageValue(r, f.msg!, e);
        if (f.repeated) {
          const list = out[f.json] as unknown[] | undefined;
          if (list === undefined) out[f.json] = [v];
          else list.push(v);
        } else out[f.json] = v;
      }
      r.pos = e;
      continue;
    }
    if (f.repeated) {
      let list = out[f.json] as unknown[] | undefined;
      if (list === undefined) out[f.json] = list = [];
      if (wire === 2 && f.wire !== 2) {
        // Packed scalars.
        const e = r.end(end);
        while (r.pos < e) list.push(readScalar(r, f, f.wire, e));
        continue;
      }
      list.push(readScalar(r, f, wire, end));
      continue;
    }
    if (wire !== f.wire) throw new ProtobufDecodeError(`field ${f.json}: unexpected wire type ${wire}`);
    const v = readScalar(r, f, wire, end);
    if (f.omitZero && (v === '' || v === 0 || v === false)) continue;
    out[f.json] = v;
  }
  if (r.pos !== end) throw new ProtobufDecodeError('truncated message');
  // Arrays grown by push keep spare capacity (at least 17 slots past the first element); JSON.parse's are exact.
  const lists = desc.lists;
  for (let i = 0; i < lists.length; i++) {
    const list = out[lists[i]!.json] as unknown[] | undefined;
    if (list !== undefined && list.length > 1) out[lists[i]!.json] = list.slice();
  }
  const fill = desc.fill;
  for (let i = 0; i < fill.length; i++) {
    const f = fill[i]!;
    if (out[f.json] === undefined) out[f.json] = absentValue(desc, f);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The envelope

/** What runtime.Unknown says about its payload. */
export interface UnknownEnvelope {
  /** typeMeta.apiVersion. */
  apiVersion: string;
  /** typeMeta.kind. */
  kind: string;
  /** Start of `raw` in the buffer. */
  rawStart: number;
  /** End of `raw`. */
  rawEnd: number;
  /** contentEncoding ('' for none). */
  contentEncoding: string;
  /** contentType ('' for protobuf). */
  contentType: string;
}

/** Reads the TypeMeta message (runtime.TypeMeta) in `[r.pos, end)`. */
export function readTypeMeta(r: ProtoReader, end: number, into: { apiVersion: string; kind: string }): void {
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) into.apiVersion = r.string(end);
    else if (tag === 18) into.kind = r.string(end);
    else r.skip(tag & 7, end);
  }
}

/** Reads a runtime.Unknown (without the magic) in `[start, end)`. */
export function readUnknown(buf: Uint8Array, start: number, end: number): UnknownEnvelope {
  const r = new ProtoReader(buf, start);
  const u: UnknownEnvelope = { apiVersion: '', kind: '', rawStart: start, rawEnd: start, contentEncoding: '', contentType: '' };
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) {
      const e = r.end(end);
      readTypeMeta(r, e, u);
      r.pos = e;
    } else if (tag === 18) {
      u.rawEnd = r.end(end);
      u.rawStart = r.pos;
      r.pos = u.rawEnd;
    } else if (tag === 26) u.contentEncoding = r.string(end);
    else if (tag === 34) u.contentType = r.string(end);
    else r.skip(tag & 7, end);
  }
  if (r.pos !== end) throw new ProtobufDecodeError('truncated envelope');
  return u;
}

/** True when `buf` starts with the `k8s\0` magic. */
export function hasProtobufMagic(buf: Uint8Array, start = 0): boolean {
  return buf.length - start >= 4 && buf[start] === 0x6b && buf[start + 1] === 0x38 && buf[start + 2] === 0x73 && buf[start + 3] === 0;
}

/** The object in an Unknown envelope whose payload is `[u.rawStart, u.rawEnd)` of `buf`. */
export function decodeUnknownPayload(buf: Uint8Array, u: UnknownEnvelope, interner?: FieldsV1Interner): Obj {
  if (u.contentEncoding !== '') throw new ProtobufDecodeError(`unsupported content encoding "${u.contentEncoding}"`);
  const r = new ProtoReader(buf, u.rawStart, interner);
  if (u.contentType !== '' && u.contentType !== protobufContentType) {
    if (u.contentType === 'application/json') return parseJson(r, u.rawStart, u.rawEnd) as Obj;
    throw new ProtobufDecodeError(`unsupported content type "${u.contentType}" in a protobuf envelope`);
  }
  const desc = kindDesc(u.apiVersion, u.kind);
  if (desc === undefined) throw new ProtobufDecodeError(`no protobuf message is known for kind "${u.kind}" of "${u.apiVersion}"`);
  const out: Obj = { kind: u.kind, apiVersion: u.apiVersion };
  readMessage(r, desc, u.rawEnd, out);
  if (u.kind === 'PartialObjectMetadataList') for (const item of out.items as Obj[]) withItemTypeMeta(item, u.apiVersion);
  return out;
}

/**
 * The TypeMeta of a PartialObjectMetadataList's item, which its JSON carries (the items of typed lists
 * do not) but protobuf cannot: the message has no TypeMeta field.
 */
export function withItemTypeMeta(item: Obj, apiVersion: string): void {
  item.kind = 'PartialObjectMetadata';
  item.apiVersion = apiVersion;
}

function decodeObjectAt(buf: Uint8Array, start: number, end: number, interner?: FieldsV1Interner): Obj {
  if (!hasProtobufMagic(buf, start)) throw new ProtobufDecodeError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  return decodeUnknownPayload(buf, readUnknown(buf, start + 4, end), interner);
}

/**
 * Decodes a whole protobuf body (`k8s\0` + runtime.Unknown) into the object JSON decoding gives,
 * with `kind` and `apiVersion` from the envelope.
 *
 * @example
 * const pod = decodeProtobuf(body) as Pod;
 */
export function decodeProtobuf(body: Uint8Array, options: ProtobufDecodeOptions = {}): Record<string, unknown> {
  return decodeObjectAt(body, 0, body.length, options.interner);
}

/** A meta.k8s.io/v1 message (ListMeta, Status, ...) in `[start, end)` of `buf`. */
export function decodeMetaMessage(buf: Uint8Array, start: number, end: number, name: string): Obj {
  return readMessage(new ProtoReader(buf, start), metaDesc(name), end, {});
}
