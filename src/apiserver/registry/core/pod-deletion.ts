/**
 * Graceful deletion of pods, the one resource whose strategy is a RESTGracefulDeleteStrategy:
 * pkg/registry/core/pod/strategy.go (CheckGracefulDelete), staging/src/k8s.io/apiserver/pkg/registry/rest/
 * delete.go (BeforeDelete) and the graceful branch of Store.Delete / updateForGracefulDeletionAndFinalizers
 * in staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go.
 *
 * A DELETE of a pod bound to a node marks it — deletionTimestamp = now + the grace period,
 * deletionGracePeriodSeconds = the period (the request's gracePeriodSeconds, else the pod's
 * spec.terminationGracePeriodSeconds, else 0) — and leaves it for its kubelet, which stops the containers
 * and deletes it again with a zero grace period. A pod that is not scheduled or has finished goes at once
 * (marked, then removed), as does a deletion with gracePeriodSeconds 0. A negative period counts as 1 s.
 * A pod already being deleted keeps its deadline unless the new request shortens it; a zero period then
 * removes it (`kubectl delete --force --grace-period=0`). Finalizers keep a pod whatever the period.
 */
import { deepEqual, metaOf } from '../../object-meta.ts';
import type { ApiResource } from '../../resources.ts';
import { storageKey } from '../../resources.ts';
import type { StoredObject } from '../../storage.ts';
import type { RegistryContext } from '../context.ts';
import { checkDeletePreconditions, inStructOrder, removeObject, stringList, type DeleteResult } from '../generic/deletion.ts';
import { defaultGarbageCollectionPolicy, deletionFinalizersForGarbageCollection, type DeleteOptions } from '../generic/garbage-collection-policy.ts';

type Obj = Record<string, unknown>;

/** metav1.Time of `ms` (seconds precision). */
function timeOf(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * CheckGracefulDelete: the period a first DELETE gives the pod — the request's, else the pod's
 * terminationGracePeriodSeconds, else 0; 0 for a pod not scheduled or finished; 1 for a negative one.
 */
export function podGracePeriod(pod: Obj, requested: number | undefined): number {
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const status = (pod.status ?? {}) as { phase?: string };
  let period = requested ?? spec.terminationGracePeriodSeconds ?? 0;
  if ((spec.nodeName ?? '') === '') period = 0;
  if (status.phase === 'Failed' || status.phase === 'Succeeded') period = 0;
  if (period < 0) period = 1;
  return period;
}

/** Store.Delete of a pod; see the file comment. */
export function podDelete(scope: RegistryContext, r: ApiResource, existing: StoredObject, options: DeleteOptions, dryRun: boolean): DeleteResult {
  checkDeletePreconditions(r, existing.obj, options);
  const store = storageKey(r.group, r.resource);
  const next = structuredClone(existing.obj);
  const m = metaOf(next);
  // BeforeDelete: a negative request counts as 1 s.
  const requested = options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0 ? 1 : options.gracePeriodSeconds;
  let graceful: boolean;
  let period = 0;
  if (m.deletionTimestamp !== undefined) {
    const current = typeof m.deletionGracePeriodSeconds === 'number' ? m.deletionGracePeriodSeconds : 0;
    // Marked without a period (finalizers): nothing graceful left to do.
    if (current <= 0) graceful = false;
    // Only a shorter period changes a pending graceful deletion; otherwise it stays as it is.
    else if (requested === undefined || requested >= current) return { object: existing.obj, stored: existing, pending: true };
    else {
      period = requested;
      m.deletionTimestamp = timeOf(Date.parse(typeof m.deletionTimestamp === 'string' ? m.deletionTimestamp : '') - current * 1000 + period * 1000);
      m.deletionGracePeriodSeconds = period;
      graceful = true;
    }
  } else {
    period = podGracePeriod(next, requested);
    m.deletionTimestamp = timeOf(Date.parse(scope.now()) + period * 1000);
    m.deletionGracePeriodSeconds = period;
    if (typeof m.generation === 'number' && m.generation > 0) m.generation += 1;
    graceful = true;
  }
  const gcFinalizers = deletionFinalizersForGarbageCollection(defaultGarbageCollectionPolicy(store, r.version), stringList(m.finalizers), options);
  if (gcFinalizers !== undefined) m.finalizers = gcFinalizers;
  const pendingFinalizers = stringList(m.finalizers).length > 0;
  if (!graceful) {
    if (!pendingFinalizers) {
      if (dryRun) return { object: existing.obj, stored: existing, pending: false };
      removeObject(scope, store, existing);
      return { object: existing.obj, stored: existing, pending: false };
    }
    // markAsDeleting: the timestamp stays, the period is 0.
    m.deletionGracePeriodSeconds = 0;
  }
  const stays = pendingFinalizers || (graceful && period > 0);
  // An update that changes nothing is not written (GuaranteedUpdate skips it).
  if (stays && deepEqual(next, existing.obj)) return { object: existing.obj, stored: existing, pending: true };
  if (dryRun) return { object: next, stored: undefined, pending: stays };
  const marked = scope.storage.write(store, existing.key, 'MODIFIED', inStructOrder(next));
  if (stays) return { object: marked.obj, stored: marked, pending: true };
  removeObject(scope, store, marked);
  return { object: marked.obj, stored: marked, pending: false };
}
