/**
 * go-spew's `%#v` formatter (github.com/davecgh/go-spew/spew/format.go) as hashutil.DeepHashObject configures
 * it (`ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}`; the indent only
 * matters to Dump), applied to the Go value a JSON object decodes into. Kept from format.go:
 *
 * - every value is prefixed with its Go type in parentheses (`(int32)5`, `(v1.PullPolicy)Always`), except
 *   slice elements and map keys and values, which print bare;
 * - a non-nil pointer prints `(*T)` then its target bare, a nil one `(*T)<nil>` (bare `<nil>` when the type
 *   is suppressed); nil slices and maps print `<nil>`;
 * - structs print every field in declaration order as `Name:value`, zero values included, separated by one
 *   space; strings print raw (no quotes); map keys sort by their string value;
 * - DisableMethods means no String()/Error() call: resource.Quantity prints its unexported fields
 *   (`i`, `d`, `s`, `Format`), intstr.IntOrString its `Type`/`IntVal`/`StrVal`, metav1.Time its time.Time.
 *
 * The Go value is the one kube-controller-manager holds: the object as the API server's protobuf encoding
 * carries it, so an empty list or map (not encoded) is nil, a present object behind a pointer field is a
 * non-nil pointer, and a quantity is ParseQuantity of the canonical string the server wrote.
 *
 * Not emulated (throws {@link SpewUnsupportedError}): a non-zero metav1.Time (the decoder's `.Local()`
 * makes spew print the process's time zone tables) and quantities outside ParseQuantity's int64 fast path
 * (printed through inf.Dec and big.Int).
 */

import { canonicalQuantity } from '../../apimachinery/quantity.ts';
import type { GoType, GoTypeTable } from './go-type-table.ts';

/** A JSON value that this formatter cannot print as go-spew would. */
export class SpewUnsupportedError extends Error {
  /** Stable error code. */
  readonly code = 'ERR_SPEW_UNSUPPORTED';
  constructor(message: string) {
    super(message);
    this.name = 'SpewUnsupportedError';
  }
}

type Json = unknown;

/**
 * The text go-spew's `%#v` prints for the Go value of type `typeName` that `value` (its JSON form) decodes
 * into, per the layout in `types`.
 */
export function spewSprintGoValue(types: GoTypeTable, typeName: string, value: Json): string {
  const out: string[] = [];
  format(types, typeName, value, false, out);
  return out.join('');
}

function typeOf(types: GoTypeTable, name: string): GoType {
  const t = types[name];
  if (t === undefined) throw new SpewUnsupportedError(`no Go layout for type ${name}`);
  return t;
}

function isObject(v: Json): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Go's string ordering: bytewise over UTF-8. */
function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function format(types: GoTypeTable, name: string, value: Json, ignoreType: boolean, out: string[]): void {
  const t = typeOf(types, name);
  if (t.kind === 'ptr') {
    // formatPtr: a JSON null or absent field is a nil pointer.
    if (value === undefined || value === null) {
      out.push(ignoreType ? '<nil>' : `(${name})<nil>`);
      return;
    }
    out.push(ignoreType ? '<*>' : `(*${t.elem!})`);
    format(types, t.elem!, value, true, out);
    return;
  }
  if (!ignoreType) out.push(`(${name})`);
  const custom = goValueOf(name, value);
  switch (t.kind) {
    case 'struct': {
      const v = isObject(custom) ? custom : {};
      out.push('{');
      t.fields!.forEach((f, i) => {
        if (i > 0) out.push(' ');
        out.push(f.name, ':');
        const fieldValue = f.inline === true ? v : f.json === undefined ? v[f.name] : v[f.json];
        format(types, f.type, fieldValue, false, out);
      });
      out.push('}');
      return;
    }
    case 'slice': {
      if (!Array.isArray(custom) || custom.length === 0) {
        out.push('<nil>');
        return;
      }
      out.push('[');
      custom.forEach((x, i) => {
        if (i > 0) out.push(' ');
        format(types, t.elem!, x, true, out);
      });
      out.push(']');
      return;
    }
    case 'map': {
      const entries = isObject(custom) ? Object.entries(custom) : [];
      if (entries.length === 0) {
        out.push('<nil>');
        return;
      }
      entries.sort(([a], [b]) => compareGoStrings(a, b));
      out.push('map[');
      entries.forEach(([k, x], i) => {
        if (i > 0) out.push(' ');
        format(types, t.key!, k, true, out);
        out.push(':');
        format(types, t.elem!, x, true, out);
      });
      out.push(']');
      return;
    }
    case 'string':
      out.push(typeof custom === 'string' ? custom : '');
      return;
    case 'bool':
      out.push(custom === true ? 'true' : 'false');
      return;
    case 'int':
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'uint':
    case 'uint8':
    case 'uint16':
    case 'uint32':
    case 'uint64':
      out.push(typeof custom === 'number' || typeof custom === 'bigint' ? String(custom) : '0');
      return;
    default:
      throw new SpewUnsupportedError(`Go kind ${t.kind} (${name}) is not supported`);
  }
}

