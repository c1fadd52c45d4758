/**
 * JSON merge patch (RFC 7386), as kube-apiserver applies `application/merge-patch+json` bodies.
 */
import { cloneJson, isObject, setMember } from './json-value.ts';

/**
 * Applies an RFC 7386 merge patch: objects merge recursively, `null` deletes a member, and any
 * non-object patch value (arrays included) replaces the target wholesale. Never mutates its inputs.
 *
 * @example
 * applyMergePatch({ a: 1, b: { c: 2 } }, { a: null, b: { d: 3 } }); // { b: { c: 2, d: 3 } }
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  return mergeOwned(cloneJson(doc), patch);
}

// `target` is already a private copy, so it can be updated in place.
function mergeOwned(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const result: Record<string, unknown> = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setMember(result, key, mergeOwned(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
