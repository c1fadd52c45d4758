/**
 * Validation of the remaining built-in kinds the embedded server serves: RBAC roles and bindings
 * (`pkg/apis/rbac/validation`), PriorityClasses (`pkg/apis/scheduling/validation`),
 * PodDisruptionBudgets (`pkg/apis/policy/validation`), Ingresses (`pkg/apis/networking/validation`)
 * and ResourceQuotas (core).
 */
import { parseQuantity, QuantityFormatError } from '../../../apimachinery/quantity.ts';
import { isObject, str } from '../../object-meta.ts';
import { goQuote, goStrings, GoValue, invalidValue, notSupported, path, required, type FieldError, type FieldPath } from './field.ts';
import { isDNS1123Label, isDNS1123Subdomain } from './names.ts';
import { validateLabelSelector } from './workloads.ts';

type Obj = Record<string, unknown>;

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.map(String) : undefined;
}

/** ValidatePolicyRule. */
function validatePolicyRule(rule: Obj, namespaced: boolean, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  if ((strings(rule.verbs) ?? []).length === 0) out.push(required(fld.child('verbs'), 'verbs must contain at least one value'));
  const nonResource = strings(rule.nonResourceURLs) ?? [];
  if (nonResource.length > 0) {
    if (namespaced) out.push(invalidValue(fld.child('nonResourceURLs'), goStrings(nonResource), 'namespaced rules cannot apply to non-resource URLs'));
    if ((strings(rule.apiGroups) ?? []).length > 0 || (strings(rule.resources) ?? []).length > 0 || (strings(rule.resourceNames) ?? []).length > 0) {
      out.push(invalidValue(fld.child('nonResourceURLs'), goStrings(nonResource), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return out;
  }
  if ((strings(rule.apiGroups) ?? []).length === 0) out.push(required(fld.child('apiGroups'), 'resource rules must supply at least one api group'));
  if ((strings(rule.resources) ?? []).length === 0) out.push(required(fld.child('resources'), 'resource rules must supply at least one resource'));
  return out;
}

/** ValidateRole / ValidateClusterRole. */
export function validateRole(role: Obj, namespaced: boolean): FieldError[] {
  const out: FieldError[] = [];
  list(role.rules).forEach((r, i) => out.push(...validatePolicyRule(r, namespaced, path('rules').index(i))));
  return out;
}

/** %#v of an internal rbac.RoleRef. */
function goRoleRef(ref: Obj): GoValue {
  return new GoValue(`rbac.RoleRef{APIGroup:${goQuote(str(ref.apiGroup))}, Kind:${goQuote(str(ref.kind))}, Name:${goQuote(str(ref.name))}}`);
}

/** ValidateRoleBinding / ValidateClusterRoleBinding. */
export function validateRoleBinding(binding: Obj, namespaced: boolean): FieldError[] {
  const out: FieldError[] = [];
  const ref = isObject(binding.roleRef) ? binding.roleRef : {};
  const rf = path('roleRef');
  if (ref.apiGroup !== 'rbac.authorization.k8s.io') out.push(notSupported(rf.child('apiGroup'), ref.apiGroup ?? '', ['rbac.authorization.k8s.io']));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (typeof ref.kind !== 'string' || !kinds.includes(ref.kind)) out.push(notSupported(rf.child('kind'), ref.kind ?? '', kinds));
  if (typeof ref.name !== 'string' || ref.name === '') out.push(required(rf.child('name')));
  list(binding.subjects).forEach((s, i) => {
    const sf = path('subjects').index(i);
    if (typeof s.name !== 'string' || s.name === '') out.push(required(sf.child('name')));
    switch (s.kind) {
      case 'ServiceAccount':
        if (s.apiGroup !== undefined && s.apiGroup !== '') out.push(notSupported(sf.child('apiGroup'), s.apiGroup, ['']));
        if (!namespaced && (typeof s.namespace !== 'string' || s.namespace === '')) out.push(required(sf.child('namespace')));
        break;
      case 'User':
      case 'Group':
        if (s.apiGroup !== 'rbac.authorization.k8s.io') out.push(notSupported(sf.child('apiGroup'), s.apiGroup ?? '', ['rbac.authorization.k8s.io']));
        break;
      default:
        out.push(notSupported(sf.child('kind'), s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  return out;
}

/** ValidateRoleBindingUpdate: roleRef cannot change. */
export function validateRoleBindingUpdate(binding: Obj, old: Obj, namespaced: boolean): FieldError[] {
  const out = validateRoleBinding(binding, namespaced);
  if (JSON.stringify(binding.roleRef ?? null) !== JSON.stringify(old.roleRef ?? null)) out.push(invalidValue(path('roleRef'), goRoleRef(isObject(binding.roleRef) ? binding.roleRef : {}), 'cannot change roleRef'));
  return out;
}

// scheduling.HighestUserDefinablePriority.
const highestUserPriority = 1_000_000_000;

/** ValidatePriorityClass. */
export function validatePriorityClass(pc: Obj): FieldError[] {
  const out: FieldError[] = [];
  const name = isObject(pc.metadata) ? str(pc.metadata.name) : '';
  const value = typeof pc.value === 'number' ? pc.value : 0;
  if (value > highestUserPriority && !name.startsWith('system-')) out.push(invalidValue(path('value'), value, `must be less than or equal to ${highestUserPriority}`));
  else if (name.startsWith('system-') && value <= highestUserPriority) out.push(invalidValue(path('metadata', 'name'), name, 'priority class names with \'system-\' prefix are reserved for system use only'));
  const policy = pc.preemptionPolicy;
  if (policy !== undefined && policy !== 'PreemptLowerPriority' && policy !== 'Never') out.push(notSupported(path('preemptionPolicy'), policy, ['Never', 'PreemptLowerPriority']));
  return out;
}

/** ValidatePriorityClassUpdate: value and preemptionPolicy are immutable. */
export function validatePriorityClassUpdate(pc: Obj, old: Obj): FieldError[] {
  const out = validatePriorityClass(pc);
  if (pc.value !== old.value) out.push(invalidValue(path('value'), pc.value ?? 0, 'may not be changed in an update.'));
  if (pc.preemptionPolicy !== old.preemptionPolicy) out.push(invalidValue(path('preemptionPolicy'), pc.preemptionPolicy ?? '', 'field is immutable'));
  return out;
}

/** ValidatePodDisruptionBudget. */
export function validatePodDisruptionBudget(pdb: Obj): FieldError[] {
  const spec = isObject(pdb.spec) ? pdb.spec : {};
  const fld = path('spec');
  const out: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) out.push(invalidValue(fld, new GoValue('policy.PodDisruptionBudgetSpec{…}'), 'minAvailable and maxUnavailable cannot be both set'));
  for (const key of ['minAvailable', 'maxUnavailable']) {
    const v = spec[key];
    if (v === undefined) continue;
    if (typeof v === 'number' && v < 0) out.push(invalidValue(fld.child(key), v, 'must be greater than or equal to 0'));
    if (typeof v === 'string' && !/^\d+%$/.test(v)) out.push(invalidValue(fld.child(key), v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"));
  }
  if (isObject(spec.selector)) out.push(...validateLabelSelector(spec.selector, fld.child('selector')));
  return out;
}

/** ValidateIngress (rules, paths and backends). */
export function validateIngress(ing: Obj): FieldError[] {
  const spec = isObject(ing.spec) ? ing.spec : {};
  const fld = path('spec');
  const out: FieldError[] = [];
  const backend = (b: unknown, bf: FieldPath): void => {
    if (!isObject(b)) return;
    if (isObject(b.service)) {
      const name = str(b.service.name);
      if (name === '') out.push(required(bf.child('service', 'name')));
      const port = isObject(b.service.port) ? b.service.port : {};
      if (port.name === undefined && port.number === undefined) out.push(required(bf.child('service', 'port'), 'port name or number is required'));
    } else if (!isObject(b.resource)) out.push(invalidValue(bf, new GoValue('networking.IngressBackend{…}'), 'one backend (service or resource) must be specified'));
  };
  if (spec.defaultBackend !== undefined) backend(spec.defaultBackend, fld.child('defaultBackend'));
  else if (list(spec.rules).length === 0) out.push(invalidValue(fld.child('rules'), new GoValue('[]networking.IngressRule(nil)'), 'either `defaultBackend` or `rules` must be specified'));
  list(spec.rules).forEach((r, i) => {
    const rf = fld.child('rules').index(i);
    if (typeof r.host === 'string' && r.host !== '') {
      const host = r.host.startsWith('*.') ? r.host.slice(2) : r.host;
      for (const m of isDNS1123Subdomain(host)) out.push(invalidValue(rf.child('host'), r.host, m));
    }
    const paths = isObject(r.http) ? list(r.http.paths) : [];
    paths.forEach((p, j) => {
      const pf = rf.child('http', 'paths').index(j);
      if (p.pathType === undefined) out.push(required(pf.child('pathType'), 'pathType must be specified'));
      else if (!['Exact', 'ImplementationSpecific', 'Prefix'].includes(str(p.pathType))) out.push(notSupported(pf.child('pathType'), p.pathType, ['Exact', 'ImplementationSpecific', 'Prefix']));
      if ((p.pathType === 'Exact' || p.pathType === 'Prefix') && !str(p.path).startsWith('/')) out.push(invalidValue(pf.child('path'), p.path ?? '', "must be an absolute path"));
      backend(p.backend, pf.child('backend'));
    });
  });
  if (typeof spec.ingressClassName === 'string') for (const m of isDNS1123Subdomain(spec.ingressClassName)) out.push(invalidValue(fld.child('ingressClassName'), spec.ingressClassName, m));
  return out;
}

const quotaScopes = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];

// helper.IsStandardQuotaResourceName.
const standardQuotaResources = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers', 'requests.storage']);

function standardQuotaResource(name: string): boolean {
  return standardQuotaResources.has(name) || name.startsWith('requests.') || name.startsWith('limits.');
}

// helper.IsResourceQuotaScopeValidForResource: pod-scoped scopes apply to pod counts and compute resources only.
const podComputeResources = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

function scopeValidFor(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  if (['Terminating', 'NotTerminating', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'].includes(scope)) return resource === 'pods' || podComputeResources.has(resource);
  return true;
}

/** ValidateResourceQuota. */
export function validateResourceQuota(q: Obj): FieldError[] {
  const spec = isObject(q.spec) ? q.spec : {};
  const fld = path('spec');
  const out: FieldError[] = [];
  for (const [k, v] of Object.entries(isObject(spec.hard) ? spec.hard : {})) {
    try {
      if (parseQuantity(String(v)).nanos < 0n) out.push(invalidValue(fld.child('hard').key(k), String(v), 'must be greater than or equal to 0'));
    } catch (err) {
      if (!(err instanceof QuantityFormatError)) throw err;
    }
  }
  // validateResourceQuotaScopes: each error carries the whole scope list.
  const scopes = Array.isArray(spec.scopes) ? spec.scopes.map(String) : [];
  const scopeValue = new GoValue(`[]core.ResourceQuotaScope{${scopes.map(goQuote).join(', ')}}`);
  const hard = Object.keys(isObject(spec.hard) ? spec.hard : {}).sort();
  for (const scope of scopes) {
    if (!quotaScopes.includes(scope)) out.push(invalidValue(fld.child('scopes'), scopeValue, 'unsupported scope'));
    for (const resource of hard) if (standardQuotaResource(resource) && !scopeValidFor(scope, resource)) out.push(invalidValue(fld.child('scopes'), scopeValue, 'unsupported scope applied to resource'));
  }
  for (const [a, b] of [
    ['BestEffort', 'NotBestEffort'],
    ['Terminating', 'NotTerminating'],
  ]) {
    if (scopes.includes(a!) && scopes.includes(b!)) out.push(invalidValue(fld.child('scopes'), scopeValue, 'conflicting scopes'));
  }
  return out;
}

/** ValidateLease (holder identity and durations). */
export function validateLease(lease: Obj): FieldError[] {
  const spec = isObject(lease.spec) ? lease.spec : {};
  const out: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) out.push(invalidValue(path('spec', 'leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) out.push(invalidValue(path('spec', 'leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
  return out;
}

/** Names of IngressClass controllers and similar: DNS labels. */
export function validateDNSLabelName(name: string): string[] {
  return isDNS1123Label(name);
}
