/**
 * Field errors as kube-apiserver's validation reports them (k8s.io/apimachinery/pkg/util/validation/field/errors.go):
 * a type (the Status cause's `reason`), the field path, the offending value and a detail, rendered into
 * `details.causes` of a 422 Invalid Status with upstream's wording ("Required value", "Invalid value: 5: …",
 * `Unsupported value: "x": supported values: …`, "Too many: 3: must have at most 2 items", …).
 */
import type { StatusCause } from '../../api/meta/v1.ts';

/** The error types of field.ErrorType, named by the reason they put into a Status cause. */
export const FieldErrorType = {
  NotFound: 'FieldValueNotFound',
  Required: 'FieldValueRequired',
  Duplicate: 'FieldValueDuplicate',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  Internal: 'InternalError',
  TypeInvalid: 'FieldValueTypeInvalid',
} as const;

/** One of {@link FieldErrorType}'s values. */
export type FieldErrorTypeValue = (typeof FieldErrorType)[keyof typeof FieldErrorType];

/** One validation failure of one field. */
export interface FieldError {
  readonly type: FieldErrorTypeValue;
  /** The field path as field.Path renders it, e.g. `spec.ports[1].name` or `properties[spec].type`. */
  readonly field: string;
  /** The rendered message, without the field path. */
  readonly message: string;
}

/** Go's `%#v` of a decoded JSON value, as field errors print bad values (`map[string]interface {}{"a":1}`). */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goValue).join(', ')}}`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[string]interface {}{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goValue(o[k])}`)
      .join(', ')}}`;
  }
  return String(v as never);
}

// %v of a float64 (strconv 'g' with the shortest precision) or an int64.
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const s = String(n);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

// The value part of "Invalid value: …": field.Error.ErrorBody prints strings quoted and other scalars bare.
function badValue(v: unknown): string {
  return goValue(v);
}

/** The path of a child field: `spec` + `size` → `spec.size`; the root path is ''. */
export function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** The path of a list element: `spec.ports` + 1 → `spec.ports[1]`. */
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** The path of a map entry: `properties` + `spec` → `properties[spec]`. */
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

function withDetail(head: string, detail: string): string {
  return detail === '' ? head : `${head}: ${detail}`;
}

/** field.Required. */
export function required(field: string, detail = ''): FieldError {
  return { type: FieldErrorType.Required, field, message: withDetail('Required value', detail) };
}

/** field.Invalid. */
export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { type: FieldErrorType.Invalid, field, message: withDetail(`Invalid value: ${badValue(value)}`, detail) };
}

/** field.Invalid of a bad value already rendered as Go prints it (types {@link goValue} does not know, e.g. `[]string{…}`). */
export function invalidRendered(field: string, rendered: string, detail: string): FieldError {
  return { type: FieldErrorType.Invalid, field, message: withDetail(`Invalid value: ${rendered}`, detail) };
}

/** field.TypeInvalid. */
export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: FieldErrorType.TypeInvalid, field, message: withDetail(`Invalid value: ${badValue(value)}`, detail) };
}

/** field.NotSupported: the allowed values are listed quoted, in the order given. */
export function notSupported(field: string, value: unknown, allowed: readonly string[]): FieldError {
  const list = allowed.length > 0 ? `: supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}` : '';
  return { type: FieldErrorType.NotSupported, field, message: `Unsupported value: ${badValue(value)}${list}` };
}

/** field.Forbidden. */
export function forbidden(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Forbidden, field, message: withDetail('Forbidden', detail) };
}

/** field.Duplicate. */
export function duplicate(field: string, value: unknown): FieldError {
  return { type: FieldErrorType.Duplicate, field, message: `Duplicate value: ${badValue(value)}` };
}

/** field.TooLong as v1.32 words it (the value itself is not printed). */
export function tooLong(field: string, max: number): FieldError {
  return { type: FieldErrorType.TooLong, field, message: max >= 0 ? `Too long: may not be more than ${max} bytes` : 'Too long: value is too long' };
}

/** field.TooMany. */
export function tooMany(field: string, actual: number, max: number): FieldError {
  const head = actual >= 0 ? `Too many: ${actual}` : 'Too many';
  return { type: FieldErrorType.TooMany, field, message: max >= 0 ? `${head}: must have at most ${max} items` : `${head}: has too many items` };
}

/** field.InternalError. */
export function internal(field: string, detail: string): FieldError {
  return { type: FieldErrorType.Internal, field, message: `Internal error: ${detail}` };
}

/** A field error with another message (CEL rules pick their own). */
export function withMessage(e: FieldError, message: string): FieldError {
  return { ...e, message };
}

/** `field: message`, as field.Error.Error() renders one error. */
export function errorString(e: FieldError): string {
  return e.field === '' ? e.message : `${e.field}: ${e.message}`;
}

/** The Status causes of a list of field errors. */
export function toCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((e) => ({ reason: e.type, message: e.message, field: e.field }));
}

/** Sorts errors by their rendered text, as the CRD structural checks do before reporting. */
export function sortErrors(errors: FieldError[]): FieldError[] {
  return errors.sort((a, b) => {
    const x = errorString(a);
    const y = errorString(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
