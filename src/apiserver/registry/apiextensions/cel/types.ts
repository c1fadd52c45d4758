/**
 * CEL types of a structural schema and CEL values of JSON, as apiextensions-apiserver declares them for
 * x-kubernetes-validations (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model): objects with
 * properties become object types whose fields are the (escaped) property names, additionalProperties maps
 * become `map<string, V>`, arrays `list<T>`, integers `int`, numbers `double`; int-or-string and
 * preserve-unknown-fields objects without properties are `dyn`. Embedded resources also have apiVersion, kind
 * and metadata (name, generateName). Strings of format `date-time` and `date` are timestamps (millisecond
 * precision here, nanoseconds upstream), `duration` durations and `byte` bytes, as upstream declares them
 * (third_party/forked/celopenapi/model/schemas.go, pkg/apiserver/schema/cel/values.go).
 */
import { Environment } from '@marcbachmann/cel-js';
import { parseDurationNanos, parseTimestamp } from '../schema/formats.ts';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps } from '../schema/json-schema-props.ts';
import { jsonEqual } from '../schema/validation.ts';

// CEL's reserved words, escaped as __word__ when they name a property.
const reserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** The CEL field name of a property (upstream's escaping), or undefined when the property is not accessible from CEL. */
export function escapeName(name: string): string | undefined {
  if (reserved.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replace(/__/g, '__underscores__').replace(/\./g, '__dot__').replace(/-/g, '__dash__').replace(/\//g, '__slash__');
}

// cel-js does not export its duration class; the one its duration() returns is the one it compares and adds.
const CelDuration = (new Environment().evaluate('duration("0s")', {}) as object).constructor as new (seconds: bigint, nanos: number) => object;

/** A CEL duration of `nanos` nanoseconds. */
export function celDuration(nanos: bigint): object {
  const billion = 1_000_000_000n;
  return new CelDuration(nanos / billion, Number(nanos % billion));
}

/** Whether a value is a CEL duration. */
export function isCelDuration(v: unknown): v is { seconds: bigint; nanos: number } {
  return v instanceof CelDuration;
}

// The CEL type of a string of a format upstream gives its own type.
function formatType(format: string | undefined): string | undefined {
  if (format === 'byte') return 'bytes';
  if (format === 'duration') return 'google.protobuf.Duration';
  if (format === 'date' || format === 'date-time') return 'google.protobuf.Timestamp';
  return undefined;
}

// A string of such a format as its CEL value; a string that does not parse stays a string (upstream: an evaluation error).
function formatValue(format: string | undefined, v: string): unknown {
  if (format === 'byte') return /^[A-Za-z0-9+/]*={0,2}$/.test(v) ? new Uint8Array(Buffer.from(v, 'base64')) : v;
  if (format === 'duration') {
    const nanos = parseDurationNanos(v);
    return nanos === undefined ? v : celDuration(nanos);
  }
  if (format === 'date' || format === 'date-time') return parseTimestamp(format, v) ?? v;
  return v;
}

/** One declared object type: its CEL name, its constructor and field list (CEL name → JSON name and schema). */
interface ObjectType {
  name: string;
  ctor: new (fields: Record<string, unknown>) => object;
  fields: Map<string, { json: string; schema: JSONSchemaProps }>;
}

/** The CEL types of one schema tree, registered in an environment, with the JSON → CEL value conversion. */
export class SchemaTypes {
  readonly #objects = new Map<JSONSchemaProps, ObjectType>();
  readonly #names = new Set<string>();
  readonly #env: Environment;

  constructor(env: Environment) {
    this.#env = env;
  }

  /** The CEL type name of a schema node, declaring object types on first use. */
  typeOf(s: JSONSchemaProps | undefined, path: string, isRoot = false): string {
    if (s === undefined) return 'dyn';
    if (s['x-kubernetes-int-or-string'] === true) return 'dyn';
    switch (s.type) {
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'string':
        return formatType(s.format) ?? 'string';
      case 'boolean':
        return 'bool';
      case 'array': {
        const items = itemsOf(s);
        return `list<${this.typeOf(items, `${path}.@`)}>`;
      }
      case 'object': {
        const additional = additionalOf(s);
        if (additional !== undefined) return `map<string, ${this.typeOf(additional, `${path}.@`)}>`;
        const embedded = s['x-kubernetes-embedded-resource'] === true || isRoot;
        if (Object.keys(s.properties ?? {}).length === 0 && !embedded) return s['x-kubernetes-preserve-unknown-fields'] === true ? 'dyn' : 'map<string, dyn>';
        return this.#declareObject(s, path, embedded);
      }
      default:
        return 'dyn';
    }
  }

  #declareObject(s: JSONSchemaProps, path: string, embedded: boolean): string {
    const known = this.#objects.get(s);
    if (known !== undefined) return known.name;
    let name = path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'Object';
    for (let i = 2; this.#names.has(name); i++) name = `${name}_${i}`;
    this.#names.add(name);
    const ctor = class {
      constructor(fields: Record<string, unknown>) {
        Object.assign(this, fields);
      }
    };
    Object.defineProperty(ctor, 'name', { value: name });
    const t: ObjectType = { name, ctor, fields: new Map() };
    this.#objects.set(s, t);
    const props: Record<string, JSONSchemaProps> = { ...(s.properties ?? {}) };
    if (embedded) {
      props.apiVersion ??= { type: 'string' };
      props.kind ??= { type: 'string' };
      props.metadata = { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } };
    }
    const fields: Record<string, string> = {};
    for (const [json, p] of Object.entries(props)) {
      const cel = escapeName(json);
      if (cel === undefined || !isObj(p)) continue;
      t.fields.set(cel, { json, schema: p });
      fields[cel] = this.typeOf(p, `${path}.${json}`);
    }
    this.#env.registerType(name, { ctor, fields });
    this.#env.registerOperator(`${name} == ${name}`, (a: unknown, b: unknown) => celEquals(a, b));
    return name;
  }

  /** Converts a JSON value under `s` into the CEL value the declared types expect. */
  toCel(v: unknown, s: JSONSchemaProps | undefined): unknown {
    if (v === null || v === undefined) return null;
    if (s === undefined || s['x-kubernetes-int-or-string'] === true) return dynValue(v);
    if (Array.isArray(v)) {
      const items = itemsOf(s);
      return v.map((x) => this.toCel(x, items));
    }
    if (isObj(v)) {
      const additional = additionalOf(s);
      const t = this.#objects.get(s);
      if (t === undefined || additional !== undefined) {
        const m = new Map<string, unknown>();
        for (const [k, x] of Object.entries(v)) m.set(k, this.toCel(x, additional ?? s.properties?.[k]));
        return m;
      }
      const fields: Record<string, unknown> = {};
      for (const [cel, f] of t.fields) if (f.json in v && v[f.json] !== null) fields[cel] = this.toCel(v[f.json], f.schema);
      return new t.ctor(fields);
    }
    if (typeof v === 'number') return s.type === 'integer' && Number.isInteger(v) ? BigInt(v) : s.type === 'number' ? v : dynValue(v);
    if (typeof v === 'string' && s.type === 'string') return formatValue(s.format, v);
    return v;
  }
}

/** A JSON value as a CEL dyn: integers as int, other numbers as double, objects as maps. */
export function dynValue(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(dynValue);
  if (isObj(v)) return new Map(Object.entries(v).map(([k, x]) => [k, dynValue(x)]));
  return v;
}

/** Equality of CEL values built by toCel: object types compare field by field. */
export function celEquals(a: unknown, b: unknown): boolean {
  return jsonEqual(plain(a), plain(b));
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return { timestamp: v.getTime() };
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (isCelDuration(v)) return { duration: `${v.seconds}.${v.nanos}` };
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}
