/**
 * The ResourceQuota controller (kubernetes/pkg/controller/resourcequota/resource_quota_controller.go,
 * with the usage evaluators of pkg/quota/v1/evaluator/core), written on kubeloom's client-go layer: for every
 * ResourceQuota, `status.hard` mirrors `spec.hard` and `status.used` is recomputed from the namespace's
 * objects whenever a quota or a tracked object changes (CalculateUsage). The usage of each object comes
 * from the evaluators ResourceQuota admission uses too (src/quota/evaluators.ts, upstream's registry):
 * pods (those not finished and not past their deletion grace period: `pods`, `cpu`/`requests.cpu`,
 * `memory`/`requests.memory`, `ephemeral-storage`/`requests.ephemeral-storage`, `limits.*`, each the larger
 * of the containers' sum and the largest init container; `count/pods` counts every pod, finished or not),
 * services (`services`, `services.loadbalancers`, `services.nodeports`), persistentvolumeclaims (also per
 * storage class), and the object counts (`configmaps`, `secrets`, `replicationcontrollers`,
 * `resourcequotas`, `count/<resource>[.<group>]`) of the resources this controller watches.
 *
 * Scopes: a quota's `spec.scopes` and `spec.scopeSelector` select the objects it counts — pods by
 * Terminating/NotTerminating, BestEffort/NotBestEffort, PriorityClass and CrossNamespacePodAffinity;
 * no other kind matches a scope, so a scoped quota counts only pods (its other names stay 0).
 *
 * Only the status: enforcing quotas at admission is the API server's (ResourceQuota admission; the embedded
 * server's is src/apiserver/admission/resource-quota.ts, which charges status.used on admit as upstream).
 * Left out: pod overhead, extended resources and hugepages, `count/` of resources not listed here.
 */
import type { ResourceQuota, ResourceQuotaStatus } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import { formatQuantity } from '../../apimachinery/quantity.ts';
import { calculateUsageStats, quotaEvaluatorFor, quotaScopeSelectors } from '../../quota/evaluators.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import type { GenericInformer } from '../../tools/cache/shared-informer-factory.ts';
import type { KubeObject } from '../../apimachinery/object.ts';
import type { DeletedFinalStateUnknown } from '../../tools/cache/key-functions.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { canonicalJson, pruneZero } from '../controller-utils.ts';

/** The ResourceQuota controller; see the file comment. */
export class ResourceQuotaController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #quotas: Lister<ResourceQuota>;
  /** Listers by the resource names quotas use for them. */
  readonly #counted: Map<string, Lister<KubeObject>>;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    const f = ctx.informerFactory;
    const quotas = f.coreV1().resourceQuotas();
    this.#quotas = quotas.lister();
    const tracked: [string, GenericInformer<KubeObject>][] = [
      ['pods', f.coreV1().pods() as GenericInformer<KubeObject>],
      ['services', f.coreV1().services() as GenericInformer<KubeObject>],
      ['configmaps', f.coreV1().configMaps() as GenericInformer<KubeObject>],
      ['secrets', f.coreV1().secrets() as GenericInformer<KubeObject>],
      ['persistentvolumeclaims', f.coreV1().persistentVolumeClaims() as GenericInformer<KubeObject>],
      ['replicationcontrollers', f.coreV1().replicationControllers() as GenericInformer<KubeObject>],
      ['resourcequotas', quotas as GenericInformer<KubeObject>],
      ['deployments.apps', f.appsV1().deployments() as GenericInformer<KubeObject>],
      ['replicasets.apps', f.appsV1().replicaSets() as GenericInformer<KubeObject>],
      ['statefulsets.apps', f.appsV1().statefulSets() as GenericInformer<KubeObject>],
      ['daemonsets.apps', f.appsV1().daemonSets() as GenericInformer<KubeObject>],
      ['jobs.batch', f.batchV1().jobs() as GenericInformer<KubeObject>],
      ['cronjobs.batch', f.batchV1().cronJobs() as GenericInformer<KubeObject>],
    ];
    this.#counted = new Map(tracked.map(([name, i]) => [name, i.lister()]));
    this.controller = newSyncController(ctx, {
      name: 'resourcequota',
      informers: tracked.map(([, i]) => i.informer()),
      // kube-controller-manager's --concurrent-resource-quota-syncs default.
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncResourceQuota(key),
    });
    const onQuota = (obj: ResourceQuota | DeletedFinalStateUnknown<ResourceQuota>): void => {
      const q = objectOf(obj);
      if (q !== undefined) this.controller.add(objectKey(q));
    };
    quotas.informer().addEventHandler({ onAdd: onQuota, onUpdate: (_o, q) => onQuota(q), onDelete: () => undefined });
    // Any tracked change in a namespace replenishes its quotas (the quota monitor's replenishment).
    const replenish = (obj: KubeObject | undefined): void => {
      const ns = obj?.metadata?.namespace;
      if (ns === undefined) return;
      for (const q of this.#quotas.namespace(ns).list()) this.controller.add(objectKey(q));
    };
    for (const [name, i] of tracked) {
      if (name === 'resourcequotas') continue;
      i.informer().addEventHandler({ onAdd: replenish, onUpdate: (_o, n) => replenish(n), onDelete: (obj) => replenish(objectOf(obj)) });
    }
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /**
   * CalculateUsage: for each tracked resource whose evaluator matches names of `hard`, the usage of the
   * namespace's objects the quota's scopes select; names no evaluator tracks are left out.
   */
  #calculateUsage(namespace: string, quota: ResourceQuota): Record<string, string> {
    const hard = Object.keys(quota.spec?.hard ?? {});
    const scopes = quotaScopeSelectors(quota as unknown as Record<string, unknown>);
    const now = this.#clock.now();
    const used: Record<string, string> = {};
    for (const [name, lister] of this.#counted) {
      const dot = name.indexOf('.');
      const evaluator = quotaEvaluatorFor(dot < 0 ? '' : name.slice(dot + 1), dot < 0 ? name : name.slice(0, dot));
      if (evaluator === undefined) continue;
      const resources = evaluator.matchingResources(hard);
      if (resources.length === 0) continue;
      const objects = lister.namespace(namespace).list() as unknown as Record<string, unknown>[];
      for (const [k, q] of calculateUsageStats(evaluator, objects, scopes, resources, now)) used[k] = formatQuantity(q);
    }
    return used;
  }

  /** Writes the quota's hard and used amounts (syncResourceQuota). Exposed for tests. */
  async syncResourceQuota(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let quota: ResourceQuota;
    try {
      quota = this.#quotas.namespace(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const hard = quota.spec?.hard ?? {};
    const used = this.#calculateUsage(namespace, quota);
    const status: ResourceQuotaStatus = { hard: { ...hard }, used };
    if (canonicalJson(pruneZero(status)) === canonicalJson(pruneZero(quota.status ?? {}))) return;
    await this.#ctx.client.coreV1().resourceQuotas(namespace).updateStatus({ ...quota, status });
  }
}
