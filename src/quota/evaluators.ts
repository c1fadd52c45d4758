/**
 * The usage evaluators ResourceQuota admission charges a request with (kubernetes/pkg/quota/v1/evaluator/core
 * and apiserver/pkg/quota/v1/generic, v1.24): what one object uses of each quota resource name, which
 * names of a quota's `hard` an evaluator tracks, which operations it is charged on, and the pod
 * constraints (a pod must request what a quota limits among cpu and memory).
 *
 * - pods (CREATE): `pods` (not when the pod is finished), `count/pods`, `cpu`/`requests.cpu`,
 *   `memory`/`requests.memory`, `ephemeral-storage`/`requests.ephemeral-storage`, `limits.cpu`,
 *   `limits.memory`, `limits.ephemeral-storage` — each the containers' sum or the largest init container
 *   (PodRequestsAndLimits) plus the pod's overhead, present only when the pod states it; hugepages
 *   (`hugepages-<size>` and `requests.hugepages-<size>`) and extended resources (`requests.<name>` only:
 *   they cannot be overcommitted, so a quota limits their requests);
 * - services (CREATE, UPDATE): `services`, `count/services`, `services.loadbalancers`, `services.nodeports`;
 * - persistentvolumeclaims (CREATE, UPDATE): `persistentvolumeclaims`, `count/persistentvolumeclaims`,
 *   `requests.storage` and the storage class's `<class>.storageclass.storage.k8s.io/requests.storage`
 *   and `/persistentvolumeclaims`;
 * - anything else (CREATE): the object count `count/<resource>[.<group>]`, with the legacy names
 *   `configmaps`, `secrets`, `resourcequotas` and `replicationcontrollers` for those.
 *
 * Quota scopes: pods match Terminating/NotTerminating (activeDeadlineSeconds >= 0), BestEffort/NotBestEffort
 * (the BestEffort QoS class: no container or init container requests or limits cpu or memory above zero),
 * PriorityClass (the pod's priorityClassName: `Exists` and `DoesNotExist` by whether it has one, `In` and
 * `NotIn` by the name — a pod without a class is `NotIn` any list) and CrossNamespacePodAffinity (an affinity or anti-affinity term, required or
 * preferred, with namespaces or a namespaceSelector); other kinds match no scoped quota, as upstream.
 *
 * Shared by ResourceQuota admission (src/apiserver/admission/resource-quota.ts) and the resource-quota
 * controller (src/controllers/resourcequota), as upstream's registry serves both.
 */
import { parseQuantity, QuantityFormat, type Quantity } from '../apimachinery/quantity.ts';
import { hugePagesPrefix, isExtendedResourceName, resourceRequestsPrefix } from '../apimachinery/resource-name.ts';

type Obj = Record<string, unknown>;

/** Usage by quota resource name. */
export type ResourceList = Map<string, Quantity>;

/** A quota scope selector requirement (spec.scopes become `Exists` requirements). */
export interface ScopeRequirement {
  /** The scope: Terminating, NotTerminating, BestEffort, NotBestEffort or PriorityClass. */
  scopeName: string;
  /** In, NotIn, Exists or DoesNotExist. */
  operator: string;
  /** The values of In and NotIn (PriorityClass names). */
  values?: string[];
}

