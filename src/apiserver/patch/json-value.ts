/**
 * Helpers over plain JSON values (the output of JSON.parse), shared by every patch flavour.
 */

/** A JSON object as produced by JSON.parse. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets an own member, also for the key `__proto__` (which JSON.parse creates as a plain member but a
 * plain assignment would turn into a prototype change).
 */
export function setMember(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Deep copy of a JSON value; patches never share structure with their inputs. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => cloneJson(v)) as T;
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setMember(out, k, cloneJson(v));
    return out as T;
  }
  return value;
}

/** Structural equality of JSON values (object key order ignored, array order significant). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Kind of a JSON value as Go's encoding/json would see it, for type-mismatch checks. */
export function jsonKind(value: unknown): 'null' | 'object' | 'array' | 'string' | 'number' | 'boolean' | 'other' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'object': return 'object';
    case 'string': return 'string';
    case 'number': return 'number';
    case 'boolean': return 'boolean';
    default: return 'other';
  }
}
