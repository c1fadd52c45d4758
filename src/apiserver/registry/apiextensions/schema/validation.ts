/**
 * Validation of a custom resource against its structural schema, as kube-apiserver runs the kube-openapi
 * schema validator over it and converts the results into field errors
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/validation/validation.go, k8s.io/kube-openapi/pkg/validation/validate).
 * The messages are kube-openapi's ("spec.size in body must be of type integer: \"string\"", "should be greater than
 * or equal to 1", …) and the error types the ones upstream maps them to.
 *
 * Upstream walks object properties in Go map order, so its error order varies between requests; here properties
 * are walked in schema order, then any others in the object's order.
 */
import { RE2JS } from 're2js';
import {
  child, duplicate, index, invalidValue, notSupported, required, tooLong, tooMany, typeInvalid, type FieldError,
} from '../../field-errors.ts';
import { checkFormat } from './formats.ts';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps } from './json-schema-props.ts';

/** The JSON type name kube-openapi reports for a value. */
export function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  return 'object';
}

const patterns = new Map<string, RE2JS | null>();

/** A compiled RE2 pattern (Go's regexp syntax), or null when it does not compile; compiled once per text. */
export function compilePattern(pattern: string): RE2JS | null {
  let p = patterns.get(pattern);
  if (p === undefined) {
    try {
      p = RE2JS.compile(pattern);
    } catch {
      p = null;
    }
    patterns.set(pattern, p);
  }
  return p;
}

// swag.IsFloat64AJSONInteger: whole within float precision.
function isWhole(x: number): boolean {
  if (!Number.isFinite(x)) return false;
  return Math.abs(x - Math.round(x)) <= 1e-9 * Math.max(1, Math.abs(x));
}

function typeMatches(type: string, v: unknown): boolean {
  const actual = jsonType(v);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

// The name kube-openapi puts in front of "in body …": the path, or empty at the root.
function name(path: string): string {
  return path;
}

// Counting code points, as Go's utf8.RuneCountInString.
function runeLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Validates `value` at `path` against `schema`; returns the field errors in upstream's wording.
 * Validation of list-type uniqueness, embedded resources and CEL rules is separate.
 */
export function validateValue(schema: JSONSchemaProps, value: unknown, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  validate(schema, value, path, errs);
  return errs;
}

function validate(s: JSONSchemaProps, v: unknown, path: string, errs: FieldError[]): void {
  if (v === null && s.nullable === true) return;
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (intOrString) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      errs.push(typeInvalid(path, jsonType(v), `${name(path)} in body must be of type integer,string: ${JSON.stringify(jsonType(v))}`));
      return;
    }
  } else if (s.type !== undefined && s.type !== '' && !typeMatches(s.type, v)) {
    errs.push(typeInvalid(path, jsonType(v), `${name(path)} in body must be of type ${s.type}: ${JSON.stringify(jsonType(v))}`));
    return;
  }
  junctors(s, v, path, errs);
  if (typeof v === 'string') strings(s, v, path, errs);
  if (typeof v === 'number') numbers(s, v, path, errs);
  if (s.enum !== undefined && !s.enum.some((e) => jsonEqual(e, v))) {
    errs.push(notSupported(path, v, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (Array.isArray(v)) arrays(s, v, path, errs);
  else if (isObj(v)) objects(s, v, path, errs);
}

function strings(s: JSONSchemaProps, v: string, path: string, errs: FieldError[]): void {
  // kube-openapi's string validator stops at its first failure: maxLength, then minLength, then pattern.
  if (s.maxLength !== undefined && runeLength(v) > s.maxLength) errs.push(tooLong(path, s.maxLength));
  else if (s.minLength !== undefined && runeLength(v) < s.minLength) errs.push(invalidValue(path, v, `${name(path)} in body should be at least ${s.minLength} chars long`));
  else if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re !== null && !re.matcher(v).find()) errs.push(invalidValue(path, v, `${name(path)} in body should match '${s.pattern}'`));
  }
  if (s.format !== undefined && !checkFormat(s.format, v)) errs.push(typeInvalid(path, v, `${name(path)} in body must be of type ${s.format}: ${JSON.stringify(v)}`));
}

