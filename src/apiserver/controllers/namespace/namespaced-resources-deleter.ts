/**
 * The namespace controller's deleter (pkg/controller/namespace/deletion/namespaced_resources_deleter.go):
 * for a namespace with a deletionTimestamp, makes sure its phase is Terminating, deletes everything in it
 * (DELETE of each resource's collection with propagationPolicy Background, one by one where a resource has
 * no deletecollection), reports what is left in the namespace's conditions, and once nothing is left removes
 * its `kubernetes` finalizer through namespaces/finalize — which removes the namespace when no other
 * finalizer remains.
 */
import { KubeloomError } from '../../../apimachinery/errors.ts';
import type { Clock } from '../../../util/clock/clock.ts';
import { formatTime } from '../../handlers/scope.ts';
import { isObject, metaOf } from '../../object-meta.ts';
import type { ApiResource } from '../../resources.ts';
import { kubernetesFinalizer, specFinalizers } from '../../registry/core/namespace.ts';
import { stringList } from '../../registry/generic/deletion.ts';
import type { LoopbackClient } from '../loopback-client.ts';
import { problemsOf, updateConditions, type ContentTotals } from './status-condition-utils.ts';

type Obj = Record<string, unknown>;

/** Content is still being removed: look again in about `estimateSeconds` / 2 + 1 seconds (ResourcesRemainingError). */
export class ResourcesRemainingError extends KubeloomError {
  readonly estimateSeconds: number;
  constructor(estimateSeconds: number) {
    super('ERR_NAMESPACE_CONTENT_REMAINING', `some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
    this.estimateSeconds = estimateSeconds;
  }
}

// finalizerEstimateSeconds: how long to assume finalizers take.
const finalizerEstimateSeconds = 15;

/** GroupVersionResource.String(). */
function gvrString(r: ApiResource): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

/** Deletes the contents of namespaces being deleted, then finalizes them. */
export class NamespacedResourcesDeleter {
  readonly #client: LoopbackClient;
  readonly #clock: Clock;
  readonly #namespaces: ApiResource;

  constructor(client: LoopbackClient, clock: Clock) {
    this.#client = client;
    this.#clock = clock;
    this.#namespaces = client.resourceFor('v1', 'Namespace');
  }

  /**
   * One pass over namespace `name`; throws {@link ResourcesRemainingError} while content with finalizers (or
   * pods in their grace period) is left, and an AggregateError when deleting some content failed.
   */
  delete(name: string): void {
    let ns = this.#client.get(this.#namespaces, '', name);
    if (ns === undefined || metaOf(ns).deletionTimestamp === undefined) return;
    const phase = isObject(ns.status) ? ns.status.phase : undefined;
    if (phase !== 'Terminating') {
      ns = this.#client.update(this.#namespaces, '', name, (o) => ({ ...o, status: { ...(isObject(o.status) ? o.status : {}), phase: 'Terminating' } }), 'status') ?? ns;
    }
    if (specFinalizers(ns).length === 0) return;
    const estimate = this.#deleteAllContent(ns);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);
    this.#client.update(
      this.#namespaces,
      '',
      name,
      (o) => {
        const rest = [...new Set(specFinalizers(o).filter((f) => f !== kubernetesFinalizer))].sort();
        return { ...o, spec: { ...(isObject(o.spec) ? o.spec : {}), finalizers: rest } };
      },
      'finalize',
    );
  }

  /** deleteAllContent: returns the largest estimate of the time content needs to go. */
  #deleteAllContent(ns: Obj): number {
    const namespace = String(metaOf(ns).name);
    const deletedAt = Date.parse(String(metaOf(ns).deletionTimestamp));
    const totals: ContentTotals = { remainingByResource: new Map(), remainingByFinalizer: new Map(), deleteErrors: [] };
    const errors: Error[] = [];
    let estimate = 0;
    for (const r of this.#client.preferredResources()) {
      if (!r.namespaced || !r.verbs.includes('delete')) continue;
      try {
        const result = this.#deleteAllContentForResource(r, namespace, deletedAt);
        estimate = Math.max(estimate, result.estimate);
        if (result.remaining > 0) {
          totals.remainingByResource.set(`${r.resource}.${r.group}`, result.remaining);
          for (const [f, n] of result.finalizers) totals.remainingByFinalizer.set(f, (totals.remainingByFinalizer.get(f) ?? 0) + n);
        }
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        errors.push(e);
        totals.deleteErrors.push(e.message);
      }
    }
    const now = formatTime(this.#clock.now());
    this.#client.update(
      this.#namespaces,
      '',
      namespace,
      (o) => {
        const status = isObject(o.status) ? o.status : {};
        const current = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
        const conditions = updateConditions(current, problemsOf(totals), now);
        return conditions === undefined ? undefined : { ...o, status: { ...status, conditions } };
      },
      'status',
    );
    if (errors.length > 0) throw new AggregateError(errors, errors.map((e) => e.message).join(', '));
    return estimate;
  }

  /** deleteAllContentForGroupVersionResource: delete, then count what is left and why. */
  #deleteAllContentForResource(r: ApiResource, namespace: string, deletedAt: number): { estimate: number; remaining: number; finalizers: Map<string, number> } {
    const estimate = this.#estimateGracefulTermination(r, namespace, deletedAt);
    if (r.verbs.includes('deletecollection')) this.#client.deleteCollection(r, namespace, { propagationPolicy: 'Background' });
    else for (const item of this.#client.list(r, namespace)) this.#client.delete(r, namespace, String(metaOf(item).name), { propagationPolicy: 'Background' });
    const left = this.#client.list(r, namespace);
    if (left.length === 0) return { estimate: 0, remaining: 0, finalizers: new Map() };
    const finalizers = new Map<string, number>();
    for (const item of left) for (const f of stringList(metaOf(item).finalizers)) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
    if (estimate !== 0) return { estimate, remaining: left.length, finalizers };
    if (finalizers.size > 0) return { estimate: finalizerEstimateSeconds, remaining: left.length, finalizers };
    throw new Error(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(r)}`);
  }

  /** estimateGracefulTermination: the longest grace period of pods still running, while it has not passed. */
  #estimateGracefulTermination(r: ApiResource, namespace: string, deletedAt: number): number {
    if (!(r.group === '' && r.resource === 'pods')) return 0;
    let estimate = 0;
    for (const pod of this.#client.list(r, namespace)) {
      const phase = isObject(pod.status) ? pod.status.phase : undefined;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      const grace = isObject(pod.spec) ? pod.spec.terminationGracePeriodSeconds : undefined;
      if (typeof grace === 'number' && grace > estimate) estimate = grace;
    }
    return this.#clock.now() - deletedAt >= estimate * 1000 ? 0 : estimate;
  }
}
