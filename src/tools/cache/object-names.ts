/**
 * Structured object names (client-go tools/cache object-names.go, with ObjectToName and
 * MetaObjectToName from store.go and DeletionHandlingObjectToName from controller.go): a
 * namespace and a name instead of a `namespace/name` string, for work queues keyed by name.
 */
import type { KubeObject } from '../../apimachinery/object.ts';
import { DeletedFinalStateUnknown, KeyError, splitMetaNamespaceKey } from './key-functions.ts';

/** An object's namespace ('' when cluster-scoped) and name (cache.ObjectName). */
export interface ObjectName {
  /** The namespace, '' for a cluster-scoped object. */
  readonly namespace: string;
  /** The name. */
  readonly name: string;
}

/** A frozen {@link ObjectName} (cache.NewObjectName). */
export function newObjectName(namespace: string, name: string): ObjectName {
  return Object.freeze({ namespace, name });
}

/** `namespace/name`, or `name` when the namespace is '' (ObjectName.String): the store key of the object. */
export function objectNameString(objName: ObjectName): string {
  return objName.namespace === '' ? objName.name : `${objName.namespace}/${objName.name}`;
}

/**
 * The {@link ObjectName} of a store key (cache.ParseObjectName); throws an InvalidKeyError for a
 * key with more than one `/`, as splitMetaNamespaceKey.
 */
export function parseObjectName(key: string): ObjectName {
  const { namespace, name } = splitMetaNamespaceKey(key);
  return newObjectName(namespace, name);
}

/** The {@link ObjectName} of an object's metadata (cache.MetaObjectToName). */
export function metaObjectToName(meta: { namespace?: string | undefined; name?: string | undefined }): ObjectName {
  return newObjectName(meta.namespace ?? '', meta.name ?? '');
}

/**
 * The {@link ObjectName} of an object with metadata (cache.ObjectToName); throws a KeyError
 * ("object has no meta") for anything else, an ExplicitKey included, as meta.Accessor fails for it.
 */
export function objectToName(obj: unknown): ObjectName {
  const meta = typeof obj === 'object' && obj !== null ? (obj as KubeObject).metadata : undefined;
  if (typeof meta !== 'object' || meta === null) throw new KeyError(obj, 'object has no meta');
  return metaObjectToName(meta);
}

/**
 * {@link objectToName} that also accepts a {@link DeletedFinalStateUnknown} tombstone, whose key it
 * parses (cache.DeletionHandlingObjectToName). Use it in delete handlers.
 */
export function deletionHandlingObjectToName(obj: unknown): ObjectName {
  if (obj instanceof DeletedFinalStateUnknown) return parseObjectName(obj.key);
  return objectToName(obj);
}
