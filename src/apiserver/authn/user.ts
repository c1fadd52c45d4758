/**
 * Who a request comes from: the user an authenticator found, as `user.Info` in
 * k8s.io/apiserver/pkg/authentication/user, plus the naming rules of ServiceAccount users
 * (k8s.io/apiserver/pkg/authentication/serviceaccount/util.go).
 */

/** An authenticated (or anonymous) user: name, uid, groups and extra attributes. */
export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** Well-known user and group names (user/user.go). */
export const SystemUsers = {
  /** The group of every authenticated user. */
  allAuthenticated: 'system:authenticated',
  /** The group of the anonymous user. */
  allUnauthenticated: 'system:unauthenticated',
  /** The name of a request without credentials, when anonymous requests are allowed. */
  anonymous: 'system:anonymous',
  /** Members may do anything (bound to cluster-admin) and skip RBAC escalation checks. */
  privilegedGroup: 'system:masters',
  /** The group of every ServiceAccount. */
  serviceAccountsGroup: 'system:serviceaccounts',
} as const;

const serviceAccountPrefix = 'system:serviceaccount:';

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${serviceAccountPrefix}${namespace}:${name}`;
}

/** The namespace and name of a ServiceAccount username, or undefined when it is not one. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountPrefix)) return undefined;
  const parts = username.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

/** The groups every ServiceAccount of a namespace belongs to: all ServiceAccounts, and those of its namespace. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SystemUsers.serviceAccountsGroup, `${SystemUsers.serviceAccountsGroup}:${namespace}`];
}

/** Builds a UserInfo, defaulting uid, groups and extra to empty. */
export function userInfo(name: string, options: { uid?: string; groups?: readonly string[]; extra?: Record<string, readonly string[]> } = {}): UserInfo {
  return { name, uid: options.uid ?? '', groups: options.groups ?? [], extra: options.extra ?? {} };
}

/**
 * Adds `system:authenticated` to an authenticated user's groups, as the AuthenticatedGroupAdder does:
 * not for the anonymous user, nor when the groups already say authenticated or unauthenticated.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === SystemUsers.anonymous) return user;
  if (user.groups.includes(SystemUsers.allAuthenticated) || user.groups.includes(SystemUsers.allUnauthenticated)) return user;
  return { ...user, groups: [...user.groups, SystemUsers.allAuthenticated] };
}
