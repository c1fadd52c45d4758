/**
 * The authorization stage's contract (k8s.io/apiserver/pkg/authorization/authorizer) and the 403 a
 * denied request gets, worded as the apiserver's responsewriters.Forbidden words it:
 * `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "ns"`.
 */
import { StatusError, StatusReason, newStatus } from '../../apimachinery/errors.ts';
import type { StatusDetails } from '../../api/meta/v1.ts';
import type { Attributes } from './request-info.ts';

/** An authorizer's verdict: allowed, or no opinion (RBAC never denies outright), with its reason. */
export interface Decision {
  allowed: boolean;
  /** Why: the rule that allowed, or the errors met while resolving rules (may be empty). */
  reason: string;
}

/** Decides whether a user may do what the attributes describe. */
export interface Authorizer {
  authorize(a: Attributes): Decision;
}

/** A rule as SelfSubjectRulesReview reports it. */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

/** A non-resource rule as SelfSubjectRulesReview reports it. */
export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

/** Lists what a user may do in a namespace (authorizer.RuleResolver). */
export interface RuleResolver {
  rulesFor(user: Attributes['user'], namespace: string): { resourceRules: ResourceRuleInfo[]; nonResourceRules: NonResourceRuleInfo[]; incomplete: boolean; evaluationError: string };
}

/** The authorizer of a server without authorization: everything is allowed (AlwaysAllow). */
export const alwaysAllow: Authorizer & RuleResolver = {
  authorize: () => ({ allowed: true, reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
    evaluationError: '',
  }),
};

// The HTML-sensitive characters responsewriters escapes in the message.
function sanitize(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The `User "x" cannot <verb> ...` sentence of a forbidden request. */
export function forbiddenMessage(a: Attributes): string {
  if (!a.resourceRequest) return `User ${JSON.stringify(a.user.name)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const where = a.namespace === '' ? 'at the cluster scope' : `in the namespace ${JSON.stringify(a.namespace)}`;
  return `User ${JSON.stringify(a.user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}

/**
 * Builds an errors.NewForbidden Status for a group/resource and name with a reason:
 * `<resource>[.<group>] ["<name>"] is forbidden: <why>`, or `forbidden: <why>` without a resource.
 */
export function forbiddenStatus(group: string, resource: string, name: string, why: string): StatusError {
  const qualified = resource === '' ? '' : group === '' ? resource : `${resource}.${group}`;
  let message: string;
  if (qualified === '') message = `forbidden: ${why}`;
  else if (name === '') message = `${qualified} is forbidden: ${why}`;
  else message = `${qualified} ${JSON.stringify(name)} is forbidden: ${why}`;
  const details: StatusDetails = {};
  if (name !== '') details.name = name;
  if (group !== '') details.group = group;
  if (resource !== '') details.kind = resource;
  return new StatusError(newStatus(403, StatusReason.Forbidden, message, details));
}

/** The 403 of a request the authorizer did not allow (responsewriters.Forbidden). */
export function forbidden(a: Attributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(a));
  return forbiddenStatus(a.apiGroup, a.resource, a.name, reason === '' ? msg : `${msg}: ${reason}`);
}

/**
 * Allows members of the given groups everything with an empty reason (authorizerfactory's
 * privilegedGroupAuthorizer): kube-apiserver puts one for system:masters in front of its authorizers.
 */
export function privilegedGroups(...groups: string[]): Authorizer {
  return { authorize: (a) => ({ allowed: a.user.groups.some((g) => groups.includes(g)), reason: '' }) };
}

/** The first authorizer that allows decides; otherwise the reasons are joined (authorizer union). */
export function unionAuthorizer(...authorizers: Authorizer[]): Authorizer {
  return {
    authorize(a) {
      const reasons: string[] = [];
      for (const z of authorizers) {
        const d = z.authorize(a);
        if (d.allowed) return d;
        if (d.reason !== '') reasons.push(d.reason);
      }
      return { allowed: false, reason: reasons.join('\n') };
    },
  };
}
