/**
 * Turns recorded requests into the least-privilege rules of the identity that made them — the idea of
 * liggitt/audit2rbac (which reads a kube-apiserver audit log) applied to the request records of
 * kubeloom's embedded server. Each request of the selected client becomes one permission (verb,
 * group, resource or resource/subresource); permissions that every authenticated user already has
 * through the bootstrap policy (system:discovery, system:basic-user, system:public-info-viewer) are
 * left out, as audit2rbac leaves them out; leader-election Leases go into a namespaced Role (the
 * manager only ever touches its own Lease), everything else into a ClusterRole.
 *
 * A watch that streamed its initial list (`sendInitialEvents=true`, the informers' WatchList) also
 * needs `list`: against a server without WatchList (kube-apiserver before 1.34 by default) the same
 * informer lists, then watches.
 *
 * resourceNames are not emitted: a create, list or watch carries no name, and the names a test suite
 * uses are its own fixtures, not the names the operator will meet in a cluster.
 */
import { readFile } from 'node:fs/promises';
import type { ClusterRole, PolicyRule, Role } from '../api/rbac/v1.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../apiserver/authz/rbac/bootstrap-policy.ts';
import { ruleAllows } from '../apiserver/authz/rbac/rules.ts';
import type { RecordedRequest } from '../apiserver/authz/request-recorder.ts';
import { managerUserAgentMark } from './learn-mode.ts';
import { compactRules, RbacPolicyError, type NonResourceAtom, type RuleAtom } from './policy-rules.ts';

export type { RecordedRequest } from '../apiserver/authz/request-recorder.ts';

/** kubebuilder's name of the manager's ClusterRole (config/rbac/role.yaml). */
export const defaultClusterRoleName = 'manager-role';
/** kubebuilder's name of the leader-election Role (config/rbac/leader_election_role.yaml). */
export const defaultLeaderElectionRoleName = 'leader-election-role';

/** Which recorded requests are the operator's. */
export interface RequestSelector {
  /** Requests whose User-Agent contains this (default: the Manager's mark, `kubeloom-manager`). */
  userAgentContains?: string;
  /** Requests of this user instead (e.g. `system:serviceaccount:ns:name`); wins over the User-Agent. */
  user?: string;
}

/** Options of {@link learnPolicy}. */
export interface LearnOptions {
  /** Which requests are the operator's (default: the Manager's User-Agent mark). */
  select?: RequestSelector;
  /**
   * The namespace the leader-election Role is written for (default: the namespace the Leases were
   * used in, else `default`). Lease requests of any namespace go into that Role.
   */
  namespace?: string;
  /** Name of the ClusterRole (default `manager-role`). */
  clusterRoleName?: string;
  /** Name of the Role (default `leader-election-role`). */
  roleName?: string;
}

/** What {@link learnPolicy} produced, with the counts its summary reports. */
export interface LearnedPolicy {
  /** The ClusterRole of everything but Leases. */
  clusterRole: ClusterRole;
  /** The Role of the Leases, when any were used. */
  role: Role | undefined;
  /** Distinct requests in the records. */
  recorded: number;
  /** Distinct requests of the selected client. */
  selected: number;
  /** Selected requests left out because every authenticated user may make them. */
  allowedToEveryone: number;
}

/** Reads a JSON-lines request record; an absent file is an empty record. */
export async function readRequestRecords(file: string): Promise<RecordedRequest[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new RbacPolicyError(`cannot read the request record ${file}: ${(err as Error).message}`, { cause: err });
  }
  const out: RecordedRequest[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as RecordedRequest);
    } catch (err) {
      throw new RbacPolicyError(`${file}:${i + 1}: not a JSON request record`, { cause: err });
    }
  }
  return out;
}

// The rules of the bootstrap ClusterRoles bound to every authenticated user.
function everyoneRules(): PolicyRule[] {
  const roles = new Map(bootstrapClusterRoles().map((r) => [r.metadata?.name ?? '', r.rules ?? []]));
  const rules: PolicyRule[] = [];
  for (const b of bootstrapClusterRoleBindings()) {
    if ((b.subjects ?? []).some((s) => s.kind === 'Group' && s.name === 'system:authenticated')) rules.push(...(roles.get(b.roleRef.name) ?? []));
  }
  return rules;
}

/** Whether a recorded request is the operator's. */
export function isSelected(r: RecordedRequest, select: RequestSelector = {}): boolean {
  if (select.user !== undefined) return r.user === select.user;
  return r.userAgent.includes(select.userAgentContains ?? managerUserAgentMark);
}

const isLease = (r: Pick<RecordedRequest, 'apiGroup' | 'resource'>): boolean => r.apiGroup === 'coordination.k8s.io' && r.resource === 'leases';

/** The least-privilege ClusterRole (and leader-election Role) of the selected requests. */
export function learnPolicy(records: readonly RecordedRequest[], options: LearnOptions = {}): LearnedPolicy {
  const everyone = everyoneRules();
  const distinct = new Set(records.map((r) => JSON.stringify(r)));
  const cluster: RuleAtom[] = [];
  const nonResource: NonResourceAtom[] = [];
  const leases: RuleAtom[] = [];
  const leaseNamespaces = new Set<string>();
  let selected = 0;
  let allowedToEveryone = 0;
  const seen = new Set<string>();
  for (const r of records) {
    if (!isSelected(r, options.select) || r.verb === '') continue;
    const key = JSON.stringify(r);
    if (seen.has(key)) continue;
    seen.add(key);
    selected++;
    if (everyone.some((rule) => ruleAllows(r, rule))) {
      allowedToEveryone++;
      continue;
    }
    if (!r.resourceRequest) {
      nonResource.push({ verb: r.verb, url: r.path });
      continue;
    }
    const atom: RuleAtom = { apiGroup: r.apiGroup, resource: r.subresource === '' ? r.resource : `${r.resource}/${r.subresource}`, verb: r.verb, resourceNames: [] };
    const atoms = r.sendInitialEvents === true ? [atom, { ...atom, verb: 'list' }] : [atom];
    if (isLease(r) && r.namespace !== '') {
      leases.push(...atoms);
      leaseNamespaces.add(r.namespace);
    } else cluster.push(...atoms);
  }
  const clusterRole: ClusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: options.clusterRoleName ?? defaultClusterRoleName },
    rules: compactRules(cluster, nonResource),
  };
  const namespace = options.namespace ?? (leaseNamespaces.size === 1 ? [...leaseNamespaces][0]! : 'default');
  const role: Role | undefined =
    leases.length === 0
      ? undefined
      : { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: options.roleName ?? defaultLeaderElectionRoleName, namespace }, rules: compactRules(leases) };
  return { clusterRole, role, recorded: distinct.size, selected, allowedToEveryone };
}
