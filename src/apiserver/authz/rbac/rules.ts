/**
 * RBAC rule evaluation: whether one PolicyRule allows a request, as
 * plugin/pkg/auth/authorizer/rbac/rbac.go's RuleAllows over pkg/apis/rbac/v1/evaluation_helpers.go.
 * `*` matches every verb, group, resource or non-resource URL; a star, a slash and a subresource matches that subresource of
 * every resource; a non-resource URL ending in `*` matches by prefix; resourceNames restrict names
 * (and so never match a request without one, such as list or create).
 */
import type { PolicyRule } from '../../../api/rbac/v1.ts';
import type { Attributes } from '../request-info.ts';

/** The parts of the attributes a rule is matched against. */
export type RuleTarget = Pick<Attributes, 'verb' | 'resourceRequest' | 'path' | 'apiGroup' | 'resource' | 'subresource' | 'name'>;

/** Whether the rule names the verb (or `*`). */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === '*' || v === verb);
}

/** Whether the rule names the API group (or `*`). */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

/** Whether the rule names the resource (with its subresource), every resource, or every resource's subresource. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource !== '' && r === `*/${subresource}`) return true;
  }
  return false;
}

/** Whether the rule's resourceNames (if any) include the name. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Whether the rule names the non-resource URL, `*`, or a `prefix*` of it. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** Whether one rule allows the request. */
export function ruleAllows(a: RuleTarget, rule: PolicyRule): boolean {
  if (!a.resourceRequest) return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  return verbMatches(rule, a.verb) && apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}
