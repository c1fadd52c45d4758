/**
 * Pruning of fields a structural schema does not declare, as apiextensions-apiserver prunes custom resources
 * on every write and read (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go):
 * unknown fields go unless `x-kubernetes-preserve-unknown-fields` keeps them; at the resource root and in
 * embedded resources apiVersion, kind and metadata stay, metadata keeping only ObjectMeta's fields (silently,
 * as the ObjectMeta decoding upstream drops them). The pruned paths feed fieldValidation's "unknown field" reports.
 */
import { child, index } from '../../field-errors.ts';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps } from './json-schema-props.ts';

// The fields of metav1.ObjectMeta.
const objectMetaFields = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

/**
 * Removes, in place, every field of `value` the schema does not declare; `isResourceRoot` keeps the type and
 * object meta at the top. Returns the paths of the pruned fields, sorted (metadata's excepted).
 */
export function prune(value: unknown, schema: JSONSchemaProps | undefined, isResourceRoot: boolean): string[] {
  const pruned: string[] = [];
  walk(value, schema, isResourceRoot, '', pruned);
  return pruned.sort();
}

function walk(v: unknown, s: JSONSchemaProps | undefined, isRoot: boolean, path: string, pruned: string[]): void {
  if (Array.isArray(v)) {
    const items = s === undefined ? undefined : itemsOf(s);
    if (s !== undefined && items === undefined && s['x-kubernetes-preserve-unknown-fields'] === true) return;
    v.forEach((x, i) => walk(x, items, false, index(path, i), pruned));
    return;
  }
  if (!isObj(v)) return;
  const embedded = isRoot || s?.['x-kubernetes-embedded-resource'] === true;
  const preserve = s?.['x-kubernetes-preserve-unknown-fields'] === true;
  const props = s?.properties ?? {};
  const additional = s === undefined ? undefined : additionalOf(s);
  for (const k of Object.keys(v)) {
    const x = v[k];
    if (embedded && (k === 'apiVersion' || k === 'kind')) continue;
    if (embedded && k === 'metadata') {
      if (isObj(x)) for (const m of Object.keys(x)) if (!objectMetaFields.has(m)) delete x[m];
      continue;
    }
    const p = props[k];
    if (p !== undefined) walk(x, p, false, child(path, k), pruned);
    else if (additional !== undefined) walk(x, additional, false, child(path, k), pruned);
    else if (s !== undefined && (preserve || s.additionalProperties === true)) walk(x, undefined, false, child(path, k), pruned);
    else if (s === undefined) walk(x, undefined, false, child(path, k), pruned);
    else {
      delete v[k];
      pruned.push(child(path, k));
    }
  }
}
