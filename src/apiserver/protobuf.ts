/**
 * Kubernetes protobuf (`application/vnd.kubernetes.protobuf`): the `k8s\0` magic followed by a
 * runtime.Unknown envelope (typeMeta, raw, contentEncoding, contentType) whose `raw` is the object's
 * message. Every built-in kind of the scheme is read and written from one table of field numbers and
 * types (schema/go-types.ts, from upstream's struct tags and generated.proto), not per kind.
 *
 * Decoding yields the JSON form of the object (which the server then decodes into its Go shape like any
 * JSON body); encoding takes the stored JSON form. Field rules follow gogo-protobuf as Kubernetes uses
 * it: non-pointer fields are always written, pointers only when set, map entries sorted by key, repeated
 * scalars unpacked (packed ones are read too).
 *
 * Upstream: `apimachinery/pkg/runtime/serializer/protobuf/protobuf.go`, `apimachinery/pkg/runtime/types_proto.go`,
 * the `generated.proto` files of k8s.io/api, and the custom messages of resource.Quantity,
 * intstr.IntOrString, metav1.Time, metav1.MicroTime, metav1.Duration and runtime.RawExtension.
 */
import { goStruct, structOfKind, type GoField, type GoStruct, type GoType } from './schema/scheme.ts';
import { goEscapedJson } from '../runtime/protobuf/encode.ts';

type Obj = Record<string, unknown>;

/** Thrown for bodies that are not Kubernetes protobuf of a kind in the scheme. */
export class ProtobufDecodeError extends Error {
  readonly code = 'ERR_PROTOBUF_DECODE';
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

/** Thrown when an object cannot be written as protobuf (its kind is not in the scheme). */
export class ProtobufEncodeError extends Error {
  readonly code = 'ERR_PROTOBUF_ENCODE';
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufEncodeError';
  }
}

