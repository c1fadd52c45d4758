/**
 * RBAC for the manager (what controller-gen's `rbac` generator writes from `+kubebuilder:rbac` markers,
 * sigs.k8s.io/controller-tools pkg/rbac/parser.go): the ClusterRole `manager-role` with the rules the
 * registered controllers need, the ServiceAccount the manager runs as, their binding, and the
 * leader-election Role (leases) bound in the manager's namespace.
 *
 * Rules come from what the builder knows (registrations.ts), not from comments:
 * - `for(kind)`: get, list, watch; with `completeWithFinalizer`, also update and patch (the finalizer is
 *   written on the object); if the kind has a status subresource, get, update, patch on `<plural>/status`
 *   (the reconciler writes status).
 * - `owns(kind)`: get, list, watch, create, update, patch, delete; and update on the owner's
 *   `<plural>/finalizers`, which the OwnerReferencesPermissionEnforcement admission plugin demands for
 *   an owner reference with blockOwnerDeletion (also needed with a finalizer).
 * - `watches(kind)`: get, list, watch.
 * - any controller: create and patch on events.k8s.io events (the manager's event recorder).
 * - rules declared with `withRbac`.
 *
 * Normalization follows controller-gen's NormalizeRules: verbs of the same group, resource and names
 * are unioned, then resources of one group with the same verbs and names become one rule; apiGroups,
 * resources and verbs are each sorted and rules are sorted by group, then resources. Unlike
 * controller-gen, rules of different groups are never merged (one group per rule), and wildcards are
 * refused: the role names every kind it grants. This file is what `kubeloom rbac check` compares with.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../api/rbac/v1.ts';
import type { ServiceAccount } from '../api/core/v1.ts';
import type { ControllerRegistration, RbacRule } from '../builder/registrations.ts';
import { ManifestError } from './errors.ts';

/** The verbs of a kind the controller creates and deletes (kubebuilder's scaffolded marker verbs). */
const allVerbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
/** What a cache (informer) of a kind needs, plus `get` for uncached reads. */
const readVerbs = ['get', 'list', 'watch'];

function kindRule(kind: { group: string; resource: string }, verbs: readonly string[], subresource?: string): PolicyRule {
  return { apiGroups: [kind.group], resources: [subresource === undefined ? kind.resource : `${kind.resource}/${subresource}`], verbs: [...verbs] };
}

/** A declared rule as a PolicyRule. */
export function policyRuleOf(rule: RbacRule): PolicyRule {
  if ('kind' in rule) return kindRule(rule.kind, rule.verbs, rule.subresource);
  return rule;
}

