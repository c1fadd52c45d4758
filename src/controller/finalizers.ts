/**
 * Adding and removing finalizers without ever overwriting a concurrent change: each write is a JSON
 * Patch whose `test` operations pin the resourceVersion and the finalizer list the caller saw. If the
 * object changed meanwhile the server refuses the patch (422 Invalid for a failed test, 409 Conflict
 * for a stale resourceVersion) and the caller retries from its informer's newer copy — the usual
 * reconcile loop does exactly that when the error is thrown.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import { PatchType, type PatchOptions, type PatchTypeValue } from '../apimachinery/options.ts';
import { isConflict, isInvalid } from '../apimachinery/errors.ts';
import type { CustomResource } from '../kubernetes/resource-spec.ts';

/** What the finalizer helpers need from a resource client (`clientset.coreV1().pods(ns)`, a dynamic client, ...). */
export interface PatchClient<T> {
  /** Patches the object named `name` (a typed or dynamic resource client fits). */
  patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<T>;
}

/** One RFC 6902 operation, as the helpers build them. */
export type JsonPatchOperation =
  | {
      /** Fail the whole patch unless the value at `path` equals `value`. */
      op: 'test';
      /** JSON Pointer to the tested value, e.g. `/metadata/finalizers`. */
      path: string;
      /** The expected value. */
      value: unknown;
    }
  | {
      /** Insert `value` at `path` (`/-` appends to a list). */
      op: 'add';
      /** JSON Pointer of the new value. */
      path: string;
      /** The value to insert. */
      value: unknown;
    }
  | {
      /** Remove the value at `path`. */
      op: 'remove';
      /** JSON Pointer of the removed value. */
      path: string;
    };

/** True when the object lists `finalizer` in metadata.finalizers. */
export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** True when the object is being deleted (metadata.deletionTimestamp is set). */
export function isBeingDeleted(obj: KubeObject): boolean {
  const ts = obj.metadata?.deletionTimestamp;
  return ts !== undefined && ts !== null && ts !== '';
}

function preconditions(obj: KubeObject): JsonPatchOperation[] {
  const rv = obj.metadata?.resourceVersion;
  return rv !== undefined && rv !== '' ? [{ op: 'test', path: '/metadata/resourceVersion', value: rv }] : [];
}

/**
 * The JSON Patch adding `finalizer` to `obj` as seen, or undefined when it is already there. The
 * patch tests the resourceVersion and the current finalizer list before appending.
 */
export function addFinalizerPatch(obj: KubeObject, finalizer: string): JsonPatchOperation[] | undefined {
  if (hasFinalizer(obj, finalizer)) return undefined;
  const current = obj.metadata?.finalizers;
  if (current === undefined || current.length === 0) {
    // An absent or empty list: `test` cannot assert absence, the resourceVersion test guards it.
    return [...preconditions(obj), { op: 'add', path: '/metadata/finalizers', value: [finalizer] }];
  }
  return [...preconditions(obj), { op: 'test', path: '/metadata/finalizers', value: [...current] }, { op: 'add', path: '/metadata/finalizers/-', value: finalizer }];
}

/**
 * The JSON Patch removing every occurrence of `finalizer` from `obj` as seen, or undefined when it
 * is not there. Each removed element is tested first, from the end so indices stay valid.
 */
export function removeFinalizerPatch(obj: KubeObject, finalizer: string): JsonPatchOperation[] | undefined {
  const current = obj.metadata?.finalizers ?? [];
  if (!current.includes(finalizer)) return undefined;
  const ops: JsonPatchOperation[] = [...preconditions(obj), { op: 'test', path: '/metadata/finalizers', value: [...current] }];
  for (let i = current.length - 1; i >= 0; i--) {
    if (current[i] === finalizer) ops.push({ op: 'remove', path: `/metadata/finalizers/${i}` });
  }
  return ops;
}

/**
 * What the finalizer helpers need from the Manager's client (kubeloom/client's `Client`): a patch
 * addressed by kind and object.
 */
export interface KindPatchClient {
  /** Patches `target` of `kind` (the Manager's `client.patch`). */
  patch<T extends KubeObject>(kind: CustomResource<T, unknown>, target: T, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions): Promise<T>;
}

type FinalizerArgs<T extends KubeObject> = [client: PatchClient<T>, obj: T, finalizer: string, options?: PatchOptions] | [client: KindPatchClient, kind: CustomResource<T, unknown>, obj: T, finalizer: string, options?: PatchOptions];

// Sends `patch` through whichever client was given; undefined patch: nothing to do.
async function send<T extends KubeObject>(args: FinalizerArgs<T>, build: (obj: T, finalizer: string) => JsonPatchOperation[] | undefined): Promise<T> {
  if (typeof args[2] === 'string') {
    const [client, obj, finalizer, options] = args as [PatchClient<T>, T, string, PatchOptions?];
    const patch = build(obj, finalizer);
    if (patch === undefined) return obj;
    return client.patch(obj.metadata?.name ?? '', PatchType.JSON, patch, options ?? {});
  }
  const [client, kind, obj, finalizer, options] = args as [KindPatchClient, CustomResource<T, unknown>, T, string, PatchOptions?];
  const patch = build(obj, finalizer);
  if (patch === undefined) return obj;
  return client.patch(kind, obj, PatchType.JSON, patch, options ?? {});
}

/**
 * Adds `finalizer` to `obj` on the server, through a resource client (`clientset.coreV1().pods(ns)`)
 * or the Manager's client with the object's kind. Resolves with the patched object, or with `obj`
 * itself (no request) when the finalizer is already present. Rejects with the server's error when
 * `obj` is stale (see {@link isFinalizerPatchConflict}).
 *
 * @example
 * if (!hasFinalizer(podSet, 'demo.kubeloom.dev/pods')) await addFinalizer(podSets, podSet, 'demo.kubeloom.dev/pods');
 * // in a Manager's reconcile:
 * await addFinalizer(context.client, websites, website, 'example.com/cleanup');
 */
export async function addFinalizer<T extends KubeObject>(client: PatchClient<T>, obj: T, finalizer: string, options?: PatchOptions): Promise<T>;
export async function addFinalizer<T extends KubeObject>(client: KindPatchClient, kind: CustomResource<T, unknown>, obj: T, finalizer: string, options?: PatchOptions): Promise<T>;
export async function addFinalizer<T extends KubeObject>(...args: FinalizerArgs<T>): Promise<T> {
  return send(args, addFinalizerPatch);
}

/**
 * Removes `finalizer` from `obj` on the server (through either client, as {@link addFinalizer}).
 * Resolves with the patched object (which may already be gone from the server if this was the last
 * finalizer of a deleted object), or with `obj` itself when the finalizer is absent.
 */
export async function removeFinalizer<T extends KubeObject>(client: PatchClient<T>, obj: T, finalizer: string, options?: PatchOptions): Promise<T>;
export async function removeFinalizer<T extends KubeObject>(client: KindPatchClient, kind: CustomResource<T, unknown>, obj: T, finalizer: string, options?: PatchOptions): Promise<T>;
export async function removeFinalizer<T extends KubeObject>(...args: FinalizerArgs<T>): Promise<T> {
  return send(args, removeFinalizerPatch);
}

/**
 * True for the errors a finalizer patch fails with when the object changed since it was read: a
 * failed `test` (422 Invalid) or a resourceVersion conflict (409). Retry with a fresh copy.
 */
export function isFinalizerPatchConflict(err: unknown): boolean {
  return isConflict(err) || isInvalid(err);
}
