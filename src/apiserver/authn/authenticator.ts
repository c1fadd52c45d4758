/**
 * The authentication stage: from a request's credentials to a {@link UserInfo}, as kube-apiserver's
 * union of request authenticators (pkg/kubeapiserver/authenticator/config.go): the client certificate
 * first, then the bearer token (the static token table as --token-auth-file, then ServiceAccount
 * JWTs), then the anonymous user when allowed. Authenticated users get `system:authenticated`.
 *
 * As upstream, a credential that is presented but wrong is a 401 even when anonymous requests are
 * allowed: a certificate that does not verify, or a bearer token no authenticator accepts
 * ("invalid bearer token"). Only a request with no credentials at all is anonymous.
 */
import { SystemUsers, userInfo, withAuthenticatedGroup, type UserInfo } from './user.ts';
import { authenticateClientCertificate, type PeerCertificateState } from './x509.ts';
import type { ObjectLookup, ServiceAccountTokens } from './service-account-token.ts';

/** A user of the static table: a bearer token maps to a name, uid and groups (--token-auth-file). */
export interface StaticUser {
  /** The user name (what RBAC subjects of kind User name). */
  name: string;
  /** Bearer token that authenticates as this user. */
  token: string;
  /** Default: empty. */
  uid?: string;
  /** Groups besides `system:authenticated`. */
  groups?: readonly string[];
}

/** What the authenticator reads from a request. */
export interface Credentials {
  /** The Authorization header, if any. */
  authorization: string | undefined;
  /** The TLS client certificate, when the connection is TLS. */
  peer: PeerCertificateState | undefined;
}

/** Thrown when authentication fails: the request gets 401 Unauthorized. */
export class AuthenticationError extends Error {
  readonly code = 'AuthenticationFailed';
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationError';
  }
}

/** Options of {@link Authenticator}. */
export interface AuthenticatorOptions {
  users: readonly StaticUser[];
  /** Verifies ServiceAccount tokens; undefined: none are accepted. */
  serviceAccountTokens: ServiceAccountTokens | undefined;
  /** Looks up ServiceAccounts (and bound objects) for token verification. */
  lookup: ObjectLookup;
  /** Requests without credentials are `system:anonymous` (kube-apiserver's --anonymous-auth, default true). */
  anonymous: boolean;
}

/** The union of the server's authenticators. */
export class Authenticator {
  readonly #byToken = new Map<string, StaticUser>();
  readonly #options: AuthenticatorOptions;

  constructor(options: AuthenticatorOptions) {
    this.#options = options;
    for (const u of options.users) this.#byToken.set(u.token, u);
  }

  /** The user of a request; throws {@link AuthenticationError} for a 401. */
  async authenticate(c: Credentials): Promise<UserInfo> {
    const errors: string[] = [];
    if (c.peer !== undefined) {
      const r = authenticateClientCertificate(c.peer);
      if (r !== undefined && 'user' in r) return withAuthenticatedGroup(r.user);
      if (r !== undefined) errors.push(r.error);
    }
    const header = c.authorization?.trim();
    if (header !== undefined && header !== '') {
      const r = await this.#bearer(header);
      if ('user' in r) return withAuthenticatedGroup(r.user);
      errors.push(r.error);
    }
    if (errors.length > 0) throw new AuthenticationError(errors.join(', '));
    if (!this.#options.anonymous) throw new AuthenticationError('no credentials');
    return userInfo(SystemUsers.anonymous, { groups: [SystemUsers.allUnauthenticated] });
  }

  /** Authenticates a bare token as the token authenticators do (TokenReview). */
  async authenticateToken(token: string): Promise<{ user: UserInfo } | { error: string }> {
    const r = await this.#bearer(`Bearer ${token}`);
    return 'user' in r ? { user: withAuthenticatedGroup(r.user) } : r;
  }

  // bearertoken.Authenticator: "Bearer <token>" with a non-empty token, offered to each token authenticator.
  async #bearer(header: string): Promise<{ user: UserInfo } | { error: string }> {
    const parts = header.split(' ');
    if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return { error: 'invalid bearer token' };
    const token = parts[1]!;
    if (token === '') return { error: 'invalid bearer token' };
    const fixed = this.#byToken.get(token);
    if (fixed !== undefined) return { user: userInfo(fixed.name, { uid: fixed.uid ?? '', groups: fixed.groups ?? [] }) };
    const sa = await this.#options.serviceAccountTokens?.authenticate(token, this.#options.lookup);
    if (sa !== undefined) return 'user' in sa ? sa : { error: `invalid bearer token, ${sa.error}` };
    return { error: 'invalid bearer token' };
  }
}
