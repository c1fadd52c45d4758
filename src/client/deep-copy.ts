/**
 * Copies of cached objects (apimachinery's generated `DeepCopy()` methods, zz_generated.deepcopy.go).
 * Objects read from the cache (the client's `get`/`list`, informers' stores, event handlers) are the
 * cache's own and deeply frozen: writing to one throws "Cannot add property status, object is not
 * extensible", which a controller reports as a FrozenObjectError. Copy first, then change the copy.
 *
 * The client's `get` and `list` say so in their types: they return {@link DeepReadonly} objects (unless
 * `uncached: true`), so an assignment to a field of a cached object is a compile error, and
 * {@link deepCopy} gives the mutable copy to change. A DeepReadonly object still passes where the plain
 * type is expected (`client.update(kind, obj)`), because readonly properties are assignable to mutable
 * ones and arrays stay arrays. Two things the types cannot do: `structuredClone(obj)` keeps the
 * readonly type (use `deepCopy`), and in generic code (`T extends KubeObject`) `DeepReadonly<T>` is
 * not provably a `T` (cast with `as T` where the object is only read).
 */

/**
 * `T` with every property, at every depth, readonly. Arrays keep their type (with readonly elements),
 * so a DeepReadonly value still passes where `T` is expected; `push` on them is not caught.
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyArray<infer E>
    ? Array<DeepReadonly<E>>
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** `T` with `readonly` taken off at every depth: what {@link deepCopy} returns. */
export type DeepMutable<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyArray<infer E>
    ? Array<DeepMutable<E>>
    : T extends object
      ? { -readonly [K in keyof T]: DeepMutable<T[K]> }
      : T;

/**
 * A deep, mutable copy of `obj` (runtime.Object.DeepCopyObject), for changing an object read from the
 * cache. Objects are JSON data, so this is `structuredClone` with the readonly typing taken off.
 *
 * @example
 * const web = await client.get(websites, request);
 * const updated = deepCopy(web);
 * updated.status = { ready: true };
 * await client.updateStatus(websites, updated);
 */
export function deepCopy<T>(obj: T): DeepMutable<T> {
  return structuredClone(obj) as DeepMutable<T>;
}
