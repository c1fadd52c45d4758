/**
 * Small helpers over ObjectMeta, and the `namespace/name` object key used throughout kubeloom
 * (cache.MetaNamespaceKeyFunc's format).
 */
import type { KubeObject } from './object.ts';

/** The object's namespace, '' for cluster-scoped objects. */
export function namespaceOf(obj: KubeObject): string {
  return obj.metadata?.namespace ?? '';
}

/** The object's name, '' if unset. */
export function nameOf(obj: KubeObject): string {
  return obj.metadata?.name ?? '';
}

/** The object's resourceVersion, '' if unset. */
export function resourceVersionOf(obj: KubeObject): string {
  return obj.metadata?.resourceVersion ?? '';
}

/** The `namespace/name` key of an object, or just `name` when it has no namespace. */
export function objectKey(obj: KubeObject): string {
  const ns = namespaceOf(obj);
  const name = nameOf(obj);
  return ns === '' ? name : `${ns}/${name}`;
}

/** Builds a key from a namespace and a name (cache.ObjectName.String). */
export function keyOf(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}
