/**
 * Encoding plain objects (the JSON form of built-in kinds) as Kubernetes protobuf, for request bodies
 * and for the embedded API server's answers. Written as gogo-protobuf writes Kubernetes' messages:
 * fields in number order, non-pointer fields always (zero values included), pointers and repeated
 * fields only when set, repeated scalars unpacked, map entries sorted by key, the special types in
 * their own messages (metav1.Time as seconds/nanos, resource.Quantity as its text, ...).
 *
 * Upstream: the gogo-generated `MarshalToSizedBuffer` methods of `generated.pb.go`, apimachinery's
 * `time_proto.go`, `micro_time_proto.go`, `quantity_proto.go`, `intstr.go` and
 * `runtime/serializer/protobuf/protobuf.go` (envelope, and the length-delimited framing of streams).
 */
import { KubeloomError } from '../../apimachinery/errors.ts';
import { Kind, Special, kindDesc, type FieldDesc, type MessageDesc } from './descriptors.ts';
import { protobufMagic } from './decode.ts';

type Obj = Record<string, unknown>;

/** An object that cannot be written as protobuf (no message for its kind). */
export class ProtobufEncodeError extends KubeloomError {
  constructor(message: string) {
    super('ERR_PROTOBUF_ENCODE', message);
  }
}

/** A growable output buffer with protobuf primitives. */
export class ProtoWriter {
  buf: Buffer = Buffer.allocUnsafe(1024);
  pos = 0;

