/**
 * ResourceQuota admission (apiserver/pkg/admission/plugin/resourcequota: admission.go, controller.go
 * CheckRequest, v1.24): the last validating plugin of a CREATE or UPDATE of a namespaced object (not of a
 * subresource, not a namespace). The object's usage (src/quota/evaluators.ts; on UPDATE less what the old
 * object used, never below zero) is added to the `status.used` of every quota of the namespace that
 * matches it — its `status.hard` names a resource the kind's evaluator tracks and its scopes select the
 * object. The request is refused with 403 Forbidden when a quota would go over `status.hard`
 * (`exceeded quota: <name>, requested: …, used: …, limited: …`), when the controller has not yet
 * computed the usage a quota tracks (`status unknown for quota: …`), or when a pod does not request what a
 * quota limits (`failed quota: <name>: must specify …`). Otherwise the quotas' new `status.used` is
 * written at once (upstream increments usage on admit; the quota controller recomputes it later), except
 * for dry runs.
 */
import { formatQuantity, parseQuantity, type Quantity } from '../../apimachinery/quantity.ts';
import type { ApiResource } from '../resources.ts';
import { forbidden, unknownServerError } from '../status.ts';
import type { Storage, StoredObject } from '../storage.ts';
import { quotaEvaluatorFor, quotaScopeSelectors as scopesOf, type ResourceList, type ScopeRequirement } from '../../quota/evaluators.ts';

type Obj = Record<string, unknown>;

const quotaStore = 'resourcequotas';

/**
 * One entry of the plugin's configuration (apiserver/pkg/admission/plugin/resourcequota/apis/resourcequota
 * LimitedResource): objects of this group/resource that consume a resource whose quota name contains one of
 * `matchContains`, or that match one of `matchScopes`, are admitted only when a quota covers that.
 */
export interface LimitedResource {
  /** The API group of the resource ('' or absent: core). */
  readonly apiGroup?: string;
  /** The resource (`pods`, `persistentvolumeclaims`). */
  readonly resource: string;
  /** Substrings of quota resource names (`requests.memory`, `example.com/`) whose consumption needs a covering quota. */
  readonly matchContains?: readonly string[];
  /** Scopes an object matching them must find a quota with (PriorityClass In [...]). */
  readonly matchScopes?: readonly ScopeRequirement[];
}

/**
 * The ResourceQuota plugin's configuration, as kube-apiserver reads it from the admission configuration file
 * (`kind: ResourceQuotaConfiguration`, apiserver.config.k8s.io/v1): default none, every object may consume
 * what no quota limits.
 */
export interface ResourceQuotaConfiguration {
  /** The resources whose consumption (or scopes) needs a covering quota (default none). */
  readonly limitedResources?: readonly LimitedResource[];
}

/** What the plugin is told about a request. */
export interface QuotaAttributes {
  readonly operation: 'CREATE' | 'UPDATE';
  readonly resource: ApiResource;
  readonly subresource: string;
  readonly namespace: string;
  /** The name on the URL ('' for a create). */
  readonly name: string;
  readonly object: Obj;
  readonly oldObject: Obj | undefined;
  readonly dryRun: boolean;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function listOf(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isObj(v)) return out;
  for (const [k, q] of Object.entries(v)) if (typeof q === 'string') out.set(k, parseQuantity(q));
  return out;
}

// A ScopedResourceSelectorRequirement as Go's %v prints it: {PriorityClass In [a b]}.
function goScope(s: ScopeRequirement): string {
  return `{${s.scopeName} ${s.operator} [${(s.values ?? []).join(' ')}]}`;
}

