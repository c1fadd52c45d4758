/**
 * Field errors as apimachinery's `pkg/util/validation/field` builds them (errors.go, path.go): a path (`spec.containers[0].name`),
 * an error type and a detail, turned into the StatusCauses of a 422 with the same message text, and the
 * Go value printing (%q for strings, %v for numbers and booleans, %#v for the rest) those messages use.
 */
import type { StatusCause } from '../../api/meta/v1.ts';

/** A field path, built child by child as `field.NewPath("spec").Child("containers").Index(0)`. */
export class FieldPath {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }

  /** `.name` appended (or the root name). */
  child(...names: string[]): FieldPath {
    let t = this.#text;
    for (const n of names) t = t === '' ? n : `${t}.${n}`;
    return new FieldPath(t);
  }

  /** `[i]` appended. */
  index(i: number): FieldPath {
    return new FieldPath(`${this.#text}[${i}]`);
  }

  /** `[key]` appended. */
  key(k: string): FieldPath {
    return new FieldPath(`${this.#text}[${k}]`);
  }

  /** The path as text, e.g. `spec.containers[0].image`. */
  toString(): string {
    return this.#text;
  }
}

/** The root of a field path. */
export function path(...names: string[]): FieldPath {
  return new FieldPath('').child(...names);
}

/**
 * A field path from its root (field.NewPath): `fieldPath('spec', 'template').child('containers').index(0)`
 * prints `spec.template.containers[0]`.
 */
export const fieldPath: (...names: string[]) => FieldPath = path;

/** A value printed as Go's field errors print it; `goValue` wraps what Go would print with %#v. */
export class GoValue {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** Go's %q of a string. */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, (m, hex: string) => {
    const c = parseInt(hex, 16);
    return c < 0x20 || c === 0x7f ? `\\x${hex.slice(2)}` : m;
  });
}

/** %#v of a []string (nil when undefined). */
export function goStrings(v: readonly string[] | undefined): GoValue {
  return new GoValue(v === undefined ? '[]string(nil)' : `[]string{${v.map(goQuote).join(', ')}}`);
}

/** %#v of a map[string]string (nil when undefined); keys sorted as fmt prints maps. */
export function goStringMap(v: Readonly<Record<string, unknown>> | undefined): GoValue {
  if (v === undefined) return new GoValue('map[string]string(nil)');
  const entries = Object.keys(v)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(String(v[k]))}`);
  return new GoValue(`map[string]string{${entries.join(', ')}}`);
}

function printValue(v: unknown): string {
  if (v instanceof GoValue) return v.text;
  // A nil value is printed as the string "null" (quoted, as strings are).
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** One field error (field.Error); build it with {@link invalidValue}, {@link required}, …. */
export interface FieldError {
  /** The field's path, e.g. `spec.schedule`. */
  readonly field: string;
  /** The error type as a StatusCause reason, e.g. `FieldValueInvalid` (field.ErrorType's cause type). */
  readonly reason: string;
  /** The text after the field (ErrorBody): `Required value: detail`, `Invalid value: "x": detail`, ... */
  readonly message: string;
}

/** `field: body`, as field.Error.Error() prints it. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

function make(field: FieldPath, reason: string, head: string, detail: string | undefined): FieldError {
  return { field: field.toString(), reason, message: detail === undefined || detail === '' ? head : `${head}: ${detail}` };
}

/** field.Required. */
export function required(field: FieldPath, detail?: string): FieldError {
  return make(field, 'FieldValueRequired', 'Required value', detail);
}

/** field.Invalid. */
export function invalidValue(field: FieldPath, value: unknown, detail?: string): FieldError {
  return make(field, 'FieldValueInvalid', `Invalid value: ${printValue(value)}`, detail);
}

/** field.NotSupported: the supported values quoted, in the order given. */
export function notSupported(field: FieldPath, value: unknown, supported: readonly string[]): FieldError {
  const list = supported.length === 0 ? '' : `supported values: ${supported.map(goQuote).join(', ')}`;
  return make(field, 'FieldValueNotSupported', `Unsupported value: ${printValue(value)}`, list);
}

/** field.Forbidden. */
export function forbiddenField(field: FieldPath, detail: string): FieldError {
  return make(field, 'FieldValueForbidden', 'Forbidden', detail);
}

/** field.TooLong (the value is not printed). */
export function tooLong(field: FieldPath, max: number): FieldError {
  return make(field, 'FieldValueTooLong', 'Too long', `must have at most ${max} bytes`);
}

/** field.TooMany. */
export function tooMany(field: FieldPath, actual: number, max: number): FieldError {
  return make(field, 'FieldValueTooMany', 'Too many', `${actual}: must have at most ${max} items`);
}

/** field.Duplicate. */
export function duplicate(field: FieldPath, value: unknown): FieldError {
  return make(field, 'FieldValueDuplicate', `Duplicate value: ${printValue(value)}`, undefined);
}

/** field.NotFound. */
export function notFoundField(field: FieldPath, value: unknown): FieldError {
  return make(field, 'FieldValueNotFound', `Not found: ${printValue(value)}`, undefined);
}

/** The StatusCauses of errors, as errors.NewInvalid lists them. */
export function causesOf(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
}
