/**
 * Object keys (client-go tools/cache store.go, controller.go and index.go): the `namespace/name`
 * key function, the tombstone that stands for an object whose final state is unknown, and the
 * namespace index function.
 */
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { KubeObject } from '../../apimachinery/object.ts';

/** Computes the store key of an object; throws {@link KeyError} when it cannot. */
export type KeyFunc<T> = (obj: T | DeletedFinalStateUnknown<T>) => string;

/** Thrown when a key cannot be computed for an object (cache.KeyError). */
export class KeyError extends KubeloomError {
  /** The object whose key could not be computed. */
  readonly obj: unknown;
  constructor(obj: unknown, message: string, options?: { cause?: unknown }) {
    super('ERR_CACHE_KEY', `couldn't create key for object ${describe(obj)}: ${message}`, options);
    this.obj = obj;
  }
}

/**
 * Computes `obj`'s key with `keyFunc`, reporting any failure as a {@link KeyError} whose `cause` is
 * the key function's own error (cache.KeyError wraps whatever the KeyFunc returned).
 */
export function keyOrKeyError<O>(keyFunc: (obj: O) => string, obj: O): string {
  try {
    return keyFunc(obj);
  } catch (err) {
    if (err instanceof KeyError) throw err;
    throw new KeyError(obj, err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** Thrown by {@link splitMetaNamespaceKey} for a key that is neither `name` nor `namespace/name`. */
export class InvalidKeyError extends KubeloomError {
  /** The key that could not be split. */
  readonly key: string;
  constructor(key: string) {
    super('ERR_CACHE_INVALID_KEY', `unexpected key format: ${JSON.stringify(key)}`);
    this.key = key;
  }
}

function describe(obj: unknown): string {
  try {
    const s = JSON.stringify(obj);
    return s === undefined ? String(obj) : s.length > 200 ? `${s.slice(0, 200)}…` : s;
  } catch {
    return String(obj);
  }
}

/**
 * The placeholder queued in a Deleted delta when an object vanished while the watch was down and
 * only the relist noticed (cache.DeletedFinalStateUnknown). `obj` is the last state the cache knew,
 * which may be stale, or undefined when even that is unknown.
 */
export class DeletedFinalStateUnknown<T = unknown> {
  /** The object's store key. */
  readonly key: string;
  /** The last known state of the object, if any. */
  readonly obj: T | undefined;
  constructor(key: string, obj: T | undefined) {
    this.key = key;
    this.obj = obj;
    Object.freeze(this);
  }
}

/** True for a {@link DeletedFinalStateUnknown} tombstone. */
export function isDeletedFinalStateUnknown(value: unknown): value is DeletedFinalStateUnknown {
  return value instanceof DeletedFinalStateUnknown;
}

function metaOf(obj: unknown): { namespace?: string | undefined; name?: string | undefined } {
  if (typeof obj !== 'object' || obj === null) throw new KeyError(obj, 'object has no meta');
  const meta = (obj as KubeObject).metadata;
  if (typeof meta !== 'object' || meta === null) throw new KeyError(obj, 'object has no meta');
  return meta;
}

/**
 * A key standing for an object the caller does not hold (cache.ExplicitKey, store.go): the key
 * functions return it as it is, so a store can be asked about a key alone (e.g. to delete by key).
 *
 * @example
 * store.delete(new ExplicitKey('default/web') as unknown as Pod);
 */
export class ExplicitKey {
  /** The key itself. */
  readonly key: string;
  constructor(key: string) {
    this.key = key;
    Object.freeze(this);
  }

  /** The key (Go's `string(key)`). */
  toString(): string {
    return this.key;
  }
}

/**
 * The default key function (cache.MetaNamespaceKeyFunc): `namespace/name`, or `name` for
 * cluster-scoped objects; an {@link ExplicitKey} is its own key. Throws {@link KeyError} for a
 * value without metadata.
 */
export function metaNamespaceKeyFunc(obj: unknown): string {
  if (obj instanceof ExplicitKey) return obj.key;
  const meta = metaOf(obj);
  const ns = meta.namespace ?? '';
  const name = meta.name ?? '';
  return ns === '' ? name : `${ns}/${name}`;
}

/**
 * {@link metaNamespaceKeyFunc} that also accepts a {@link DeletedFinalStateUnknown} tombstone and
 * returns its key (cache.DeletionHandlingMetaNamespaceKeyFunc). Use it in delete handlers.
 */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  return metaNamespaceKeyFunc(obj);
}

/**
 * Splits a key made by {@link metaNamespaceKeyFunc} into namespace and name
 * (cache.SplitMetaNamespaceKey). Throws {@link InvalidKeyError} for more than one `/`.
 */
export function splitMetaNamespaceKey(key: string): {
  /** The namespace ('' for a cluster-scoped key). */
  namespace: string;
  /** The name. */
  name: string;
} {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0]! };
  if (parts.length === 2) return { namespace: parts[0]!, name: parts[1]! };
  throw new InvalidKeyError(key);
}

/** The name of the built-in namespace index (cache.NamespaceIndex). */
export const NamespaceIndex = 'namespace';

/** Indexes an object by its namespace, '' for cluster-scoped objects (cache.MetaNamespaceIndexFunc). */
export function metaNamespaceIndexFunc(obj: unknown): string[] {
  return [metaOf(obj).namespace ?? ''];
}