/** What ResourceQuota admission needs of one kind. */
export interface QuotaEvaluator {
  /** Whether the operation can change the usage this evaluator tracks (Handles). */
  handles(operation: string): boolean;
  /** The names among `names` this evaluator tracks (MatchingResources). */
  matchingResources(names: readonly string[]): string[];
  /** Whether one scope requirement selects the object (MatchesScopeFunc). */
  matchesScope(scope: ScopeRequirement, obj: Obj): boolean;
  /**
   * What the object uses (Usage). With `nowMs`, a pod whose deletion grace period ended by then no longer
   * uses compute resources (QuotaV1Pod: stuck Terminating on a lost node); admission passes none.
   */
  usage(obj: Obj, nowMs?: number): ResourceList;
  /** Why the object cannot be charged to a quota limiting `required`, or undefined (Constraints). */
  constraints(required: readonly string[], obj: Obj): string | undefined;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const one = (): Quantity => ({ nanos: 10n ** 9n, format: QuantityFormat.DecimalSI });
const countOf = (n: number): Quantity => ({ nanos: BigInt(n) * 10n ** 9n, format: QuantityFormat.DecimalSI });

function resourcesOf(c: unknown, kind: 'requests' | 'limits'): Record<string, string> {
  const r = isObj(c) && isObj(c.resources) ? c.resources[kind] : undefined;
  return isObj(r) ? (r as Record<string, string>) : {};
}

function add(a: Quantity | undefined, b: Quantity): Quantity {
  return a === undefined ? b : { nanos: a.nanos + b.nanos, format: a.format };
}

/** PodRequestsAndLimits: the containers' sums, raised to any init container's larger amount. */
function podRequestsAndLimits(pod: Obj): { requests: ResourceList; limits: ResourceList } {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  const inits = Array.isArray(spec.initContainers) ? spec.initContainers : [];
  const sum = (kind: 'requests' | 'limits'): ResourceList => {
    const out: ResourceList = new Map();
    for (const c of containers) for (const [k, v] of Object.entries(resourcesOf(c, kind))) out.set(k, add(out.get(k), parseQuantity(v)));
    for (const c of inits) {
      for (const [k, v] of Object.entries(resourcesOf(c, kind))) {
        const q = parseQuantity(v);
        const cur = out.get(k);
        if (cur === undefined || q.nanos > cur.nanos) out.set(k, q);
      }
    }
    return out;
  };
  // PodOverhead (GA in v1.24): the runtime's fixed cost counts as requested and as limited.
  const overhead = isObj(spec.overhead) ? (spec.overhead as Record<string, string>) : {};
  const requests = sum('requests');
  const limits = sum('limits');
  for (const [k, v] of Object.entries(overhead)) {
    const q = parseQuantity(v);
    requests.set(k, add(requests.get(k), q));
    limits.set(k, add(limits.get(k), q));
  }
  return { requests, limits };
}

// isExtendedResourceNameForQuota: only `requests.<extended>` is a quota name for an extended resource.
function isExtendedResourceNameForQuota(name: string): boolean {
  return name.startsWith(resourceRequestsPrefix) && isExtendedResourceName(name.slice(resourceRequestsPrefix.length));
}

/**
 * QuotaV1Pod: a pod that is finished no longer uses compute resources, nor one past its deletion grace
 * period (when `nowMs` is given).
 */
export function podCountsForQuota(pod: Obj, nowMs?: number): boolean {
  const phase = isObj(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const meta = isObj(pod.metadata) ? pod.metadata : {};
  if (nowMs !== undefined && typeof meta.deletionTimestamp === 'string' && typeof meta.deletionGracePeriodSeconds === 'number') {
    if (nowMs > Date.parse(meta.deletionTimestamp) + meta.deletionGracePeriodSeconds * 1000) return false;
  }
  return true;
}

const podComputeResources = ['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'count/pods'];
// validationSet of pods.go: quotaed cpu or memory must be requested by every container.
const podValidationSet = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** A pod's containers, then its init containers. */
function allContainers(pod: Obj): unknown[] {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  return [...list(spec.containers), ...list(spec.initContainers)];
}

// supportedQoSComputeResources (pkg/apis/core/v1/helper/qos): only cpu and memory decide the QoS class.
const qosResources = ['cpu', 'memory'];

/** GetPodQOS(pod) == BestEffort: no container or init container requests or limits cpu or memory above zero. */
export function isBestEffort(pod: Obj): boolean {
  return allContainers(pod).every((c) =>
    (['requests', 'limits'] as const).every((kind) => {
      const r = resourcesOf(c, kind);
      return qosResources.every((name) => r[name] === undefined || parseQuantity(r[name]).nanos <= 0n);
    }),
  );
}

/** usesCrossNamespacePodAffinity: an affinity or anti-affinity term naming namespaces or a namespaceSelector. */
export function usesCrossNamespacePodAffinity(pod: Obj): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const affinity = isObj(spec.affinity) ? spec.affinity : {};
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  const crossNamespace = (term: unknown): boolean => isObj(term) && (list(term.namespaces).length > 0 || (term.namespaceSelector !== undefined && term.namespaceSelector !== null));
  for (const key of ['podAffinity', 'podAntiAffinity']) {
    const a = isObj(affinity[key]) ? affinity[key] : {};
    if (list(a.requiredDuringSchedulingIgnoredDuringExecution).some(crossNamespace)) return true;
    if (list(a.preferredDuringSchedulingIgnoredDuringExecution).some((w) => isObj(w) && crossNamespace(w.podAffinityTerm))) return true;
  }
  return false;
}

const podEvaluator: QuotaEvaluator = {
  handles: (op) => op === 'CREATE',
  // MatchingResources: the compute names, then those with a hugepages prefix, then extended resources' requests.
  matchingResources: (names) => [
    ...names.filter((n) => podComputeResources.includes(n)),
    ...names.filter((n) => n.startsWith(hugePagesPrefix) || n.startsWith(`${resourceRequestsPrefix}${hugePagesPrefix}`)),
    ...names.filter(isExtendedResourceNameForQuota),
  ],
  matchesScope(scope, pod) {
    const spec = isObj(pod.spec) ? pod.spec : {};
    switch (scope.scopeName) {
      case 'Terminating':
        return typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
      case 'NotTerminating':
        return !(typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0);
      case 'BestEffort':
        return isBestEffort(pod);
      case 'NotBestEffort':
        return !isBestEffort(pod);
      case 'PriorityClass': {
        const name = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
        const values = scope.values ?? [];
        switch (scope.operator) {
          case 'Exists':
            return name !== '';
          case 'DoesNotExist':
            // Recorded on kube-controller-manager v1.24: a pod without a class matches.
            return name === '';
          case 'In':
            return values.includes(name);
          case 'NotIn':
            return !values.includes(name);
          default:
            return false;
        }
      }
      case 'CrossNamespacePodAffinity':
        return usesCrossNamespacePodAffinity(pod);
      default:
        return false;
    }
  },
  usage(pod, nowMs) {
    const out: ResourceList = new Map([['count/pods', one()]]);
    if (!podCountsForQuota(pod, nowMs)) return out;
    const { requests, limits } = podRequestsAndLimits(pod);
    out.set('pods', one());
    for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
      const req = requests.get(r);
      if (req !== undefined) {
        out.set(r, req);
        out.set(`requests.${r}`, req);
      }
      const lim = limits.get(r);
      if (lim !== undefined) out.set(`limits.${r}`, lim);
    }
    // podComputeUsageHelper: requested hugepages under both names, extended resources as requests.<name>.
    for (const [r, q] of requests) {
      if (r.startsWith(hugePagesPrefix)) {
        out.set(r, q);
        out.set(`${resourceRequestsPrefix}${r}`, q);
      }
      if (isExtendedResourceName(r)) out.set(`${resourceRequestsPrefix}${r}`, q);
    }
    return out;
  },
  constraints(required, pod) {
    const req = required.filter((r) => podValidationSet.has(r));
    if (req.length === 0) return undefined;
    // The containers missing each resource (missingSetResourceToContainerNames).
    const missing = new Map<string, Set<string>>();
    for (const c of allContainers(pod)) {
      // enforcePodContainerConstraints: a requests.X or bare X needs a request, a limits.X a limit.
      const requests = resourcesOf(c, 'requests');
      const limits = resourcesOf(c, 'limits');
      const name = isObj(c) && typeof c.name === 'string' ? c.name : '';
      for (const r of req) {
        const stated = r.startsWith('limits.') ? limits[r.slice('limits.'.length)] !== undefined : requests[r.startsWith('requests.') ? r.slice('requests.'.length) : r] !== undefined;
        if (!stated) missing.set(r, (missing.get(r) ?? new Set()).add(name));
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

const serviceResources = ['services', 'count/services', 'services.loadbalancers', 'services.nodeports'];
const serviceEvaluator: QuotaEvaluator = {
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (names) => names.filter((n) => serviceResources.includes(n)),
  matchesScope: () => false,
  usage(svc) {
    const spec = isObj(svc.spec) ? svc.spec : {};
    const ports = Array.isArray(spec.ports) ? spec.ports.length : 0;
    const out: ResourceList = new Map([
      ['count/services', one()],
      ['services', one()],
      ['services.loadbalancers', countOf(0)],
      ['services.nodeports', countOf(0)],
    ]);
    if (spec.type === 'NodePort') out.set('services.nodeports', countOf(ports));
    if (spec.type === 'LoadBalancer') {
      out.set('services.nodeports', countOf(ports));
      out.set('services.loadbalancers', one());
    }
    return out;
  },
  constraints: () => undefined,
};

const storageClassSuffix = '.storageclass.storage.k8s.io/';
const pvcEvaluator: QuotaEvaluator = {
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (names) => names.filter((n) => ['persistentvolumeclaims', 'count/persistentvolumeclaims', 'requests.storage'].includes(n) || (n.includes(storageClassSuffix) && (n.endsWith('/requests.storage') || n.endsWith('/persistentvolumeclaims')))),
  matchesScope: () => false,
  usage(pvc) {
    const spec = isObj(pvc.spec) ? pvc.spec : {};
    const out: ResourceList = new Map([
      ['count/persistentvolumeclaims', one()],
      ['persistentvolumeclaims', one()],
    ]);
    const storageClass = typeof spec.storageClassName === 'string' ? spec.storageClassName : '';
    if (storageClass !== '') out.set(`${storageClass}${storageClassSuffix}persistentvolumeclaims`, one());
    const requests = isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : {};
    if (typeof requests.storage === 'string') {
      const q = parseQuantity(requests.storage);
      out.set('requests.storage', q);
      if (storageClass !== '') out.set(`${storageClass}${storageClassSuffix}requests.storage`, q);
    }
    return out;
  },
  constraints: () => undefined,
};

// legacyObjectCountAliases of evaluator/core/registry.go.
const legacyAliases: Readonly<Record<string, string>> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

/** NewObjectCountEvaluator: `count/<resource>[.<group>]` (and a legacy name) charged 1 on CREATE. */
function objectCountEvaluator(group: string, resource: string): QuotaEvaluator {
  const countName = `count/${group === '' ? resource : `${resource}.${group}`}`;
  const alias = group === '' ? legacyAliases[resource] : undefined;
  const names = alias === undefined ? [countName] : [countName, alias];
  return {
    handles: (op) => op === 'CREATE',
    matchingResources: (hard) => hard.filter((n) => names.includes(n)),
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, one()])),
    constraints: () => undefined,
  };
}

// The resources quota admission never charges (install's ignoredResources: virtual resources).
const ignored = new Set(['bindings', 'componentstatuses', 'tokenreviews.authentication.k8s.io', 'localsubjectaccessreviews.authorization.k8s.io', 'selfsubjectaccessreviews.authorization.k8s.io', 'selfsubjectrulesreviews.authorization.k8s.io', 'subjectaccessreviews.authorization.k8s.io']);

/**
 * getScopeSelectorsFromQuota: a quota's `spec.scopes` as `Exists` requirements, then its
 * `spec.scopeSelector` expressions.
 */
export function quotaScopeSelectors(quota: Obj): ScopeRequirement[] {
  const spec = isObj(quota.spec) ? quota.spec : {};
  const out: ScopeRequirement[] = (Array.isArray(spec.scopes) ? spec.scopes : []).map((s) => ({ scopeName: String(s), operator: 'Exists' }));
  const selector = isObj(spec.scopeSelector) ? spec.scopeSelector : {};
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    if (isObj(e)) out.push({ scopeName: String(e.scopeName), operator: String(e.operator), values: Array.isArray(e.values) ? e.values.map(String) : [] });
  }
  return out;
}

/**
 * CalculateUsageStats (apiserver/pkg/quota/v1/generic): the summed usage of the `objects` that every
 * scope requirement selects, limited to `resources`, each of them 0 when nothing uses it.
 */
export function calculateUsageStats(evaluator: QuotaEvaluator, objects: readonly Obj[], scopes: readonly ScopeRequirement[], resources: readonly string[], nowMs?: number): ResourceList {
  const used: ResourceList = new Map(resources.map((r) => [r, { nanos: 0n, format: QuantityFormat.DecimalSI }]));
  for (const o of objects) {
    if (!scopes.every((s) => evaluator.matchesScope(s, o))) continue;
    for (const [k, q] of evaluator.usage(o, nowMs)) {
      if (!used.has(k)) continue;
      const cur = used.get(k)!;
      // Quantity.Add: a zero sum takes the format of what is added.
      used.set(k, cur.nanos === 0n ? { nanos: q.nanos, format: q.format } : { nanos: cur.nanos + q.nanos, format: cur.format });
    }
  }
  return used;
}

/** The evaluator of a group/resource, undefined for those quota admission ignores. */
export function quotaEvaluatorFor(group: string, resource: string): QuotaEvaluator | undefined {
  const key = group === '' ? resource : `${resource}.${group}`;
  if (ignored.has(key)) return undefined;
  if (group === '' && resource === 'pods') return podEvaluator;
  if (group === '' && resource === 'services') return serviceEvaluator;
  if (group === '' && resource === 'persistentvolumeclaims') return pvcEvaluator;
  return objectCountEvaluator(group, resource);
}
