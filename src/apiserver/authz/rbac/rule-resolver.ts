/**
 * Which rules apply to a user in a namespace: every ClusterRoleBinding naming the user (or one of its
 * groups, or its ServiceAccount), then every RoleBinding in the namespace, each resolved to the rules
 * of the Role or ClusterRole it references — pkg/registry/rbac/validation/rule.go's
 * DefaultRuleResolver. A binding to a role that does not exist contributes an error, worded as a
 * lister's NotFound (`clusterrole.rbac.authorization.k8s.io "x" not found`), which RBAC appends to
 * its denial reasons.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from '../../../api/rbac/v1.ts';
import { splitServiceAccountUsername, type UserInfo } from '../../authn/user.ts';

/** Where the resolver reads RBAC objects from (the server's storage, or a fixed set in tests). */
export interface PolicySource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  listRoleBindings(namespace: string): RoleBinding[];
  listClusterRoleBindings(): ClusterRoleBinding[];
}

/** Called with each rule that applies (and the binding it comes from) or with a resolution error; false stops. */
export type RuleVisitor = (source: string, rule: PolicyRule | undefined, error: string | undefined) => boolean;

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** Whether a binding subject names the user (directly, by group, or as its ServiceAccount). */
export function appliesToUser(user: UserInfo, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.name === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : namespace;
      if (ns === '') return false;
      const sa = splitServiceAccountUsername(user.name);
      return sa !== undefined && sa.namespace === ns && sa.name === s.name;
    }
    default:
      return false;
  }
}

/** Resolves the rules of users from a {@link PolicySource}. */
export class RuleResolver {
  readonly #source: PolicySource;

  constructor(source: PolicySource) {
    this.#source = source;
  }

  /** The rules a role reference grants in a binding's namespace ('' for ClusterRoleBindings). */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[] } | { error: string } {
    if (ref.kind === 'Role') {
      const role = this.#source.getRole(bindingNamespace, ref.name);
      return role === undefined ? { error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` } : { rules: role.rules ?? [] };
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.#source.getClusterRole(ref.name);
      return role === undefined ? { error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` } : { rules: role.rules ?? [] };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  /** Visits every rule that applies to the user in the namespace, cluster-wide bindings first. */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    for (const b of this.#source.listClusterRoleBindings()) {
      const subject = (b.subjects ?? []).find((s) => appliesToUser(user, s, ''));
      if (subject === undefined) continue;
      const r = this.roleReferenceRules(b.roleRef, '');
      if ('error' in r) {
        if (!visit('', undefined, r.error)) return;
        continue;
      }
      const source = `ClusterRoleBinding ${JSON.stringify(b.metadata?.name ?? '')} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, '')}`;
      for (const rule of r.rules) if (!visit(source, rule, undefined)) return;
    }
    if (namespace === '') return;
    for (const b of this.#source.listRoleBindings(namespace)) {
      const subject = (b.subjects ?? []).find((s) => appliesToUser(user, s, namespace));
      if (subject === undefined) continue;
      const r = this.roleReferenceRules(b.roleRef, namespace);
      if ('error' in r) {
        if (!visit('', undefined, r.error)) return;
        continue;
      }
      const source = `RoleBinding ${JSON.stringify(`${b.metadata?.name ?? ''}/${namespace}`)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, namespace)}`;
      for (const rule of r.rules) if (!visit(source, rule, undefined)) return;
    }
  }

  /** Every rule that applies, and the resolution errors met (the rules are usable even with errors). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule !== undefined) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }
}
