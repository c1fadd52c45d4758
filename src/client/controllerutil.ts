/**
 * Create-or-update helpers (controller-runtime pkg/controller/controllerutil/controllerutil.go
 * CreateOrUpdate, CreateOrPatch, OperationResult): read the object, let a mutate function bring it to
 * the desired state, and write only when something changed.
 *
 * As upstream, `obj` is filled in place: with the server's (or cache's) state before `mutate` runs, and
 * with the written object after the write, so it must be a mutable object of your own (not one read
 * from the cache). `mutate` may not change the name or namespace. Changes are detected with a deep
 * comparison of the JSON data (equality.Semantic.DeepEqual, less its special cases for quantities).
 */
import { isNotFound, KubeloomError } from '../apimachinery/errors.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { PatchType } from '../apimachinery/options.ts';
import type { Client } from './client.ts';
import type { ResourceKind } from './kinds.ts';

/** What createOrUpdate / createOrPatch did (controllerutil.OperationResult). */
export const OperationResult = {
  /** Nothing changed (OperationResultNone). */
  None: 'unchanged',
  /** The object was created. */
  Created: 'created',
  /** The object was updated (createOrPatch: its spec, not its status). */
  Updated: 'updated',
  /** createOrPatch: the object and its status were patched. */
  UpdatedStatus: 'updatedStatus',
  /** createOrPatch: only its status was patched. */
  UpdatedStatusOnly: 'updatedStatusOnly',
} as const;

/** One of {@link OperationResult}. */
export type OperationResultValue = (typeof OperationResult)[keyof typeof OperationResult];

/** The mutate function renamed or moved the object (controllerutil's "MutateFn cannot mutate object name and/or object namespace"). */
export class MutateKeyChangedError extends KubeloomError {
  constructor() {
    super('ERR_MUTATE_KEY_CHANGED', 'MutateFn cannot mutate object name and/or object namespace');
  }
}

/** Brings `obj` to its desired state, in place (controllerutil.MutateFn). */
export type MutateFn<T> = (obj: T) => void | Promise<void>;

function keyOf(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** Deep equality of JSON data (objects, arrays, primitives); `undefined` members count as absent. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!jsonEqual(ao[k], bo[k])) return false;
  return true;
}

/** A JSON merge patch (RFC 7386) turning `from` into `to`; undefined when they are equal. */
function mergePatch(from: unknown, to: unknown): unknown {
  if (jsonEqual(from, to)) return undefined;
  if (typeof from !== 'object' || typeof to !== 'object' || from === null || to === null || Array.isArray(from) || Array.isArray(to)) return to ?? null;
  const out: Record<string, unknown> = {};
  const f = from as Record<string, unknown>;
  const t = to as Record<string, unknown>;
  for (const k of new Set([...Object.keys(f), ...Object.keys(t)])) {
    if (t[k] === undefined) {
      if (f[k] !== undefined) out[k] = null;
      continue;
    }
    const p = mergePatch(f[k], t[k]);
    if (p !== undefined) out[k] = p;
  }
  return out;
}

function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, structuredClone(source));
}

async function mutate<T extends KubeObject>(fn: MutateFn<T>, key: string, obj: T): Promise<void> {
  await fn(obj);
  if (keyOf(obj) !== key) throw new MutateKeyChangedError();
}

/** Reads `obj`'s current state into it; false when it does not exist. */
async function read<T extends KubeObject>(client: Client, kind: ResourceKind<T, unknown>, obj: T, signal?: AbortSignal): Promise<boolean> {
  try {
    const current = await client.get(kind, { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' }, signal !== undefined ? { signal } : {});
    replaceContents(obj, current);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/**
 * Creates `obj` or updates it with `mutate` applied (controllerutil.CreateOrUpdate): the object is read
 * (from the cache) into `obj`; when absent, `mutate` runs on `obj` as given and it is created; else
 * `mutate` runs on the current state and the object is updated only if that changed it.
 *
 * @example
 * const cm: ConfigMap = { metadata: { namespace: 'default', name: 'settings' } };
 * const result = await createOrUpdate(client, kinds.coreV1.configMaps, cm, (c) => {
 *   c.data = { ...c.data, mode: 'fast' };
 * });
 * // result: 'created' | 'updated' | 'unchanged'; cm is what the server stored
 */
export async function createOrUpdate<T extends KubeObject>(client: Client, kind: ResourceKind<T, unknown>, obj: T, fn: MutateFn<T>, options: { signal?: AbortSignal } = {}): Promise<OperationResultValue> {
  const key = keyOf(obj);
  const opts = options.signal !== undefined ? { signal: options.signal } : {};
  if (!(await read(client, kind, obj, options.signal))) {
    await mutate(fn, key, obj);
    replaceContents(obj, await client.create(kind, obj, opts));
    return OperationResult.Created;
  }
  const existing = structuredClone(obj);
  await mutate(fn, key, obj);
  if (jsonEqual(existing, obj)) return OperationResult.None;
  replaceContents(obj, await client.update(kind, obj, opts));
  return OperationResult.Updated;
}

/**
 * Creates `obj` or patches it with `mutate` applied (controllerutil.CreateOrPatch): like
 * {@link createOrUpdate}, but writes JSON merge patches of what `mutate` changed, the object without its
 * status first, then the status subresource; the result says which were written.
 */
export async function createOrPatch<T extends KubeObject>(client: Client, kind: ResourceKind<T, unknown>, obj: T, fn: MutateFn<T>, options: { signal?: AbortSignal } = {}): Promise<OperationResultValue> {
  const key = keyOf(obj);
  const opts = options.signal !== undefined ? { signal: options.signal } : {};
  if (!(await read(client, kind, obj, options.signal))) {
    await mutate(fn, key, obj);
    replaceContents(obj, await client.create(kind, obj, opts));
    return OperationResult.Created;
  }
  const before = structuredClone(obj) as KubeObject & { status?: unknown };
  await mutate(fn, key, obj);
  const after = structuredClone(obj) as KubeObject & { status?: unknown };
  const { status: statusBefore, ...restBefore } = before;
  const { status: statusAfter, ...restAfter } = after;
  const patch = mergePatch(restBefore, restAfter);
  const statusPatch = mergePatch(statusBefore, statusAfter);
  if (patch !== undefined) replaceContents(obj, await client.patch(kind, obj, PatchType.Merge, patch, opts));
  if (statusPatch !== undefined) {
    // The status of the mutated object, on top of what the first patch returned.
    replaceContents(obj, await client.patchStatus(kind, obj, PatchType.Merge, { status: statusPatch }, opts));
  }
  if (patch !== undefined && statusPatch !== undefined) return OperationResult.UpdatedStatus;
  if (statusPatch !== undefined) return OperationResult.UpdatedStatusOnly;
  if (patch !== undefined) return OperationResult.Updated;
  return OperationResult.None;
}
