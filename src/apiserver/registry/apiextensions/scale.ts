/**
 * The scale subresource of custom resources: the CRD's JSON paths validated as apiextensions-apiserver does
 * (ValidateCustomResourceDefinitionSubresources), the autoscaling/v1 Scale read from the declared paths
 * (k8s.io/apiextensions-apiserver/pkg/registry/customresource/etcd.go, scaleFromCustomResource), and the
 * checks every write of such a resource passes (registry/customresource/validator.go, ValidateScaleSpec and
 * ValidateScaleStatus): replicas are int64s in [0, 2147483647], the selector a string, errors at the
 * declared path (`.spec.count: Invalid value: -1: should be a non-negative integer`).
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

/** The paths a CRD version declares for its scale subresource. */
export interface ScalePaths {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

// int32 bounds of Scale.spec.replicas (math.MaxInt32).
const maxInt32 = 2147483647;

/** Go's %T of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** Go's %v of a decoded JSON value. */
function goPlain(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goPlain).join(' ')}]`;
  if (isObj(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goPlain(v[k])}`).join(' ')}]`;
  return String(v as string | number | boolean);
}

/**
 * unstructured.NestedInt64 / NestedString at a `.a.b` path: the value, whether it was found, or the
 * accessor error (`.spec.count accessor error: x is of the type string, expected int64`).
 */
export function nestedValue(obj: unknown, path: string, want: 'int64' | 'string'): { value: number | string | undefined; error?: string } {
  const parts = path.split('.').slice(1);
  let cur: unknown = obj;
  for (let i = 0; i < parts.length; i++) {
    if (!isObj(cur)) {
      return { value: undefined, error: `.${parts.slice(0, i).join('.')} accessor error: ${goPlain(cur)} is of the type ${goType(cur)}, expected map[string]interface{}` };
    }
    if (!(parts[i]! in cur)) return { value: undefined };
    cur = cur[parts[i]!];
  }
  const ok = want === 'int64' ? typeof cur === 'number' && Number.isInteger(cur) : typeof cur === 'string';
  if (!ok) return { value: undefined, error: `${path} accessor error: ${goPlain(cur)} is of the type ${goType(cur)}, expected ${want}` };
  return { value: cur as number | string };
}

/** The errors of a custom resource's replicas and selector at the declared paths; `statusOnly` for /status writes. */
export function validateScaleValues(obj: Record<string, unknown>, paths: ScalePaths, statusOnly: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const replicas = (path: string): void => {
    const { value, error } = nestedValue(obj, path, 'int64');
    const n = typeof value === 'number' ? value : 0;
    if (error !== undefined) errs.push(invalidValue(path, 0, error));
    else if (n < 0) errs.push(invalidValue(path, n, 'should be a non-negative integer'));
    else if (n > maxInt32) errs.push(invalidValue(path, n, `should be less than or equal to ${maxInt32}`));
  };
  if (!statusOnly) replicas(paths.specReplicasPath);
  replicas(paths.statusReplicasPath);
  if (paths.labelSelectorPath !== undefined) {
    const { error } = nestedValue(obj, paths.labelSelectorPath, 'string');
    if (error !== undefined) errs.push(invalidValue(paths.labelSelectorPath, '', error));
  }
  return errs;
}

/** Thrown when a replicas or selector path holds a value of the wrong type. */
export class ScaleAccessError extends Error {
  readonly code = 'ScaleAccessError';
  constructor(message: string) {
    super(message);
    this.name = 'ScaleAccessError';
  }
}

/**
 * The autoscaling/v1 Scale of a custom resource (fields left out as Go's omitempty leaves them) and whether
 * spec replicas were found; throws {@link ScaleAccessError} for values of the wrong type.
 */
export function scaleFromCustomResource(obj: Record<string, unknown>, paths: ScalePaths): { scale: Record<string, unknown>; found: boolean } {
  const spec = nestedValue(obj, paths.specReplicasPath, 'int64');
  const status = nestedValue(obj, paths.statusReplicasPath, 'int64');
  const selector = paths.labelSelectorPath === undefined ? { value: undefined } : nestedValue(obj, paths.labelSelectorPath, 'string');
  const error = spec.error ?? status.error ?? selector.error;
  if (error !== undefined) throw new ScaleAccessError(error);
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  return { scale: scaleObject(meta, typeof spec.value === 'number' ? spec.value : 0, typeof status.value === 'number' ? status.value : 0, typeof selector.value === 'string' ? selector.value : ''), found: spec.value !== undefined };
}

/** An autoscaling/v1 Scale as it is encoded: spec.replicas and status.selector omitted when empty. */
export function scaleObject(meta: Record<string, unknown>, specReplicas: number, statusReplicas: number, selector: string): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']) if (meta[k] !== undefined && meta[k] !== '') metadata[k] = meta[k];
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: specReplicas === 0 ? {} : { replicas: specReplicas },
    status: { replicas: statusReplicas, ...(selector === '' ? {} : { selector }) },
  };
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