/** The rules one controller needs (before normalization); see the module comment. */
export function controllerRules(c: ControllerRegistration): PolicyRule[] {
  const rules: PolicyRule[] = [];
  if (c.for !== undefined) {
    rules.push(kindRule(c.for, c.finalizer ? [...readVerbs, 'patch', 'update'] : readVerbs));
    if (c.for.subresources.includes('status')) rules.push(kindRule(c.for, ['get', 'patch', 'update'], 'status'));
    if (c.finalizer || c.owns.length > 0) rules.push(kindRule(c.for, ['update'], 'finalizers'));
  }
  for (const k of c.owns) rules.push(kindRule(k, allVerbs));
  for (const k of c.watches) rules.push(kindRule(k, readVerbs));
  rules.push({ apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] });
  for (const r of c.rbac) rules.push(policyRuleOf(r));
  return rules;
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Merges and sorts rules deterministically (controller-gen's NormalizeRules, one group per rule).
 * Throws {@link ManifestError} on a wildcard (`*`) group, resource or verb, or a rule without verbs.
 */
export function normalizeRules(rules: readonly PolicyRule[]): PolicyRule[] {
  // group → names key → resource → verbs
  const resourceRules = new Map<string, Map<string, { names: string[]; verbs: Map<string, Set<string>> }>>();
  const urlRules = new Map<string, Set<string>>();
  for (const rule of rules) {
    const where = JSON.stringify(rule);
    if (rule.verbs.length === 0) throw new ManifestError(`RBAC rule ${where} has no verbs`);
    for (const v of [...rule.verbs, ...(rule.apiGroups ?? []), ...(rule.resources ?? [])]) {
      if (v.includes('*')) throw new ManifestError(`RBAC rule ${where} has a wildcard: name the groups, resources and verbs`);
    }
    if (rule.nonResourceURLs !== undefined && rule.nonResourceURLs.length > 0) {
      for (const url of rule.nonResourceURLs) {
        const verbs = urlRules.get(url) ?? new Set<string>();
        for (const v of rule.verbs) verbs.add(v);
        urlRules.set(url, verbs);
      }
      continue;
    }
    if ((rule.apiGroups ?? []).length === 0 || (rule.resources ?? []).length === 0) throw new ManifestError(`RBAC rule ${where} names no apiGroups or no resources`);
    const names = sorted(rule.resourceNames ?? []);
    const namesKey = names.join(',');
    for (const group of rule.apiGroups!) {
      const byNames = resourceRules.get(group) ?? new Map<string, { names: string[]; verbs: Map<string, Set<string>> }>();
      resourceRules.set(group, byNames);
      const entry = byNames.get(namesKey) ?? { names, verbs: new Map<string, Set<string>>() };
      byNames.set(namesKey, entry);
      for (const resource of rule.resources!) {
        const verbs = entry.verbs.get(resource) ?? new Set<string>();
        for (const v of rule.verbs) verbs.add(v);
        entry.verbs.set(resource, verbs);
      }
    }
  }
  const out: PolicyRule[] = [];
  for (const group of [...resourceRules.keys()].sort(compare)) {
    for (const { names, verbs } of resourceRules.get(group)!.values()) {
      // Resources with the same verbs share one rule.
      const byVerbs = new Map<string, string[]>();
      for (const [resource, vs] of verbs) {
        const key = sorted(vs).join(',');
        byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
      }
      for (const [verbKey, resources] of byVerbs) {
        const rule: PolicyRule = { apiGroups: [group], resources: sorted(resources), verbs: verbKey.split(',') };
        if (names.length > 0) rule.resourceNames = names;
        out.push(orderKeys(rule));
      }
    }
  }
  out.sort((a, b) => compare(a.apiGroups![0]!, b.apiGroups![0]!) || compare(a.resources!.join(','), b.resources!.join(',')) || compare((a.resourceNames ?? []).join(','), (b.resourceNames ?? []).join(',')));
  const urls = [...urlRules.entries()].sort(([a], [b]) => compare(a, b));
  for (const [url, verbs] of urls) out.push({ nonResourceURLs: [url], verbs: sorted(verbs) });
  return out;
}

/** The keys of a rule in the order controller-gen writes them (alphabetical). */
function orderKeys(rule: PolicyRule): PolicyRule {
  return {
    apiGroups: rule.apiGroups!,
    ...(rule.resourceNames !== undefined ? { resourceNames: rule.resourceNames } : {}),
    resources: rule.resources!,
    verbs: rule.verbs,
  };
}

/** The names of the RBAC objects (before kustomize's namePrefix and namespace). */
export const rbacNames = {
  serviceAccount: 'controller-manager',
  managerRole: 'manager-role',
  managerRoleBinding: 'manager-rolebinding',
  leaderElectionRole: 'leader-election-role',
  leaderElectionRoleBinding: 'leader-election-rolebinding',
  metricsAuthRole: 'metrics-auth-role',
  metricsAuthRoleBinding: 'metrics-auth-rolebinding',
  metricsReaderRole: 'metrics-reader',
  /** The namespace placeholder kustomize's `namespace:` replaces (kubebuilder's `system`). */
  namespace: 'system',
} as const;

/** The ClusterRole `manager-role` with the normalized rules of every controller (config/rbac/role.yaml). */
export function managerRole(controllers: readonly ControllerRegistration[], extra: readonly PolicyRule[] = []): ClusterRole {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: rbacNames.managerRole }, rules: normalizeRules([...controllers.flatMap(controllerRules), ...extra]) };
}

/** The manager's ServiceAccount. */
export function serviceAccount(labels: Record<string, string>): ServiceAccount {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { labels, name: rbacNames.serviceAccount, namespace: rbacNames.namespace } };
}

/** Binds `manager-role` to the ServiceAccount. */
export function managerRoleBinding(labels: Record<string, string>): ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { labels, name: rbacNames.managerRoleBinding },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: rbacNames.managerRole },
    subjects: [{ kind: 'ServiceAccount', name: rbacNames.serviceAccount, namespace: rbacNames.namespace }],
  };
}

/**
 * The leader-election Role in the manager's namespace: leases, with kubebuilder's verbs
 * (config/rbac/leader_election_role.yaml; the configmaps rule of older layouts is gone with
 * configmap locks).
 */
export function leaderElectionRole(labels: Record<string, string>): Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { labels, name: rbacNames.leaderElectionRole, namespace: rbacNames.namespace },
    rules: normalizeRules([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: allVerbs }]),
  };
}

/** Binds the leader-election Role to the ServiceAccount. */
export function leaderElectionRoleBinding(labels: Record<string, string>): RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { labels, name: rbacNames.leaderElectionRoleBinding, namespace: rbacNames.namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: rbacNames.leaderElectionRole },
    subjects: [{ kind: 'ServiceAccount', name: rbacNames.serviceAccount, namespace: rbacNames.namespace }],
  };
}

/**
 * What the secure metrics server's filter sends as the manager: TokenReviews and SubjectAccessReviews
 * (kubebuilder's config/rbac/metrics_auth_role.yaml; controller-runtime pkg/metrics/filters).
 */
export function metricsAuthRole(labels: Record<string, string>): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { labels, name: rbacNames.metricsAuthRole },
    rules: normalizeRules([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]),
  };
}

/** Binds the metrics-auth ClusterRole to the manager's ServiceAccount (metrics_auth_role_binding.yaml). */
export function metricsAuthRoleBinding(labels: Record<string, string>): ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { labels, name: rbacNames.metricsAuthRoleBinding },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: rbacNames.metricsAuthRole },
    subjects: [{ kind: 'ServiceAccount', name: rbacNames.serviceAccount, namespace: rbacNames.namespace }],
  };
}

/** `get` on `/metrics`, for the scraper's identity to be bound to (metrics_reader_role.yaml; unbound). */
export function metricsReaderRole(labels: Record<string, string>): ClusterRole {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { labels, name: rbacNames.metricsReaderRole }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] };
}