function numbers(s: JSONSchemaProps, v: number, path: string, errs: FieldError[]): void {
  if (s.multipleOf !== undefined && s.multipleOf > 0 && !isWhole(v / s.multipleOf)) errs.push(invalidValue(path, v, `${name(path)} in body should be a multiple of ${s.multipleOf}`));
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum) {
      errs.push(invalidValue(path, v, `${name(path)} in body should be less than ${s.exclusiveMaximum === true ? '' : 'or equal to '}${s.maximum}`));
    }
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum) {
      errs.push(invalidValue(path, v, `${name(path)} in body should be greater than ${s.exclusiveMinimum === true ? '' : 'or equal to '}${s.minimum}`));
    }
  }
}

function arrays(s: JSONSchemaProps, v: unknown[], path: string, errs: FieldError[]): void {
  if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalidValue(path, v.length, `${name(path)} in body should have at least ${s.minItems} items`));
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(tooMany(path, v.length, s.maxItems));
  if (s.uniqueItems === true) {
    for (let i = 1; i < v.length; i++) {
      if (v.slice(0, i).some((x) => jsonEqual(x, v[i]))) {
        errs.push(duplicate(index(path, i), v[i]));
        break;
      }
    }
  }
  const items = itemsOf(s);
  if (items !== undefined) v.forEach((x, i) => validate(items, x, index(path, i), errs));
}

function objects(s: JSONSchemaProps, v: Record<string, unknown>, path: string, errs: FieldError[]): void {
  const count = Object.keys(v).length;
  if (s.maxProperties !== undefined && count > s.maxProperties) errs.push(tooMany(path, count, s.maxProperties));
  if (s.minProperties !== undefined && count < s.minProperties) errs.push(invalidValue(path, count, `${name(path)} in body should have at least ${s.minProperties} properties`));
  for (const r of s.required ?? []) if (!(r in v)) errs.push(required(child(path, r)));
  const props = s.properties ?? {};
  for (const [k, p] of Object.entries(props)) if (k in v) validate(p, v[k], child(path, k), errs);
  const additional = additionalOf(s);
  if (additional !== undefined) for (const [k, x] of Object.entries(v)) if (!(k in props)) validate(additional, x, child(path, k), errs);
}

// allOf, anyOf, oneOf and not: failures are reported on the root path with the composite message, then the
// errors of the alternative that came closest, as kube-openapi's schemaPropsValidator does.
function junctors(s: JSONSchemaProps, v: unknown, path: string, errs: FieldError[]): void {
  for (const sub of s.allOf ?? []) validate(sub, v, path, errs);
  const label = JSON.stringify(path);
  if (s.anyOf !== undefined && s.anyOf.length > 0) {
    const results = s.anyOf.map((sub) => validateValue(sub, v, path));
    if (!results.some((r) => r.length === 0)) {
      errs.push(invalidValue('<nil>', '', `${label} must validate at least one schema (anyOf)`));
      errs.push(...fewest(results));
    }
  }
  if (s.oneOf !== undefined && s.oneOf.length > 0) {
    const results = s.oneOf.map((sub) => validateValue(sub, v, path));
    const valid = results.filter((r) => r.length === 0).length;
    if (valid === 0) {
      errs.push(invalidValue('<nil>', '', `${label} must validate one and only one schema (oneOf)`));
      errs.push(...fewest(results));
    } else if (valid > 1) {
      errs.push(invalidValue('<nil>', '', `${label} must validate one and only one schema (oneOf). Found ${valid} valid alternatives`));
    }
  }
  if (isObj(s.not) && validateValue(s.not, v, path).length === 0) errs.push(invalidValue('<nil>', '', `${label} must not validate the schema (not)`));
}

function fewest(results: FieldError[][]): FieldError[] {
  let best = results[0]!;
  for (const r of results) if (r.length < best.length) best = r;
  return best;
}

/** JSON equality, with numbers compared by value and object key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => k in bo && jsonEqual(ao[k], bo[k]));
}
