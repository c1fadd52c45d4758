/**
 * Drops the empty maps of a built-in object (`data: {}`, `spec.selector: {}`, `nodeSelector: {}` ...),
 * as kube-apiserver's storage round trip does: every map field of k8s.io/api is `omitempty`, the object
 * is written to etcd as protobuf and decoded back with a nil map (staging/src/k8s.io/apiserver/pkg/
 * storage/etcd3/store.go decodes what it stored), so an empty map never comes back. Custom resources
 * are stored as JSON and keep theirs. Where the maps are comes from the API model
 * (generated/map-fields.ts); structs stay even when empty (`securityContext: {}`).
 */
import { mapFieldsOfType, mapHoldingKinds } from './generated/map-fields.ts';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyMap(v: unknown): boolean {
  return isObj(v) && Object.keys(v).length === 0;
}

function walk(obj: Obj, type: string): void {
  const fields = mapFieldsOfType[type];
  if (fields === undefined) return;
  for (const [field, shape] of Object.entries(fields)) {
    const v = obj[field];
    if (v === undefined) continue;
    if (shape === '' || shape.startsWith('map:')) {
      if (isEmptyMap(v)) {
        delete obj[field];
        continue;
      }
      if (shape !== '' && isObj(v)) for (const value of Object.values(v)) visit(value, shape.slice(4));
      continue;
    }
    visit(v, shape);
  }
}

function visit(v: unknown, type: string): void {
  if (Array.isArray(v)) {
    for (const item of v) if (isObj(item)) walk(item, type);
  } else if (isObj(v)) walk(v, type);
}

/** Removes, in place, the empty maps of an object of the built-in kind `group/version/kind`. */
export function dropEmptyMaps(group: string, version: string, kind: string, obj: Obj): void {
  const type = mapHoldingKinds[`${group}/${version}/${kind}`];
  if (type !== undefined) walk(obj, type);
}
