/**
 * RBAC's privilege-escalation prevention on role and binding writes (pkg/registry/rbac/escalation_check.go,
 * validation/rule.go ConfirmNoEscalation, component-helpers/auth/rbac/validation/policy_comparator.go
 * Covers): a user may only grant permissions it holds. Roles (and ClusterRoles) may be written by
 * members of system:masters, by users allowed the `escalate` verb on them, or when the writer's own
 * rules cover every rule written; bindings by members of system:masters, by users allowed `bind` on
 * the referenced role, or when the writer's rules cover the referenced role's. The refusal is a 403
 * listing the missing permissions in upstream's compact form.
 */
import type { PolicyRule } from '../../../api/rbac/v1.ts';
import { SystemUsers, type UserInfo } from '../../authn/user.ts';
import { goQuote } from '../../authn/service-account-token.ts';
import type { RuleResolver } from './rule-resolver.ts';

/** Splits a rule into rules of one group, resource, verb and (if any) resource name, or one URL and verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const n of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourceCoversAll(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes('*') || hasAll(owner, wanted)) return true;
  for (const path of wanted) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups ?? [], sub.apiGroups ?? []);
  const resources = resourceCoversAll(owner.resources ?? [], sub.resources ?? []);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** Whether the owner's rules cover every servant rule; the uncovered broken-down rules otherwise. */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) for (const sub of breakdownRule(servant)) if (!ownerRules.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return { covered: missing.length === 0, missing };
}

/** Merges rules of one group and resource (and at most one name) that differ only by verb (CompactRules). */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const names = r.resourceNames ?? [];
    const isSimple = names.length <= 1 && (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], names.length > 0, names[0] ?? '']);
    const existing = simple.get(key);
    if (existing !== undefined) existing.verbs = [...existing.verbs, ...r.verbs];
    else simple.set(key, structuredClone(r));
  }
  return [...out, ...simple.values()];
}

/** rbacv1helpers.CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuote(r.apiGroups!)}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuote(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuote(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuote(r.resourceNames!)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuote(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Whether the user is in system:masters, which skips every escalation check (EscalationAllowed). */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SystemUsers.privilegedGroup);
}

/**
 * ConfirmNoEscalation: undefined when the user's rules in the namespace cover `rules`, else the
 * message listing the permissions it lacks.
 */
export function confirmNoEscalation(resolver: RuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owned = resolver.rulesFor(user, namespace);
  const { covered, missing } = covers(owned.rules, rules);
  if (covered) return undefined;
  // Go's sets.String.List(): sorted, duplicates removed.
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.name)} (groups=${goQuote(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owned.errors.length > 0) msg += `; resolution errors: [${owned.errors.join(' ')}]`;
  return msg;
}

/** `*` on everything: what using an aggregationRule requires, since it can gather any rule. */
export const fullAuthority: readonly PolicyRule[] = [
  { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
  { nonResourceURLs: ['*'], verbs: ['*'] },
];
