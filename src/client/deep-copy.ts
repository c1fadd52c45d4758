/**
 * Copies of cached objects (apimachinery's generated `DeepCopy()` methods, zz_generated.deepcopy.go).
 * Objects read from the cache (the client's `get`/`list`, informers' stores, event handlers) are the
 * cache's own and deeply frozen: writing to one throws "Cannot add property status, object is not
 * extensible", which a controller reports as a FrozenObjectError. Copy first, then change the copy.
 *
 * {@link DeepReadonly} lets tsc catch the mistake where the object is declared: annotate a cached read
 * with it (`const web: DeepReadonly<Website> = await client.get(websites, req)`) and an assignment to
 * any of its fields is a compile error; the value still passes where a `Website` is expected (e.g.
 * `client.update`), because arrays stay arrays. The client's own return types are not readonly: that
 * would break every generic caller and the `structuredClone` pattern existing code uses.
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
