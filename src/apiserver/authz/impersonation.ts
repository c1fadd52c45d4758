/**
 * Impersonation headers (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go): a request may act
 * as another user (`Impersonate-User`, a `system:serviceaccount:<ns>:<name>` name meaning that
 * ServiceAccount), with groups (`Impersonate-Group`, repeatable), a uid (`Impersonate-Uid`) and extra
 * values (`Impersonate-Extra-<key>`), each allowed by the `impersonate` verb on users, serviceaccounts,
 * groups, uids or userextras/<key>. The impersonated user gets `system:authenticated` (or
 * `system:unauthenticated` for system:anonymous), and ServiceAccounts their groups unless groups were
 * given. The first check that fails answers 403; groups, uid or extras without a user answer 500.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername, SystemUsers, type UserInfo } from '../authn/user.ts';
import { forbidden, type Authorizer } from './authorizer.ts';
import type { Attributes } from './request-info.ts';

const extraPrefix = 'impersonate-extra-';

function values(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

// Node joins repeated headers with ", " except for the ones it knows; read the raw pairs to keep each value.
function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) out.push(rawHeaders[i + 1]!);
  return out;
}

/** Malformed impersonation headers: answered with a plain-text 500, as upstream's responsewriters.InternalError. */
export class ImpersonationError extends Error {
  readonly code = 'ImpersonationHeadersInvalid';
  constructor(message: string) {
    super(message);
    this.name = 'ImpersonationError';
  }
}

/**
 * Applies the impersonation headers: the user to act as (after the authorizer allowed every part),
 * or `requestor` when there are none. Throws a 403 or 500 StatusError otherwise.
 */
export function impersonate(headers: IncomingHttpHeaders, rawHeaders: readonly string[], requestor: UserInfo, authorizer: Authorizer): UserInfo {
  const requestedUser = values(headers['impersonate-user'])[0] ?? '';
  const groups = headerValues(rawHeaders, 'impersonate-group');
  const extraKeys = Object.keys(headers).filter((h) => h.startsWith(extraPrefix));
  const uid = values(headers['impersonate-uid'])[0] ?? '';
  if (requestedUser === '' && groups.length === 0 && extraKeys.length === 0 && uid === '') return requestor;
  if (requestedUser === '') {
    // Go's %v of the []ObjectReference built from the headers: {Kind Namespace Name UID APIVersion ResourceVersion FieldPath}.
    const ref = (kind: string, name: string, apiVersion = '', fieldPath = ''): string => `{${[kind, '', name, '', apiVersion, '', fieldPath].join(' ')}}`;
    const refs = [
      ...groups.map((g) => ref('Group', g)),
      ...extraKeys.flatMap((h) => headerValues(rawHeaders, h).map((v) => ref('UserExtra', v, 'authentication.k8s.io/v1', h.slice(extraPrefix.length)))),
      ...(uid === '' ? [] : [ref('UID', uid, 'authentication.k8s.io/v1')]),
    ];
    throw new ImpersonationError(`requested [${refs.join(' ')}] without impersonating a user`);
  }
  const check = (a: Omit<Attributes, 'user' | 'verb' | 'resourceRequest' | 'path' | 'apiVersion'>): void => {
    const attrs: Attributes = { user: requestor, verb: 'impersonate', resourceRequest: true, path: '', apiVersion: a.apiGroup === '' ? '' : 'v1', ...a };
    const d = authorizer.authorize(attrs);
    if (!d.allowed) throw forbidden(attrs, d.reason);
  };
  let name = requestedUser;
  let userGroups: string[] = [];
  const sa = splitServiceAccountUsername(requestedUser);
  if (sa !== undefined) {
    check({ apiGroup: '', resource: 'serviceaccounts', subresource: '', namespace: sa.namespace, name: sa.name });
    name = serviceAccountUsername(sa.namespace, sa.name);
    if (groups.length === 0) userGroups = serviceAccountGroups(sa.namespace);
  } else {
    check({ apiGroup: '', resource: 'users', subresource: '', namespace: '', name: requestedUser });
  }
  for (const g of groups) {
    check({ apiGroup: '', resource: 'groups', subresource: '', namespace: '', name: g });
    userGroups.push(g);
  }
  const extra: Record<string, string[]> = {};
  for (const header of extraKeys) {
    let key = header.slice(extraPrefix.length);
    try {
      key = decodeURIComponent(key);
    } catch {
      // Malformed escapes are kept as sent, as upstream.
    }
    for (const value of headerValues(rawHeaders, header)) {
      check({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, namespace: '', name: value });
      (extra[key] ??= []).push(value);
    }
  }
  if (uid !== '') check({ apiGroup: 'authentication.k8s.io', resource: 'uids', subresource: '', namespace: '', name: uid });
  if (name !== SystemUsers.anonymous) {
    if (!userGroups.includes(SystemUsers.allAuthenticated) && !userGroups.includes(SystemUsers.allUnauthenticated)) userGroups.push(SystemUsers.allAuthenticated);
  } else if (!userGroups.includes(SystemUsers.allUnauthenticated)) userGroups.push(SystemUsers.allUnauthenticated);
  return { name, uid, groups: userGroups, extra };
}