  #ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A non-negative varint below 2^53 or a negative int64 (ten bytes, two's complement). */
  varint(v: number): void {
    this.#ensure(10);
    const b = this.buf;
    if (v >= 0 && v < 0x80000000) {
      while (v >= 0x80) {
        b[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      b[this.pos++] = v;
      return;
    }
    let n = BigInt.asUintN(64, BigInt(Math.trunc(v)));
    while (n >= 0x80n) {
      b[this.pos++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    b[this.pos++] = Number(n);
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  string(field: number, s: string): void {
    this.tag(field, 2);
    const len = Buffer.byteLength(s);
    this.varint(len);
    this.#ensure(len);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.#ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  double(field: number, v: number): void {
    this.tag(field, 1);
    this.#ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** Starts a length-delimited field; returns the mark {@link ProtoWriter.close} needs. */
  open(field: number): number {
    this.tag(field, 2);
    this.#ensure(1);
    // One byte is reserved for the length; longer lengths move the body.
    return this.pos++;
  }

  /** Ends the field opened at `mark`, writing its length. */
  close(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 0x80) {
      this.buf[mark] = len;
      return;
    }
    let size = 1;
    for (let v = len; v >= 0x80; v >>>= 7) size++;
    this.#ensure(size - 1);
    this.buf.copy(this.buf, mark + size, mark + 1, this.pos);
    let p = mark;
    let v = len;
    while (v >= 0x80) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
    this.pos += size - 1;
  }

  raw(b: Uint8Array): void {
    this.#ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A copy of what was written. */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go duration text (`1h2m3.5s`) → nanoseconds. */
function parseDuration(s: string): number {
  const units: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
  let total = 0;
  const sign = s.startsWith('-') ? -1 : 1;
  for (const m of s.replace(/^[-+]/, '').matchAll(/([0-9.]+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(m[1]) * units[m[2]!]!;
  return sign * Math.round(total);
}

function writeTime(w: ProtoWriter, v: unknown, micro: boolean): void {
  if (typeof v !== 'string') return;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return;
  const seconds = Math.floor(ms / 1000);
  // Go's zero time marshals as an empty message.
  if (seconds === -62135596800) return;
  w.tag(1, 0);
  w.varint(seconds);
  const fraction = /\.(\d+)/.exec(v)?.[1];
  const nanos = fraction === undefined ? 0 : Number(fraction.slice(0, 9).padEnd(9, '0'));
  w.tag(2, 0);
  w.varint(micro ? Math.floor(nanos / 1000) * 1000 : nanos);
}

function writeSpecial(w: ProtoWriter, desc: MessageDesc, v: unknown): void {
  switch (desc.special) {
    case Special.time:
    case Special.microTime:
      writeTime(w, v, desc.special === Special.microTime);
      return;
    case Special.quantity:
      w.string(1, typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '0');
      return;
    case Special.intOrString:
      w.tag(1, 0);
      w.varint(typeof v === 'string' ? 1 : 0);
      w.tag(2, 0);
      w.varint(typeof v === 'number' ? v : 0);
      w.string(3, typeof v === 'string' ? v : '');
      return;
    case Special.rawExtension:
    case Special.fieldsV1:
    case Special.json:
      if (v !== undefined && v !== null) w.bytes(1, Buffer.from(goEscapedJson(v)));
      return;
    case Special.duration:
      w.tag(1, 0);
      w.varint(typeof v === 'string' ? parseDuration(v) : 0);
      return;
    case Special.sliceWrapper:
      writeMessage(w, desc, { items: v });
      return;
    case Special.schemaOrArray:
      writeMessage(w, desc, Array.isArray(v) ? { jSONSchemas: v } : { schema: v });
      return;
    case Special.schemaOrBool:
      writeMessage(w, desc, typeof v === 'boolean' ? { allows: v } : { schema: v, allows: true });
      return;
    case Special.schemaOrStringArray:
      writeMessage(w, desc, Array.isArray(v) ? { property: v } : { schema: v });
      return;
  }
}

function writeScalar(w: ProtoWriter, f: FieldDesc, number: number, v: unknown): void {
  switch (f.kind) {
    case Kind.string:
      w.string(number, typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
      return;
    case Kind.bytes:
      w.bytes(number, typeof v === 'string' ? Buffer.from(v, 'base64') : new Uint8Array());
      return;
    case Kind.bool:
      w.tag(number, 0);
      w.varint(v === true ? 1 : 0);
      return;
    case Kind.double:
    case Kind.float:
      w.double(number, typeof v === 'number' ? v : 0);
      return;
    default:
      w.tag(number, 0);
      w.varint(typeof v === 'number' ? v : 0);
  }
}

function writeValue(w: ProtoWriter, f: FieldDesc, number: number, v: unknown): void {
  if (f.kind !== Kind.message) {
    writeScalar(w, f, number, v);
    return;
  }
  const mark = w.open(number);
  const desc = f.msg!;
  if (desc.special !== Special.none) writeSpecial(w, desc, v);
  else writeMessage(w, desc, isObj(v) ? v : {});
  w.close(mark);
}

/** Writes the fields of `obj` as message `desc` (without a length prefix). */
export function writeMessage(w: ProtoWriter, desc: MessageDesc, obj: Obj): void {
  for (const f of desc.ordered) {
    if (f.inline) {
      const mark = w.open(f.number);
      writeMessage(w, f.msg!, obj);
      w.close(mark);
      continue;
    }
    const v = obj[f.json];
    if (f.map) {
      if (!isObj(v)) continue;
      for (const k of Object.keys(v).sort()) {
        const mark = w.open(f.number);
        w.string(1, k);
        writeValue(w, f, 2, v[k]);
        w.close(mark);
      }
      continue;
    }
    if (f.repeated) {
      if (Array.isArray(v)) for (const x of v) writeValue(w, f, f.number, x);
      continue;
    }
    if (f.pointer && (v === undefined || v === null)) continue;
    writeValue(w, f, f.number, v);
  }
}

/** Writes the `k8s\0`-less runtime.Unknown of `obj` (kind and apiVersion from the object, or given). */
function writeUnknown(w: ProtoWriter, obj: Obj, apiVersion: string, kind: string): void {
  const desc = kindDesc(apiVersion, kind);
  if (desc === undefined) throw new ProtobufEncodeError(`${apiVersion === '' ? '' : `${apiVersion}, `}Kind=${kind} has no protobuf form`);
  const typeMeta = w.open(1);
  w.string(1, apiVersion);
  w.string(2, kind);
  w.close(typeMeta);
  const raw = w.open(2);
  writeMessage(w, desc, obj);
  w.close(raw);
  w.string(3, '');
  w.string(4, '');
}

/** Whether objects of this apiVersion and kind have a protobuf form. */
export function canEncodeProtobuf(apiVersion: string, kind: string): boolean {
  return kindDesc(apiVersion, kind) !== undefined;
}

function typeOf(obj: Obj): [string, string] {
  return [typeof obj.apiVersion === 'string' ? obj.apiVersion : '', typeof obj.kind === 'string' ? obj.kind : ''];
}

/**
 * Encodes an object (JSON form, with apiVersion and kind) as a protobuf body: `k8s\0` and the
 * runtime.Unknown envelope. Throws {@link ProtobufEncodeError} for kinds without a message.
 */
export function encodeProtobuf(obj: Record<string, unknown>): Buffer {
  const [apiVersion, kind] = typeOf(obj);
  const w = new ProtoWriter();
  w.raw(protobufMagic);
  writeUnknown(w, obj, apiVersion, kind);
  return w.finish();
}

/**
 * One frame of a protobuf watch stream: a 4-byte big-endian length, then the metav1.WatchEvent
 * message whose object holds the encoded object (`k8s\0` + Unknown), as kube-apiserver writes them.
 */
export function encodeProtobufWatchEvent(type: string, obj: Record<string, unknown>): Buffer {
  const w = new ProtoWriter();
  w.raw(new Uint8Array(4));
  w.string(1, type);
  const object = w.open(2);
  const raw = w.open(1);
  w.raw(protobufMagic);
  const [apiVersion, kind] = typeOf(obj);
  writeUnknown(w, obj, apiVersion, kind);
  w.close(raw);
  w.close(object);
  const out = w.finish();
  out.writeUInt32BE(out.length - 4, 0);
  return out;
}

/**
 * JSON text of an embedded raw value with Go's encoding/json escapes (`<`, `>`, `&`, U+2028, U+2029 as
 * `\u003c`…). kube-apiserver hands back a RawExtension's bytes as they were written, and Go clients write
 * these escapes: a ControllerRevision's data served with other bytes looks like another revision to
 * kube-controller-manager (history.EqualRevision compares the bytes) and it creates revisions without end.
 */
export function goEscapedJson(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
