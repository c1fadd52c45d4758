/**
 * A JSON object of a built-in kind as kube-apiserver holds it after decoding it into its Go struct and
 * encoding it back: unknown fields dropped, wrong JSON types refused with Go's error, quantities and
 * timestamps in canonical form, and the zero values Go writes (`status: {}`, `creationTimestamp: null`,
 * fields without omitempty) present. Fields come out in the struct's declaration order.
 *
 * Upstream: encoding/json's decode/encode rules (through sigs.k8s.io/json), the custom JSON of
 * resource.Quantity, intstr.IntOrString and metav1.Time.
 */
import { canonicalQuantity, QuantityFormatError } from '../../apimachinery/quantity.ts';
import { goStruct, goTypeName, type GoField, type GoStruct, type GoType } from './scheme.ts';

type Obj = Record<string, unknown>;

/** A body that cannot be decoded into its Go type; the message is Go's. */
export class GoDecodeError extends Error {
  readonly code = 'ERR_GO_DECODE';
  constructor(message: string) {
    super(message);
    this.name = 'GoDecodeError';
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** encoding/json's name for the kind of a JSON value. */
function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

interface Where {
  /** The innermost struct (its Go name without the package). */
  struct: string;
  /** JSON keys from the root, without map keys and list indexes. */
  path: readonly string[];
}

function typeError(v: unknown, t: GoType, where: Where): GoDecodeError {
  const what = typeof v === 'number' && !Number.isInteger(v) ? `number ${v}` : jsonKind(v);
  return new GoDecodeError(`json: cannot unmarshal ${what} into Go struct field ${where.struct}.${where.path.join('.')} of type ${goTypeName(t)}`);
}

const int32Range = 2 ** 31;

/** metav1.Time: RFC 3339, UTC, whole seconds. */
function formatTime(ms: number, micro: boolean): string {
  const iso = new Date(ms).toISOString();
  return micro ? iso.replace(/\.(\d{3})Z$/, '.$1000Z') : iso.replace(/\.\d{3}Z$/, 'Z');
}

// The last time text decoded and its canonical form, per kind: an object carries the same timestamps many
// times (conditions, managedFields), and writes within one second carry the same ones.
const lastParsed = { time: { text: '', canonical: '' }, micro: { text: '', canonical: '' } };

function parseTime(v: string, micro: boolean): string {
  const last = micro ? lastParsed.micro : lastParsed.time;
  if (v === last.text && v !== '') return last.canonical;
  const canonical = parseTimeText(v, micro);
  last.text = v;
  last.canonical = canonical;
  return canonical;
}

function parseTimeText(v: string, micro: boolean): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(v);
  const ms = m === null ? NaN : Date.parse(v);
  if (Number.isNaN(ms)) throw new GoDecodeError(`parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as "2006"`);
  if (!micro) return formatTime(Math.floor(ms / 1000) * 1000, false);
  // Keep microseconds from the text (Date only has milliseconds).
  const frac = (m![2] ?? '.').slice(1).padEnd(6, '0').slice(0, 6);
  return `${formatTime(Math.floor(ms / 1000) * 1000, false).slice(0, -1)}.${frac}Z`;
}

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function scalar(t: GoType & { kind: 'scalar' }, v: unknown, where: Where): unknown {
  switch (t.name) {
    case 'string':
      if (typeof v !== 'string') throw typeError(v, t, where);
      return v;
    case 'int32':
    case 'int64':
      if (typeof v !== 'number') throw typeError(v, t, where);
      if (!Number.isInteger(v) || (t.name === 'int32' && (v >= int32Range || v < -int32Range))) throw typeError(v, t, where);
      return v;
    case 'float64':
      if (typeof v !== 'number') throw typeError(v, t, where);
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw typeError(v, t, where);
      return v;
    case 'bytes': {
      if (typeof v !== 'string') throw typeError(v, t, where);
      if (!base64Pattern.test(v)) {
        const bad = [...v].findIndex((c) => !/[A-Za-z0-9+/=]/.test(c));
        throw new GoDecodeError(`illegal base64 data at input byte ${bad >= 0 ? bad : v.length - (v.length % 4)}`);
      }
      return v;
    }
    case 'Quantity':
      if (typeof v !== 'string' && typeof v !== 'number') throw new GoDecodeError(new QuantityFormatError().message);
      try {
        return canonicalQuantity(String(v));
      } catch (err) {
        if (err instanceof QuantityFormatError) throw new GoDecodeError(err.message);
        throw err;
      }
    case 'IntOrString':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' && Number.isInteger(v) && v < int32Range && v >= -int32Range) return v;
      throw new GoDecodeError(`json: cannot unmarshal ${jsonKind(v) === 'number' ? `number ${String(v)}` : jsonKind(v)} into Go value of type int32`);
    case 'Time':
    case 'MicroTime':
      if (typeof v !== 'string') throw typeError(v, t, where);
      return parseTime(v, t.name === 'MicroTime');
    case 'Duration':
      if (typeof v !== 'string') throw typeError(v, t, where);
      return v;
    case 'RawExtension':
    case 'FieldsV1':
      return v;
  }
}

/** The JSON Go writes for a field that holds its zero value (undefined: the field is left out). */
function zero(f: GoField, where: Where): unknown {
  const t = f.type;
  if (f.pointer) return f.omitempty ? undefined : null;
  if (t.kind === 'list' || t.kind === 'map') return f.omitempty ? undefined : null;
  if (t.kind === 'struct') return decodeStruct(goStruct(t.name)!, {}, where.path);
  switch (t.name) {
    case 'Time':
    case 'MicroTime':
    case 'RawExtension':
    case 'FieldsV1':
      // Structs with their own JSON: never omitted; their zero value encodes as null.
      return null;
    case 'Quantity':
      return '0';
    case 'IntOrString':
      return 0;
    case 'Duration':
      return '0s';
    case 'string':
      return f.omitempty ? undefined : '';
    case 'bytes':
      return f.omitempty ? undefined : null;
    case 'bool':
      return f.omitempty ? undefined : false;
    default:
      return f.omitempty ? undefined : 0;
  }
}

/** Whether omitempty leaves a decoded value out. */
function empty(f: GoField, v: unknown): boolean {
  if (!f.omitempty || f.pointer) return false;
  const t = f.type;
  if (t.kind === 'list') return Array.isArray(v) && v.length === 0;
  if (t.kind === 'map') return isObj(v) && Object.keys(v).length === 0;
  if (t.kind === 'struct') return false;
  switch (t.name) {
    case 'string':
    case 'bytes':
      return v === '';
    case 'int32':
    case 'int64':
    case 'float64':
      return v === 0;
    case 'bool':
      return v === false;
    default:
      return false;
  }
}

/** Decodes a non-null JSON value of type `t`. */
function value(t: GoType, v: unknown, where: Where): unknown {
  switch (t.kind) {
    case 'scalar':
      return scalar(t, v, where);
    case 'struct': {
      const s = goStruct(t.name)!;
      if (!isObj(v)) throw typeError(v, t, where);
      return decodeStruct(s, v, where.path);
    }
    case 'list':
      if (!Array.isArray(v)) throw typeError(v, t, where);
      return v.map((x) => (x === null ? zeroElement(t.of, where) : value(t.of, x, where)));
    case 'map': {
      if (!isObj(v)) throw typeError(v, t, where);
      const out: Obj = {};
      for (const [k, x] of Object.entries(v)) out[k] = x === null ? zeroElement(t.of, where) : value(t.of, x, where);
      return out;
    }
  }
}

/** The zero value of a list or map element given as null. */
function zeroElement(t: GoType, where: Where): unknown {
  if (t.kind === 'struct') return decodeStruct(goStruct(t.name)!, {}, where.path);
  if (t.kind === 'list' || t.kind === 'map') return null;
  return zero({ json: '', number: 0, type: t, omitempty: false, pointer: false, inline: false }, where);
}

function decodeStruct(s: GoStruct, src: Obj, path: readonly string[], twin?: Obj): Obj {
  const out: Obj = {};
  if (s.typeMeta) {
    for (const k of ['kind', 'apiVersion']) {
      const v = src[k];
      if (v === undefined || v === null || v === '') continue;
      if (typeof v !== 'string') throw typeError(v, { kind: 'scalar', name: 'string' }, { struct: s.goName.slice(s.goName.indexOf('.') + 1), path: [...path, k] });
      out[k] = v;
    }
  }
  const structName = s.goName.slice(s.goName.indexOf('.') + 1);
  for (const f of s.fields) {
    if (f.inline && f.type.kind === 'struct') {
      Object.assign(out, decodeStruct(goStruct(f.type.name)!, src, path, twin));
      continue;
    }
    const raw = Object.prototype.hasOwnProperty.call(src, f.json) ? src[f.json] : undefined;
    // The very value the stored version holds at this field is already decoded (see decodeTyped).
    if (twin !== undefined && typeof raw === 'object' && raw !== null && twin[f.json] === raw) {
      if (!empty(f, raw)) out[f.json] = raw;
      continue;
    }
    const where: Where = { struct: structName, path: [...path, f.json] };
    const t = f.type;
    const twinField = twin !== undefined && t.kind === 'struct' && isObj(twin[f.json]) && isObj(raw) ? (twin[f.json] as Obj) : undefined;
    const v = raw === undefined || raw === null ? zero(f, where) : t.kind === 'struct' && twinField !== undefined ? decodeStruct(goStruct(t.name)!, raw as Obj, where.path, twinField) : value(t, raw, where);
    if (v === undefined || empty(f, v)) continue;
    out[f.json] = v;
  }
  return out;
}

/**
 * Decodes a JSON object into the Go struct `s` and encodes it back. Throws {@link GoDecodeError} with
 * Go's message for a value of the wrong type.
 *
 * `twin` is the stored version of the same object (already decoded, never mutated): a struct field whose
 * value is the very same object or list (`===`) as the twin's at the same path, reached through struct
 * fields, is kept as it is instead of being decoded again. An in-process writer that builds its update
 * by spreading the stored object (`{ ...pod, status }`) thus pays only for what it replaced.
 */
export function decodeTyped(s: GoStruct, src: Obj, twin?: Obj): Obj {
  return decodeStruct(s, src, [], twin);
}
