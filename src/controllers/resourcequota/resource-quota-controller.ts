/**
 * The ResourceQuota controller (kubernetes/pkg/controller/resourcequota/resource_quota_controller.go,
 * with the usage evaluators of pkg/quota/v1/evaluator/core), written on kubeloom's client-go layer: for every
 * ResourceQuota, `status.hard` mirrors `spec.hard` and `status.used` is recomputed from the namespace's
 * objects whenever a quota or a tracked object changes — pods (those not finished and not past their
 * deletion grace period: `pods`, `cpu`/`requests.cpu`, `memory`/`requests.memory`,
 * `limits.cpu`, `limits.memory`, `requests.ephemeral-storage`, `limits.ephemeral-storage`, each the larger
 * of the containers' sum and the largest init container; `count/pods` counts every pod, finished or
 * not), services (`services`,
 * `services.loadbalancers`, `services.nodeports`), `configmaps`, `secrets`, `persistentvolumeclaims` and
 * `requests.storage`, `replicationcontrollers`, `resourcequotas`, and `count/<resource>.<group>` for the
 * workloads this package watches.
 *
 * Only the status: enforcing quotas at admission is the API server's (ResourceQuota admission; the embedded
 * server's is src/apiserver/admission/resource-quota.ts, which charges status.used on admit as upstream). Pod
 * overhead is added to requests and limits; hugepages count as `hugepages-<size>` and
 * `requests.hugepages-<size>`, extended resources as `requests.<name>`. Left out: scopes and scopeSelector,
 * `count/` of resources not listed here.
 */
import type { Pod, ResourceQuota, ResourceQuotaStatus } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import { hugePagesPrefix, isExtendedResourceName, resourceRequestsPrefix } from '../../apimachinery/resource-name.ts';
import { formatQuantity, parseQuantity, QuantityFormat, type Quantity, type QuantityFormatValue } from '../../apimachinery/quantity.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import type { GenericInformer } from '../../tools/cache/shared-informer-factory.ts';
import type { KubeObject } from '../../apimachinery/object.ts';
import type { DeletedFinalStateUnknown } from '../../tools/cache/key-functions.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, type ControllerContext } from '../controller-context.ts';
import { canonicalJson, pruneZero, timeMs } from '../controller-utils.ts';

type Resources = Record<string, string> | undefined;

function sumOf(quantities: readonly (string | undefined)[]): Quantity | undefined {
  let nanos = 0n;
  let format: QuantityFormatValue | undefined;
  for (const q of quantities) {
    if (q === undefined) continue;
    const p = parseQuantity(q);
    nanos += p.nanos;
    format ??= p.format;
  }
  return format === undefined ? undefined : { nanos, format };
}

function maxOf(a: Quantity | undefined, b: Quantity | undefined): Quantity | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.nanos > a.nanos ? b : a;
}

/** A pod's request or limit of one resource (PodUsageFunc): the containers' sum or the largest init container. */
function podResource(pod: Pod, kind: 'requests' | 'limits', resource: string): Quantity | undefined {
  const of = (r: { resources?: { requests?: Resources; limits?: Resources } }): string | undefined => r.resources?.[kind]?.[resource];
  const containers = sumOf((pod.spec?.containers ?? []).map(of));
  const inits = (pod.spec?.initContainers ?? []).map((c) => of(c)).filter((q): q is string => q !== undefined).map(parseQuantity);
  const max = inits.reduce<Quantity | undefined>((m, q) => maxOf(m, q), containers);
  // PodOverhead (GA in v1.24) counts as requested and as limited.
  const overhead = (pod.spec?.overhead as Resources)?.[resource];
  return overhead === undefined ? max : sumOf([max === undefined ? undefined : formatQuantity(max), overhead]);
}

/** The pods a quota counts (QuotaV1Pod): not finished, and not past their deletion grace period. */
function countsForQuota(pod: Pod, nowMs: number): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deleted = pod.metadata?.deletionTimestamp;
  if (deleted !== undefined && pod.metadata?.deletionGracePeriodSeconds !== undefined && nowMs > timeMs(deleted) + pod.metadata.deletionGracePeriodSeconds * 1000) return false;
  return true;
}

const count = (n: number): string => formatQuantity({ nanos: BigInt(n) * 10n ** 9n, format: QuantityFormat.DecimalSI });

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

  /** The namespace's usage of one quota resource name, or undefined when not tracked. */
  #usage(namespace: string, resource: string): string | undefined {
    const list = (name: string): KubeObject[] => this.#counted.get(name)?.namespace(namespace).list() ?? [];
    const now = this.#clock.now();
    const pods = (): Pod[] => (list('pods') as Pod[]).filter((p) => countsForQuota(p, now));
    const podSum = (kind: 'requests' | 'limits', r: string): string => {
      const total = sumOf(pods().map((p) => podResource(p, kind, r)).map((q) => (q === undefined ? undefined : formatQuantity(q))));
      return total === undefined ? '0' : formatQuantity(total);
    };
    switch (resource) {
      case 'pods':
        return count(pods().length);
      case 'count/pods':
        // Every stored pod, finished or not (PodUsageFunc: the object count is always charged).
        return count(list('pods').length);
      case 'cpu':
      case 'requests.cpu':
        return podSum('requests', 'cpu');
      case 'memory':
      case 'requests.memory':
        return podSum('requests', 'memory');
      case 'limits.cpu':
        return podSum('limits', 'cpu');
      case 'limits.memory':
        return podSum('limits', 'memory');
      case 'requests.ephemeral-storage':
        return podSum('requests', 'ephemeral-storage');
      case 'limits.ephemeral-storage':
        return podSum('limits', 'ephemeral-storage');
      case 'services.loadbalancers':
        return count(list('services').filter((s) => (s as { spec?: { type?: string } }).spec?.type === 'LoadBalancer').length);
      case 'services.nodeports':
        return count(list('services').reduce((n, s) => {
          const spec = (s as { spec?: { type?: string; ports?: unknown[] } }).spec;
          return n + (spec?.type === 'NodePort' || spec?.type === 'LoadBalancer' ? (spec.ports?.length ?? 0) : 0);
        }, 0));
      case 'requests.storage': {
        const total = sumOf(list('persistentvolumeclaims').map((c) => (c as { spec?: { resources?: { requests?: Resources } } }).spec?.resources?.requests?.storage));
        return total === undefined ? '0' : formatQuantity(total);
      }
      default: {
        // podComputeUsageHelper: hugepages under both names, extended resources as requests.<name> only.
        if (resource.startsWith(hugePagesPrefix)) return podSum('requests', resource);
        const requested = resource.startsWith(resourceRequestsPrefix) ? resource.slice(resourceRequestsPrefix.length) : undefined;
        if (requested !== undefined && (requested.startsWith(hugePagesPrefix) || isExtendedResourceName(requested))) return podSum('requests', requested);
        const name = resource.startsWith('count/') ? resource.slice('count/'.length) : resource;
        if (!this.#counted.has(name)) return undefined;
        return count(list(name).length);
      }
    }
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
    const used: Record<string, string> = {};
    for (const resource of Object.keys(hard)) {
      const u = this.#usage(namespace, resource);
      if (u !== undefined) used[resource] = u;
    }
    const status: ResourceQuotaStatus = { hard: { ...hard }, used };
    if (canonicalJson(pruneZero(status)) === canonicalJson(pruneZero(quota.status ?? {}))) return;
    await this.#ctx.client.coreV1().resourceQuotas(namespace).updateStatus({ ...quota, status });
  }
}
