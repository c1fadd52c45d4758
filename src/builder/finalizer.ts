/**
 * The finalizer helper (kube-rs kube-runtime/src/finalizer.rs, and controller-runtime's
 * pkg/finalizer): one reconcile over the two phases of an object's life. While the object lives, the
 * finalizer is added first (that write triggers the next reconcile) and `apply` runs; once the object is
 * being deleted and still carries the finalizer, `cleanup` runs and then the finalizer is removed, which
 * lets the deletion finish. Finalizers are added and removed with a JSON patch that tests the list it
 * replaces, as kube-rs does, so a concurrent change to the finalizers fails with a conflict and is retried.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import { isNotFound } from '../apimachinery/errors.ts';
import { PatchType } from '../apimachinery/options.ts';
import type { Client } from '../client/client.ts';
import type { ResourceKind } from '../client/kinds.ts';
import type { ReconcileContext, ReconcileFunc, Result } from '../reconcile/reconcile.ts';

/** The two phases of a finalizer-guarded reconcile (kube-rs finalizer::Event). */
export interface FinalizerHandlers<T extends KubeObject> {
  /** The object lives (and carries the finalizer): bring the world to its desired state. */
  apply(obj: T, context: ReconcileContext<Client>): Promise<Result> | Result;
  /** The object is being deleted: release what `apply` created outside the cluster; then the finalizer goes. */
  cleanup(obj: T, context: ReconcileContext<Client>): Promise<Result> | Result;
}

function finalizerPatch(obj: KubeObject, finalizers: string[]): unknown[] {
  const current = obj.metadata?.finalizers;
  // "test" makes the patch fail if someone changed the list meanwhile.
  if (current === undefined) return [{ op: 'add', path: '/metadata/finalizers', value: finalizers }];
  return [
    { op: 'test', path: '/metadata/finalizers', value: current },
    { op: 'replace', path: '/metadata/finalizers', value: finalizers },
  ];
}

/** A reconcile function running `handlers` for objects of `kind` guarded by finalizer `name`. */
export function finalizerReconcile<T extends KubeObject>(kind: ResourceKind<T, unknown>, name: string, handlers: FinalizerHandlers<T>): ReconcileFunc<Client> {
  return async (request, context) => {
    const client = context.client;
    let obj: T;
    try {
      // Read-only use (the handlers get the cached object, and the finalizers are changed by patch);
      // a generic T cannot be proven equal to DeepReadonly<T>.
      obj = (await client.get(kind, request, { signal: context.signal })) as T;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const finalizers = obj.metadata?.finalizers ?? [];
    const has = finalizers.includes(name);
    if (obj.metadata?.deletionTimestamp === undefined) {
      if (!has) {
        await client.patch(kind, obj, PatchType.JSON, finalizerPatch(obj, [...finalizers, name]), { signal: context.signal });
        // The patch's own event reconciles again, now with the finalizer.
        return undefined;
      }
      return handlers.apply(obj, context);
    }
    if (!has) return undefined;
    const result = await handlers.cleanup(obj, context);
    try {
      await client.patch(kind, obj, PatchType.JSON, finalizerPatch(obj, finalizers.filter((f) => f !== name)), { signal: context.signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return result;
  };
}
