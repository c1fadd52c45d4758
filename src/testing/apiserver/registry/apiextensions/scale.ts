/**
 * The scale subresource of custom resources: the CRD's JSON paths validated as apiextensions-apiserver does
 * (ValidateCustomResourceDefinitionSubresources) and read or written in an object
 * (k8s.io/apiextensions-apiserver/pkg/registry/customresource/etcd.go, scaleFromCustomResource).
 */
import { child, invalidValue, required, type FieldError } from '../field-errors.ts';
import { isObj } from './schema/json-schema-props.ts';

const simplePath = /^\.[a-zA-Z0-9_]+(\.[a-zA-Z0-9_]+)*$/;

function checkPath(v: unknown, path: string, under: string[], underMessage: string, need: boolean): FieldError[] {
  if (v === undefined || v === '') return need ? [required(path, '')] : [];
  if (typeof v !== 'string') return [invalidValue(path, v, 'must be a simple json path starting with .')];
  if (!v.startsWith('.')) return [invalidValue(path, v, 'must be a simple json path starting with .')];
  if (!simplePath.test(v)) return [invalidValue(path, v, 'must be a json path in the dot notation')];
  if (!under.some((u) => v.startsWith(`${u}.`))) return [invalidValue(path, v, underMessage)];
  return [];
}

/** The errors of a version's `subresources.scale` at `path`. */
export function validateScale(scale: Record<string, unknown>, path: string): FieldError[] {
  return [
    ...checkPath(scale.specReplicasPath, child(path, 'specReplicasPath'), ['.spec'], 'should be a json path under .spec', true),
    ...checkPath(scale.statusReplicasPath, child(path, 'statusReplicasPath'), ['.status'], 'should be a json path under .status', true),
    ...checkPath(scale.labelSelectorPath, child(path, 'labelSelectorPath'), ['.spec', '.status'], 'should be a json path under either .spec or .status', false),
  ];
}

/** The value at a simple `.a.b` path. */
export function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const p of path.split('.').slice(1)) cur = isObj(cur) ? cur[p] : undefined;
  return cur;
}

/** Sets the value at a simple `.a.b` path, creating objects on the way. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.').slice(1);
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isObj(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}
