/**
 * Which garbage-collection finalizers a DELETE puts on an object, as kube-apiserver's generic registry
 * decides (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go: shouldOrphanDependents,
 * shouldDeleteDependents, deletionFinalizersForGarbageCollection) from the DeleteOptions, the finalizers
 * the object already has and its strategy's DefaultGarbageCollectionPolicy (pkg/registry/.../strategy.go).
 *
 * The garbage collector (controllers/garbage-collector/) acts on the `orphan` and `foregroundDeletion`
 * finalizers; the API server sets them whether or not it runs, as kube-apiserver does without
 * kube-controller-manager.
 */

/** metav1.FinalizerOrphanDependents: the garbage collector orphans the dependents, then removes it. */
export const orphanFinalizer = 'orphan';
/** metav1.FinalizerDeleteDependents: the garbage collector deletes blocking dependents first, then removes it. */
export const foregroundDeletionFinalizer = 'foregroundDeletion';

/** metav1.DeletionPropagation. */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** The part of metav1.DeleteOptions the deletion logic reads. */
export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  /** Deprecated boolean form of the policy; cannot be combined with `propagationPolicy`. */
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Seconds a graceful deletion (pods) waits; undefined: the object's default. */
  gracePeriodSeconds?: number | undefined;
}

/** rest.GarbageCollectionPolicy: what a DELETE without options does to dependents. */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/**
 * The strategies whose DefaultGarbageCollectionPolicy is not DeleteDependents, keyed by storage key and
 * API version: batch/v1 Jobs orphan their pods by default (pkg/registry/batch/job/strategy.go), as do
 * core/v1 ReplicationControllers and batch/v1beta1 CronJobs; Events take no GC finalizers at all
 * (pkg/registry/core/event/strategy.go), whichever group they are read through.
 */
const policies: ReadonlyMap<string, GarbageCollectionPolicy> = new Map([
  ['jobs.batch@v1', 'OrphanDependents'],
  ['cronjobs.batch@v1beta1', 'OrphanDependents'],
  ['replicationcontrollers@v1', 'OrphanDependents'],
  ['events@*', 'Unsupported'],
  ['events.events.k8s.io@*', 'Unsupported'],
]);

/** The DefaultGarbageCollectionPolicy of a resource's strategy, for a request made through `version`. */
export function defaultGarbageCollectionPolicy(store: string, version: string): GarbageCollectionPolicy {
  return policies.get(`${store}@${version}`) ?? policies.get(`${store}@*`) ?? 'DeleteDependents';
}

function shouldOrphanDependents(policy: GarbageCollectionPolicy, finalizers: readonly string[], options: DeleteOptions): boolean {
  if (policy === 'Unsupported') return false;
  // An explicit option wins over the object's finalizers, which win over the strategy's default.
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === orphanFinalizer) return true;
    if (f === foregroundDeletionFinalizer) return false;
  }
  return policy === 'OrphanDependents';
}

function shouldDeleteDependents(policy: GarbageCollectionPolicy, finalizers: readonly string[], options: DeleteOptions): boolean {
  if (policy === 'Unsupported') return false;
  // orphanDependents, whatever its value, means "not in the foreground".
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === foregroundDeletionFinalizer) return true;
    if (f === orphanFinalizer) return false;
  }
  return false;
}

/**
 * The finalizers an object should carry once a DELETE with `options` reaches it: the two GC finalizers are
 * removed, then added back as the options, the existing finalizers and the default policy say. Returns
 * `undefined` when the set does not change.
 */
export function deletionFinalizersForGarbageCollection(policy: GarbageCollectionPolicy, finalizers: readonly string[], options: DeleteOptions): string[] | undefined {
  const orphan = shouldOrphanDependents(policy, finalizers, options);
  const foreground = shouldDeleteDependents(policy, finalizers, options);
  const next = finalizers.filter((f) => f !== orphanFinalizer && f !== foregroundDeletionFinalizer);
  if (orphan) next.push(orphanFinalizer);
  if (foreground) next.push(foregroundDeletionFinalizer);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}