// prettyPrint: name=quantity, sorted by name, comma-separated.
function prettyPrint(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k)!)}`)
    .join(',');
}

function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  return new Map([...list].filter(([k]) => keep.has(k)));
}

function isZero(list: ResourceList): boolean {
  return [...list.values()].every((q) => q.nanos === 0n);
}

// extractResourceName: the URL's name, else the object's name or generateName, else Unknown.
function nameForMessage(a: QuotaAttributes): string {
  if (a.name !== '') return a.name;
  const meta = isObj(a.object.metadata) ? a.object.metadata : {};
  if (typeof meta.name === 'string' && meta.name !== '') return meta.name;
  if (typeof meta.generateName === 'string' && meta.generateName !== '') return meta.generateName;
  return 'Unknown';
}

/**
 * Checks a request against the namespace's quotas and returns the quotas whose usage it raises, with
 * their new `status.used`; throws the 403 of a refusal.
 */
export function checkResourceQuota(storage: Storage, a: QuotaAttributes, config: ResourceQuotaConfiguration = {}): { quota: StoredObject; used: ResourceList }[] {
  if (a.subresource !== '' || !a.resource.namespaced || a.namespace === '') return [];
  const evaluator = quotaEvaluatorFor(a.resource.group, a.resource.resource);
  if (evaluator === undefined || !evaluator.handles(a.operation)) return [];
  const quotas = storage.listAt(quotaStore, storage.revision, { namespace: a.namespace });
  const limited = config.limitedResources ?? [];
  // Without limited resources, a namespace without quotas admits everything.
  if (quotas.length === 0 && limited.length === 0) return [];
  const refuse = (why: string): never => {
    throw forbidden(a.resource, nameForMessage(a), why);
  };
  // getMatchedLimitedScopes: the configured scopes this object falls in (whatever the resource).
  const limitedScopes = limited.flatMap((l) => (l.matchScopes ?? []).filter((s) => evaluator.matchesScope(s, a.object)));
  // limitedByDefault: the consumed resource names that contain a configured substring of this group/resource.
  const ownLimits = limited.filter((l) => (l.apiGroup ?? '') === a.resource.group && l.resource === a.resource.resource);
  const limitedNames = new Set<string>();
  if (ownLimits.length > 0) {
    for (const [name, q] of evaluator.usage(a.object)) {
      if (q.nanos > 0n && ownLimits.some((l) => (l.matchContains ?? []).some((m) => name.includes(m)))) limitedNames.add(name);
    }
  }
  const restrictedNames = new Set<string>();
  const restrictedScopes: ScopeRequirement[] = [];
  const interesting: StoredObject[] = [];
  for (const q of quotas) {
    const status = isObj(q.obj.status) ? q.obj.status : {};
    const hard = listOf(status.hard);
    const restricted = evaluator.matchingResources([...hard.keys()]);
    const scopes = scopesOf(q.obj);
    // MatchingScopes of every quota, matched or not: what covers the limited scopes.
    restrictedScopes.push(...scopes.filter((s) => evaluator.matchesScope(s, a.object)));
    const matches = restricted.length > 0 && scopes.every((s) => evaluator.matchesScope(s, a.object));
    if (!matches) continue;
    const name = String((q.obj.metadata as Obj).name);
    const constraint = evaluator.constraints(restricted, a.object);
    if (constraint !== undefined) refuse(`failed quota: ${name}: ${constraint}`);
    const used = listOf(status.used);
    const unknown = restricted.filter((r) => !used.has(r));
    if (unknown.length > 0) refuse(`status unknown for quota: ${name}, resources: ${[...restricted].sort().join(',')}`);
    interesting.push(q);
    for (const r of restricted) restrictedNames.add(r);
  }
  const uncovered = [...limitedNames].filter((n) => !restrictedNames.has(n)).sort();
  if (uncovered.length > 0) refuse(`insufficient quota to consume: ${uncovered.join(',')}`);
  // UncoveredQuotaScopes: a limited scope is covered by any quota selecting the same scope name. Upstream
  // returns this one as a plain error, which the server answers as a 500 without reason.
  const uncoveredScopes = limitedScopes.filter((l) => !restrictedScopes.some((s) => s.scopeName === l.scopeName));
  if (uncoveredScopes.length > 0) throw unknownServerError(`insufficient quota to match these scopes: [${uncoveredScopes.map(goScope).join(' ')}]`);
  if (interesting.length === 0) return [];
  let delta = evaluator.usage(a.object);
  const negative = [...delta].filter(([, q]) => q.nanos < 0n).map(([k]) => k);
  if (negative.length > 0) refuse(`quota usage is negative for resource(s): ${negative.sort().join(',')}`);
  if (a.operation === 'UPDATE' && a.oldObject !== undefined) {
    const meta = isObj(a.oldObject.metadata) ? a.oldObject.metadata : {};
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '') {
      // SubtractWithNonNegativeResult: what the update adds.
      const prev = evaluator.usage(a.oldObject);
      delta = new Map([...delta].map(([k, q]): [string, Quantity] => {
        const p = prev.get(k);
        const nanos = p === undefined ? q.nanos : q.nanos - p.nanos;
        return [k, { nanos: nanos < 0n ? 0n : nanos, format: q.format }];
      }));
    }
  }
  if (isZero(delta) || interesting.length === 0) return [];
  const out: { quota: StoredObject; used: ResourceList }[] = [];
  for (const q of interesting) {
    const status = isObj(q.obj.status) ? q.obj.status : {};
    const hard = listOf(status.hard);
    const used = listOf(status.used);
    const requested = mask(delta, hard.keys());
    // quota.Add: the used amounts in their own format (Quantity.Add takes the added one's format when
    // the amount was zero), plus what is requested.
    const newUsage: ResourceList = new Map(used);
    for (const [k, r] of requested) {
      const u = newUsage.get(k);
      newUsage.set(k, u === undefined ? r : { nanos: u.nanos + r.nanos, format: u.nanos === 0n ? r.format : u.format });
    }
    const exceeded = [...requested.keys()].filter((k) => newUsage.get(k)!.nanos > (hard.get(k)?.nanos ?? 0n));
    if (exceeded.length > 0) {
      const name = String((q.obj.metadata as Obj).name);
      refuse(`exceeded quota: ${name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`);
    }
    out.push({ quota: q, used: newUsage });
  }
  return a.dryRun ? [] : out;
}

/** The status.used of a quota as written (each amount in its canonical form). */
export function usedAsStatus(used: ResourceList): Record<string, string> {
  return Object.fromEntries([...used].map(([k, q]) => [k, formatQuantity(q)]));
}
