/**
 * Ready-made transforms for {@link SharedIndexInformer.setTransform} (cache.TransformFunc).
 */
import type { KubeObject } from '../../apimachinery/object.ts';

/**
 * Drops `metadata.managedFields`, usually the largest part of an object's metadata and useless to
 * controllers, before the object is cached (the transform client-go's docs recommend). Mutates the
 * object in place when it is not frozen (objects from the server are fresh), copies otherwise.
 *
 * @example
 * informer.setTransform(stripManagedFields);
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta?.managedFields === undefined) return obj;
  if (!Object.isFrozen(obj) && !Object.isFrozen(meta)) {
    delete meta.managedFields;
    return obj;
  }
  const { managedFields: _dropped, ...rest } = meta;
  return { ...obj, metadata: rest };
}

/** Chains transforms left to right. */
export function composeTransforms<T>(...fns: ((obj: T) => T)[]): (obj: T) => T {
  return (obj) => {
    let out = obj;
    for (const fn of fns) out = fn(out);
    return out;
  };
}
