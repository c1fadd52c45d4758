/**
 * Uniqueness of `x-kubernetes-list-type: set` items and `map` keys, as apiextensions-apiserver checks it after
 * schema validation (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype/validation.go): the second and
 * later occurrences are `Duplicate value` errors at their index, a map list's duplicate reported by its keys.
 */
import { duplicate, index, invalidValue, child, type FieldError } from '../../field-errors.ts';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps } from './json-schema-props.ts';
import { jsonEqual } from './validation.ts';

/** The duplicate errors of every set and map list under `value`. */
export function validateListSetsAndMaps(schema: JSONSchemaProps, value: unknown, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, value, path, errs);
  return errs;
}

function walk(s: JSONSchemaProps | undefined, v: unknown, path: string, errs: FieldError[]): void {
  if (s === undefined) return;
  if (Array.isArray(v)) {
    const type = s['x-kubernetes-list-type'];
    if (type === 'set') errs.push(...duplicatesOf(v, v, path));
    else if (type === 'map') errs.push(...mapDuplicates(s, v, path));
    const items = itemsOf(s);
    v.forEach((x, i) => walk(items, x, index(path, i), errs));
  } else if (isObj(v)) {
    const props = s.properties ?? {};
    const additional = additionalOf(s);
    for (const [k, x] of Object.entries(v)) walk(props[k] ?? additional, x, child(path, k), errs);
  }
}

// Indexes of the second and later equal values, reported with the item itself.
function duplicatesOf(keys: unknown[], report: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (let i = 1; i < keys.length; i++) {
    for (let j = 0; j < i; j++) {
      if (jsonEqual(keys[i], keys[j])) {
        errs.push(duplicate(index(path, i), report[i]));
        break;
      }
    }
  }
  return errs;
}

function mapDuplicates(s: JSONSchemaProps, v: unknown[], path: string): FieldError[] {
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (x !== null && !isObj(x)) return [invalidValue(index(path, i), x, 'must be an object for an array of list-type map')];
  }
  if (v.length <= 1) return [];
  const keyFields = s['x-kubernetes-list-map-keys'] ?? [];
  const keys = v.map((x) => {
    const o = isObj(x) ? x : {};
    const k: Record<string, unknown> = {};
    for (const f of keyFields) if (f in o) k[f] = o[f];
    return k;
  });
  return duplicatesOf(keys, keys, path);
}