/** The media type of Kubernetes protobuf. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

const magic = [0x6b, 0x38, 0x73, 0x00];

// ---------------------------------------------------------------------------------------------------
// Reading

class Reader {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;
  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  /** A varint as a BigInt (64 bits, two's complement for negative int32/int64). */
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new ProtobufDecodeError('varint too long');
  }

  small(): number {
    return Number(this.varint());
  }

  bytes(): Uint8Array {
    const len = this.small();
    if (this.pos + len > this.end) throw new ProtobufDecodeError('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  fixed64(): Uint8Array {
    if (this.pos + 8 > this.end) throw new ProtobufDecodeError('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + 8);
    this.pos += 8;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new ProtobufDecodeError(`unsupported wire type ${wireType}`);
    if (this.pos > this.end) throw new ProtobufDecodeError('truncated field');
  }

  /** Every field of the message as (number, wire type) → handler. */
  each(fn: (field: number, wire: number) => void): void {
    while (this.pos < this.end) {
      const tag = this.small();
      fn(Math.floor(tag / 8), tag & 7);
    }
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(b: Uint8Array): string {
  try {
    return utf8.decode(b);
  } catch {
    throw new ProtobufDecodeError('invalid UTF-8 in a string field');
  }
}

/** A 64-bit varint as a signed number. */
function signed(v: bigint): number {
  return Number(BigInt.asIntN(64, v));
}

/** Go's time.Duration.String() of nanoseconds. */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = Math.abs(ns);
  let out: string;
  if (u < 1e9) {
    const units: Array<[number, string]> = [
      [1e6, 'ms'],
      [1e3, 'µs'],
      [1, 'ns'],
    ];
    const [size, name] = units.find(([s]) => u >= s) ?? [1, 'ns'];
    out = `${trimFraction(u / size)}${name}`;
  } else {
    const h = Math.floor(u / 3.6e12);
    u -= h * 3.6e12;
    const m = Math.floor(u / 6e10);
    u -= m * 6e10;
    const s = trimFraction(u / 1e9);
    out = h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
  }
  return neg ? `-${out}` : out;
}

function trimFraction(n: number): string {
  return String(Number(n.toFixed(9)));
}

function expectWire(f: GoField | { json: string }, wire: number, want: number): void {
  if (wire !== want) throw new ProtobufDecodeError(`field ${f.json}: unexpected wire type ${wire}`);
}

function timeOf(b: Uint8Array, micro: boolean): string | null {
  const r = new Reader(b);
  // metav1.Time marshals the zero time as an empty message.
  if (b.length === 0) return null;
  let seconds = 0;
  let nanos = 0;
  r.each((field, wire) => {
    if (field === 1 && wire === 0) seconds = signed(r.varint());
    else if (field === 2 && wire === 0) nanos = signed(r.varint());
    else r.skip(wire);
  });
  // Go's zero time.Time (year 1) is written as -62135596800 seconds; it means "unset".
  if (seconds <= -62135596800) return null;
  const iso = new Date(seconds * 1000).toISOString();
  return micro ? `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso.slice(0, 19)}Z`;
}

function specialMessage(name: string, b: Uint8Array): unknown {
  const r = new Reader(b);
  switch (name) {
    case 'Quantity': {
      let s = '0';
      r.each((field, wire) => (field === 1 && wire === 2 ? (s = text(r.bytes())) : r.skip(wire)));
      return s;
    }
    case 'IntOrString': {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      r.each((field, wire) => {
        if (field === 1 && wire === 0) type = signed(r.varint());
        else if (field === 2 && wire === 0) intVal = signed(r.varint());
        else if (field === 3 && wire === 2) strVal = text(r.bytes());
        else r.skip(wire);
      });
      return type === 1 ? strVal : intVal;
    }
    case 'Time':
    case 'MicroTime':
      return timeOf(b, name === 'MicroTime');
    case 'Duration': {
      let ns = 0;
      r.each((field, wire) => (field === 1 && wire === 0 ? (ns = signed(r.varint())) : r.skip(wire)));
      return formatGoDuration(ns);
    }
    case 'RawExtension':
    case 'FieldsV1': {
      let raw: Uint8Array = new Uint8Array();
      r.each((field, wire) => (field === 1 && wire === 2 ? (raw = r.bytes()) : r.skip(wire)));
      if (raw.length === 0) return null;
      try {
        return JSON.parse(text(raw)) as unknown;
      } catch {
        throw new ProtobufDecodeError(`field of type ${name}: the embedded JSON is malformed`);
      }
    }
  }
  throw new ProtobufDecodeError(`no message form for ${name}`);
}

/** One value of type `t` read from the wire (a list element when `t` is a list's element type). */
function readValue(t: GoType, f: GoField, r: Reader, wire: number): unknown {
  if (t.kind === 'struct') {
    expectWire(f, wire, 2);
    return readStruct(goStruct(t.name)!, r.bytes());
  }
  if (t.kind !== 'scalar') throw new ProtobufDecodeError(`field ${f.json}: nested collections are not in the scheme`);
  switch (t.name) {
    case 'string':
      expectWire(f, wire, 2);
      return text(r.bytes());
    case 'bytes':
      expectWire(f, wire, 2);
      return Buffer.from(r.bytes()).toString('base64');
    case 'bool':
      expectWire(f, wire, 0);
      return r.varint() !== 0n;
    case 'int32':
    case 'int64':
      expectWire(f, wire, 0);
      return signed(r.varint());
    case 'float64':
      expectWire(f, wire, 1);
      return Buffer.from(r.fixed64()).readDoubleLE(0);
    default:
      expectWire(f, wire, 2);
      return specialMessage(t.name, r.bytes());
  }
}

function readMapEntry(f: GoField, valueType: GoType, b: Uint8Array): [string, unknown] {
  const r = new Reader(b);
  let key = '';
  let value: unknown;
  r.each((field, wire) => {
    if (field === 1) {
      expectWire(f, wire, 2);
      key = text(r.bytes());
    } else if (field === 2) value = readValue(valueType, f, r, wire);
    else r.skip(wire);
  });
  return [key, value];
}

function readStruct(s: GoStruct, b: Uint8Array): Obj {
  const out: Obj = {};
  // Inlined structs keep their own field number on the wire.
  const byNumber = new Map<number, GoField>();
  for (const f of s.fields) if (f.number > 0) byNumber.set(f.number, f);
  const r = new Reader(b);
  r.each((number, wire) => {
    const f = byNumber.get(number);
    if (f === undefined) {
      r.skip(wire);
      return;
    }
    if (f.inline && f.type.kind === 'struct') {
      expectWire(f, wire, 2);
      Object.assign(out, readStruct(goStruct(f.type.name)!, r.bytes()));
      return;
    }
    const t = f.type;
    if (t.kind === 'list') {
      const list = (out[f.json] as unknown[] | undefined) ?? (out[f.json] = []);
      // Packed repeated scalars.
      if (wire === 2 && t.of.kind === 'scalar' && ['int32', 'int64', 'bool'].includes(t.of.name)) {
        const inner = new Reader(r.bytes());
        while (inner.pos < inner.end) list.push(t.of.name === 'bool' ? inner.varint() !== 0n : signed(inner.varint()));
        return;
      }
      list.push(readValue(t.of, f, r, wire));
      return;
    }
    if (t.kind === 'map') {
      expectWire(f, wire, 2);
      const [k, v] = readMapEntry(f, t.of, r.bytes());
      const map = (out[f.json] as Obj | undefined) ?? (out[f.json] = {});
      map[k] = v;
      return;
    }
    out[f.json] = readValue(t, f, r, wire);
  });
  return out;
}

/** The envelope of a protobuf body: its type and raw message. */
export interface Unknown {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

/** Reads the `k8s\0` prefix and the runtime.Unknown envelope. */
export function readEnvelope(body: Uint8Array): Unknown {
  if (body.length < 4 || magic.some((m, i) => body[i] !== m)) throw new ProtobufDecodeError('missing the k8s protobuf prefix');
  const r = new Reader(body, 4);
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array();
  r.each((field, wire) => {
    if (field === 1 && wire === 2) {
      const tm = new Reader(r.bytes());
      tm.each((f2, w2) => {
        if (f2 === 1 && w2 === 2) apiVersion = text(tm.bytes());
        else if (f2 === 2 && w2 === 2) kind = text(tm.bytes());
        else tm.skip(w2);
      });
    } else if (field === 2 && wire === 2) raw = r.bytes();
    else r.skip(wire);
  });
  return { apiVersion, kind, raw };
}

/**
 * Decodes a protobuf body into the object's JSON form (apiVersion and kind from the envelope). Throws
 * {@link ProtobufDecodeError} for anything else than a kind of the scheme in a well-formed envelope.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): Obj {
  const { apiVersion, kind, raw } = readEnvelope(body);
  const s = structOfKind(apiVersion, kind);
  if (s === undefined) throw new ProtobufDecodeError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  return { apiVersion, kind, ...readStruct(s, raw) };
}

// ---------------------------------------------------------------------------------------------------
// Writing

/** A protobuf message writer (varints, length-delimited fields, doubles). */
export class Writer {
  readonly #chunks: number[] = [];

  varint(v: bigint | number): void {
    let n = BigInt.asUintN(64, BigInt(v));
    while (n >= 0x80n) {
      this.#chunks.push(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.#chunks.push(Number(n));
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, b: Uint8Array | number[]): void {
    this.tag(field, 2);
    this.varint(b.length);
    for (const x of b) this.#chunks.push(x);
  }

  string(field: number, s: string): void {
    this.bytes(field, Buffer.from(s, 'utf8'));
  }

  double(field: number, v: number): void {
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    for (const x of b) this.#chunks.push(x);
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.#chunks);
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go duration text → nanoseconds. */
function parseGoDuration(s: string): number {
  const units: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
  let total = 0;
  const sign = s.startsWith('-') ? -1 : 1;
  for (const m of s.replace(/^[-+]/, '').matchAll(/([0-9.]+)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * units[m[2]!]!;
  return sign * Math.round(total);
}

function specialBytes(name: string, v: unknown): Uint8Array {
  const w = new Writer();
  switch (name) {
    case 'Quantity':
      w.string(1, String(v));
      break;
    case 'IntOrString':
      if (typeof v === 'string') {
        w.tag(1, 0);
        w.varint(1);
        w.tag(2, 0);
        w.varint(0);
        w.string(3, v);
      } else {
        w.tag(1, 0);
        w.varint(0);
        w.tag(2, 0);
        w.varint(typeof v === 'number' ? v : 0);
        w.string(3, '');
      }
      break;
    case 'Time':
    case 'MicroTime': {
      const ms = typeof v === 'string' ? Date.parse(v) : NaN;
      const micros = typeof v === 'string' ? /\.(\d{1,6})/.exec(v)?.[1] : undefined;
      w.tag(1, 0);
      w.varint(Number.isNaN(ms) ? -62135596800 : Math.floor(ms / 1000));
      w.tag(2, 0);
      w.varint(micros === undefined ? 0 : Number(micros.padEnd(6, '0')) * 1000);
      break;
    }
    case 'Duration':
      w.tag(1, 0);
      w.varint(typeof v === 'string' ? parseGoDuration(v) : 0);
      break;
    case 'RawExtension':
    case 'FieldsV1':
      w.bytes(1, v === null || v === undefined ? [] : Buffer.from(goEscapedJson(v)));
      break;
  }
  return w.finish();
}

function writeValue(w: Writer, number: number, t: GoType, v: unknown): void {
  if (t.kind === 'struct') {
    w.bytes(number, writeStruct(goStruct(t.name)!, isObj(v) ? v : {}));
    return;
  }
  if (t.kind !== 'scalar') return;
  switch (t.name) {
    case 'string':
      w.string(number, typeof v === 'string' ? v : '');
      return;
    case 'bytes':
      w.bytes(number, typeof v === 'string' ? Buffer.from(v, 'base64') : []);
      return;
    case 'bool':
      w.tag(number, 0);
      w.varint(v === true ? 1 : 0);
      return;
    case 'int32':
    case 'int64':
      w.tag(number, 0);
      w.varint(typeof v === 'number' ? v : 0);
      return;
    case 'float64':
      w.double(number, typeof v === 'number' ? v : 0);
      return;
    default:
      w.bytes(number, specialBytes(t.name, v));
  }
}

function writeStruct(s: GoStruct, obj: Obj): Uint8Array {
  const w = new Writer();
  const fields = [...s.fields].filter((f) => f.number > 0).sort((a, b) => a.number - b.number);
  for (const f of fields) {
    if (f.inline && f.type.kind === 'struct') {
      w.bytes(f.number, writeStruct(goStruct(f.type.name)!, obj));
      continue;
    }
    const v = obj[f.json];
    const t = f.type;
    if (t.kind === 'list') {
      if (Array.isArray(v)) for (const x of v) writeValue(w, f.number, t.of, x);
      continue;
    }
    if (t.kind === 'map') {
      if (!isObj(v)) continue;
      for (const k of Object.keys(v).sort()) {
        const entry = new Writer();
        entry.string(1, k);
        writeValue(entry, 2, t.of, v[k]);
        w.bytes(f.number, entry.finish());
      }
      continue;
    }
    // Pointers are written only when set; everything else always, as gogo-protobuf does.
    if (f.pointer && (v === undefined || v === null)) continue;
    writeValue(w, f.number, t, v);
  }
  return w.finish();
}

/** Whether an object of this apiVersion/kind can be written as protobuf. */
export function canEncodeProtobuf(apiVersion: string, kind: string): boolean {
  return structOfKind(apiVersion, kind) !== undefined;
}

/** Encodes an object (its JSON form, with apiVersion and kind) as a `k8s\0` protobuf envelope. */
export function encodeKubernetesProtobuf(obj: Obj): Uint8Array {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const s = structOfKind(apiVersion, kind);
  if (s === undefined) throw new ProtobufEncodeError(`${apiVersion}/${kind} has no protobuf form`);
  const typeMeta = new Writer();
  typeMeta.string(1, apiVersion);
  typeMeta.string(2, kind);
  const envelope = new Writer();
  envelope.bytes(1, typeMeta.finish());
  envelope.bytes(2, writeStruct(s, obj));
  envelope.string(3, '');
  envelope.string(4, '');
  const body = envelope.finish();
  const out = new Uint8Array(4 + body.length);
  out.set(magic, 0);
  out.set(body, 4);
  return out;
}
