/**
 * SelfSubjectReview (`pkg/registry/authentication/selfsubjectreview/rest.go`, GA in v1.28): answers who
 * the requesting user is, as the authenticators saw them (`kubectl auth whoami`); never stored.
 */
import type { UserInfo } from '../../authn/user.ts';

type Obj = Record<string, unknown>;

/** The SelfSubjectReview of a user; `now` is its creationTimestamp, as upstream stamps the answer. */
export function selfSubjectReview(user: UserInfo, now: string): Obj {
  const userInfo: Obj = { username: user.name };
  if (user.uid !== '') userInfo.uid = user.uid;
  if (user.groups.length > 0) userInfo.groups = [...user.groups];
  if (Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { creationTimestamp: now }, status: { userInfo } };
}
