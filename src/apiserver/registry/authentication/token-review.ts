/**
 * TokenReview (pkg/registry/authentication/tokenreview): asks the server whether a bearer token
 * authenticates, and as whom. Answered by the server's token authenticators (static tokens and
 * ServiceAccount tokens); never stored.
 */
import type { UserInfo } from '../../authn/user.ts';
import { badRequest } from '../../status.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Authenticates a bearer token: the user, or an error message. */
export type TokenAuthenticator = (token: string) => Promise<{ user: UserInfo; audiences: string[] } | { error: string }>;

/** Answers a TokenReview. */
export async function tokenReview(review: Obj, authenticate: TokenAuthenticator): Promise<Obj> {
  const spec = isObj(review.spec) ? review.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const r = await authenticate(token);
  let status: Obj;
  if ('user' in r) {
    const user: Obj = { username: r.user.name };
    if (r.user.uid !== '') user.uid = r.user.uid;
    if (r.user.groups.length > 0) user.groups = [...r.user.groups];
    if (Object.keys(r.user.extra).length > 0) user.extra = r.user.extra;
    status = { authenticated: true, user, audiences: r.audiences };
  } else status = { user: {}, error: r.error };
  return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: { creationTimestamp: null }, spec, status };
}
