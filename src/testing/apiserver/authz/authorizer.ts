/**
 * Authorization: the seam kube-apiserver's `authorizer.Authorizer` and `authorizer.RuleResolver`
 * (`apiserver/pkg/authorization/authorizer/interfaces.go`) define. The embedded server asks it to
 * answer access reviews (SelfSubjectAccessReview and friends, `kubectl auth can-i`); with no
 * authorization configured every request is allowed, as with `--authorization-mode=AlwaysAllow`.
 * An RBAC authorizer plugs in here.
 */

/** Who is asking. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** What a request would do: a resource request or a non-resource one (a path). */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  /** True for requests on API resources, false for non-resource paths. */
  readonly resourceRequest: boolean;
  readonly namespace?: string;
  readonly apiGroup?: string;
  readonly apiVersion?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly name?: string;
  /** The path of a non-resource request. */
  readonly path?: string;
}

/** The outcome of an authorization check. */
export interface Decision {
  readonly decision: 'allow' | 'deny' | 'no-opinion';
  readonly reason: string;
}

/** A rule as SelfSubjectRulesReview reports it. */
export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** A non-resource rule as SelfSubjectRulesReview reports it. */
export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** The rules that apply to a user in a namespace. */
export interface Rules {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** Whether the list may be missing rules (an authorizer that cannot enumerate them). */
  readonly incomplete: boolean;
  readonly evaluationError?: string;
}

/** Decides requests and lists the rules behind its decisions. */
export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Decision;
  rulesFor(user: UserInfo, namespace: string): Rules;
}

/** Allows everything, and says so in its rules: what a server without authorization configured does. */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/** The user requests are made as: the embedded server authenticates at most one token, which acts as an administrator. */
export const defaultUser: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
