/**
 * The retry loop of an update, after `GuaranteedUpdate` in
 * staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go as the generic registry's Store.Update
 * (apiserver/pkg/registry/generic/registry/store.go) uses it: the update function runs on the current
 * state, the result is written with a compare on that state's revision, and when another writer got there
 * first the function runs again on the fresh state — the request's patch or body applied anew, managed
 * fields, admission (webhooks included) and validation. A resourceVersion the caller pinned is checked
 * inside the function (`checkResourceVersion`), so a pinned request still answers 409 Conflict, and
 * only it does.
 *
 * Like upstream, the loop has no bound: each failed compare means another write succeeded.
 */
import { ResourceVersionConflictError } from '../../storage.ts';

/**
 * Runs `attempt` until it returns or throws anything but {@link ResourceVersionConflictError} (the
 * storage's failed compare-and-swap, thrown by `Storage.write` with an `expectedRevision`). `attempt`
 * must read the object again each time it is called.
 *
 * @example
 * ```ts
 * await guaranteedUpdate(async () => {
 *   const existing = storage.get(store, key);
 *   return storage.write(store, key, 'MODIFIED', next(existing), existing.rv);
 * });
 * ```
 */
export async function guaranteedUpdate<T>(attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof ResourceVersionConflictError)) throw err;
    }
  }
}