/**
 * The Go struct (keyed by Go field name) behind the JSON form of the types whose JSON is not their struct:
 * resource.Quantity, intstr.IntOrString and metav1.Time. Others pass through.
 */
function goValueOf(name: string, value: Json): Json {
  switch (name) {
    case 'resource.Quantity':
      if (value === undefined || value === null) return {};
      if (typeof value !== 'string' && typeof value !== 'number') throw new SpewUnsupportedError('a resource.Quantity that is neither a string nor a number');
      return quantityStruct(String(value));
    case 'intstr.IntOrString':
      // intstr.Type: Int = 0, String = 1.
      if (typeof value === 'number') return { Type: 0, IntVal: value, StrVal: '' };
      if (typeof value === 'string') return { Type: 1, IntVal: 0, StrVal: value };
      return {};
    case 'v1.Time':
      if (value === undefined || value === null) return {};
      throw new SpewUnsupportedError(`a non-zero metav1.Time (${JSON.stringify(value)}) prints the local time zone`);
    default:
      return value;
  }
}

// maxInt64Factors (apimachinery resource/quantity.go): 18 decimal digits always fit an int64.
const maxInt64Factors = 18;
// Nano = -9 (resource/scale_int.go): the smallest scale of the int64 fast path.
const nanoScale = -9;
const int64Max = (1n << 63n) - 1n;

const decimalSuffixExponents: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixExponents: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/**
 * The fields of the resource.Quantity that ParseQuantity returns for the canonical form of `text`
 * (resource/quantity.go ParseQuantity; the server writes quantities canonically, so that is what the
 * controller manager decodes). `s` is cached only where ParseQuantity caches it.
 */
function quantityStruct(text: string): Record<string, unknown> {
  const str = canonicalQuantity(text);
  const nilDec = { Dec: undefined };
  if (str === '0') return { i: { value: 0, scale: 0 }, d: nilDec, s: str, Format: 'DecimalSI' };
  // A canonical quantity is an optional sign, digits without leading zeros and no fraction, and a suffix.
  const m = /^([+-]?)([0-9]+)(.*)$/.exec(str);
  if (m === null) throw new SpewUnsupportedError(`quantity ${str} is not canonical`);
  const [, sign = '', num = '', suf = ''] = m;
  let format: string;
  let exponent: number;
  if (suf in decimalSuffixExponents) {
    format = 'DecimalSI';
    exponent = decimalSuffixExponents[suf]!;
  } else if (suf in binarySuffixExponents) {
    format = 'BinarySI';
    exponent = binarySuffixExponents[suf]!;
  } else if (/^[eE][-+]?[0-9]+$/.test(suf)) {
    format = 'DecimalExponent';
    exponent = Number(suf.slice(1));
  } else throw new SpewUnsupportedError(`quantity suffix ${suf}`);
  let precision: number;
  let scale: number;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    scale = 0;
    if (exponent >= 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = maxInt64Factors - num.length;
  }
  if (precision >= 0 && scale >= nanoScale) {
    const digits = BigInt(num);
    let result = digits * mantissa;
    if (result <= int64Max) {
      if (sign === '-') result = -result;
      const i = { value: result, scale };
      const cached =
        format === 'BinarySI' ? exponent % 10 === 0 && (digits & 7n) !== 0n : scale % 3 === 0 && !num.endsWith('000') && !num.startsWith('0');
      return cached ? { i, d: nilDec, s: str, Format: format } : { i, d: nilDec, s: '', Format: format };
    }
  }
  throw new SpewUnsupportedError(`quantity ${str} is outside ParseQuantity's int64 fast path`);
}
