/**
 * `kubeloom rbac check`: whether the declared rules (kubebuilder's config/rbac/role.yaml and
 * leader_election_role.yaml, written from the builder's for/owns/watches) and the learned ones
 * (`kubeloom rbac learn`) agree. Cluster-scoped rules are compared with cluster-scoped ones; a learned
 * Role permission is also granted by the declared ClusterRole (bound cluster-wide), but a declared
 * ClusterRole permission that was only needed in the Role's namespace is reported as unused there.
 */
import type { PolicyRule } from '../api/rbac/v1.ts';
import { describeAtom, diffRules, type NonResourceAtom, type RuleAtom } from './policy-rules.ts';
import { rulesOf, type PolicyDocuments } from './policy-file.ts';

/** One disagreement between declared and learned rules. */
export interface Disagreement {
  /** `missing`: used but not granted (the operator is refused); `unused`: granted but never used. */
  readonly kind: 'missing' | 'unused';
  /** `ClusterRole` or `Role`: where the permission is (or should be). */
  readonly scope: 'ClusterRole' | 'Role';
  /** The permission as a phrase: `create apps/deployments`, `get /healthz`. */
  readonly permission: string;
}

const describeUrl = (n: NonResourceAtom): string => `${n.verb} ${n.url}`;

function collect(out: Disagreement[], scope: Disagreement['scope'], kind: Disagreement['kind'], atoms: readonly RuleAtom[], urls: readonly NonResourceAtom[]): void {
  for (const a of atoms) out.push({ kind, scope, permission: describeAtom(a) });
  for (const n of urls) out.push({ kind, scope, permission: describeUrl(n) });
}

/** Every disagreement between declared and learned policy, missing ones first. */
export function checkPolicy(declared: PolicyDocuments, learned: PolicyDocuments): Disagreement[] {
  const declaredCluster = rulesOf(declared.clusterRoles);
  const declaredRole = rulesOf(declared.roles);
  const learnedCluster = rulesOf(learned.clusterRoles);
  const learnedRole = rulesOf(learned.roles);
  const cluster = diffRules(declaredCluster, learnedCluster);
  const role = diffRules([...declaredRole, ...declaredCluster] as PolicyRule[], learnedRole);
  const roleUnused = diffRules(declaredRole, learnedRole);
  const out: Disagreement[] = [];
  collect(out, 'ClusterRole', 'missing', cluster.missing, cluster.missingNonResource);
  collect(out, 'Role', 'missing', role.missing, role.missingNonResource);
  collect(out, 'ClusterRole', 'unused', cluster.unused, cluster.unusedNonResource);
  collect(out, 'Role', 'unused', roleUnused.unused, roleUnused.unusedNonResource);
  return out;
}

/** One line per disagreement, as `rbac check` prints them. */
export function formatDisagreement(d: Disagreement): string {
  return d.kind === 'missing' ? `used but not granted (${d.scope}): ${d.permission}` : `granted but unused (${d.scope}): ${d.permission}`;
}
