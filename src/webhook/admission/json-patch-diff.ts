/**
 * The RFC 6902 JSONPatch between two JSON documents (gomodules.xyz/jsonpatch/v2 CreatePatch, which
 * controller-runtime's PatchResponseFromRaw uses): for objects, changed members are compared
 * recursively, new ones added and missing ones removed; values of different types, and scalars that
 * differ, are replaced; arrays are compared index by index, the longer tail removed from the end or
 * added after it. Applying the result to the first document gives the second (see json-patch-diff.test.ts).
 */
import type { JsonPatchOperation } from './types.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6901 escaping of one reference token. */
function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Deep equality of JSON values (member order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

// A JSON-only copy: undefined members dropped, as serialising would.
function plain(v: unknown): unknown {
  return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown);
}

function diff(a: unknown, b: unknown, path: string, out: JsonPatchOperation[]): void {
  if (jsonEqual(a, b)) return;
  if (isObject(a) && isObject(b)) {
    for (const [key, bv] of Object.entries(b)) {
      const p = `${path}/${escapeToken(key)}`;
      if (!Object.hasOwn(a, key)) out.push({ op: 'add', path: p, value: bv });
      else diff(a[key], bv, p, out);
    }
    for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) out.push({ op: 'remove', path: `${path}/${escapeToken(key)}` });
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) diff(a[i], b[i], `${path}/${i}`, out);
    for (let i = a.length - 1; i >= n; i--) out.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = n; i < b.length; i++) out.push({ op: 'add', path: `${path}/${i}`, value: b[i] });
    return;
  }
  out.push({ op: 'replace', path, value: b });
}

/** The operations that turn `original` into `current` (empty when they are equal). */
export function createPatch(original: unknown, current: unknown): JsonPatchOperation[] {
  const out: JsonPatchOperation[] = [];
  diff(plain(original), plain(current), '', out);
  return out;
}
