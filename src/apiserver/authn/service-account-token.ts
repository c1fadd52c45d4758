/**
 * ServiceAccount tokens: signed JWTs the server issues through TokenRequest and verifies on every
 * request, as kube-apiserver's serviceaccount token generator and authenticator do
 * (pkg/serviceaccount/jwt.go, claims.go). Tokens carry the issuer, the audiences, iat/nbf/exp and the
 * private `kubernetes.io` claim naming the namespace, the ServiceAccount and the object the token is
 * bound to (a Pod or a Secret). Verification checks the signature, the issuer, the times, that one of
 * the API audiences is among the token's, and that the ServiceAccount (and bound object) still exists
 * with the uid in the token.
 */
import { SignJWT, jwtVerify, decodeJwt, type JWTPayload } from 'jose';
import type { Clock } from '../../util/clock/clock.ts';
import { ServiceAccountSigningKey, type ServiceAccountKeyPair } from './service-account-key.ts';
import { serviceAccountGroups, serviceAccountUsername, userInfo } from './user.ts';
import type { AuthenticationResult } from './x509.ts';

/** kube-apiserver's issuer on clusters set up like this machine's (--service-account-issuer). */
export const defaultServiceAccountIssuer = 'https://kubernetes.default.svc';

// jwt.DefaultLeeway of go-jose: tolerated clock skew on nbf/exp and on deletions.
const leewaySeconds = 60;

/** A reference to an object by name and uid, as the private claim keeps it. */
export interface ClaimRef {
  name: string;
  uid: string;
}

/** What a token is issued for. */
export interface TokenClaims {
  namespace: string;
  serviceAccount: ClaimRef;
  pod?: ClaimRef | undefined;
  secret?: ClaimRef | undefined;
  audiences: readonly string[];
  /** Lifetime from now, in seconds. */
  expirationSeconds: number;
}

/** Looks an object up by namespace and name; returns its uid and whether it is being deleted. */
export type ObjectLookup = (resource: 'serviceaccounts' | 'pods' | 'secrets', namespace: string, name: string) => { uid: string; deletionTimestamp?: string | undefined } | undefined;

interface PrivateClaim {
  namespace?: string;
  serviceaccount?: Partial<ClaimRef>;
  pod?: Partial<ClaimRef>;
  secret?: Partial<ClaimRef>;
}

/** Issues and verifies ServiceAccount tokens with one ES256 key pair (see ServiceAccountSigningKey). */
export class ServiceAccountTokens {
  readonly issuer: string;
  /** The audiences requests are authenticated for (kube-apiserver's --api-audiences, defaulting to the issuer). */
  readonly apiAudiences: readonly string[];
  readonly #clock: Clock;
  readonly #key: ServiceAccountSigningKey;

  constructor(options: { clock: Clock; issuer?: string; apiAudiences?: readonly string[]; signingKey?: ServiceAccountSigningKey | undefined }) {
    this.#clock = options.clock;
    this.issuer = options.issuer ?? defaultServiceAccountIssuer;
    this.apiAudiences = options.apiAudiences ?? [this.issuer];
    this.#key = options.signingKey ?? new ServiceAccountSigningKey();
  }

  /** The key tokens are signed with (shared with forks). */
  get signingKey(): ServiceAccountSigningKey {
    return this.#key;
  }

  #keys(): ServiceAccountKeyPair {
    return this.#key.pair();
  }

  /** Signs a token; returns it with its expiry (ms since the epoch). */
  async generate(c: TokenClaims): Promise<{ token: string; expiresAtMs: number }> {
    const nowS = Math.floor(this.#clock.now() / 1000);
    const exp = nowS + c.expirationSeconds;
    const priv: PrivateClaim = { namespace: c.namespace, serviceaccount: { name: c.serviceAccount.name, uid: c.serviceAccount.uid } };
    if (c.pod !== undefined) priv.pod = { ...c.pod };
    else if (c.secret !== undefined) priv.secret = { ...c.secret };
    const token = await new SignJWT({ 'kubernetes.io': priv })
      .setProtectedHeader({ alg: 'ES256', kid: this.#keys().keyId })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(c.namespace, c.serviceAccount.name))
      .setAudience([...c.audiences])
      .setIssuedAt(nowS)
      .setNotBefore(nowS)
      .setExpirationTime(exp)
      .sign(this.#keys().privateKey);
    return { token, expiresAtMs: (nowS + c.expirationSeconds) * 1000 };
  }

  /**
   * Authenticates a bearer token: undefined when it is not a JWT of this issuer (another authenticator
   * may know it), an error when it is one but does not verify, else the ServiceAccount user.
   */
  async authenticate(token: string, lookup: ObjectLookup): Promise<AuthenticationResult> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return undefined;
    }
    if (unverified.iss !== this.issuer) return undefined;
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys().publicKey, { algorithms: ['ES256'], currentDate: new Date(this.#clock.now()), clockTolerance: leewaySeconds }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') return { error: 'service account token has expired' };
      if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') return { error: 'service account token is not valid yet' };
      return { error: 'invalid signature' };
    }
    const auds = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    if (!auds.some((a) => this.apiAudiences.includes(a))) return { error: `token audiences ${goQuote(auds)} is invalid for the target audiences ${goQuote(this.apiAudiences)}` };
    const priv = payload['kubernetes.io'] as PrivateClaim | undefined;
    const namespace = priv?.namespace ?? '';
    const sa = priv?.serviceaccount;
    if (namespace === '' || sa?.name === undefined || sa.name === '') return { error: 'service account token claims could not be validated due to unexpected private claim' };
    const deletedBefore = this.#clock.now() - leewaySeconds * 1000;
    const gone = (o: { deletionTimestamp?: string | undefined }): boolean => o.deletionTimestamp !== undefined && Date.parse(o.deletionTimestamp) < deletedBefore;
    const account = lookup('serviceaccounts', namespace, sa.name);
    if (account === undefined) return { error: `serviceaccounts "${sa.name}" not found` };
    if (gone(account)) return { error: `service account ${namespace}/${sa.name} has been deleted` };
    if (account.uid !== sa.uid) return { error: `service account UID (${account.uid}) does not match claim (${sa.uid ?? ''})` };
    const extra: Record<string, string[]> = {};
    for (const [kind, ref] of [['secrets', priv?.secret], ['pods', priv?.pod]] as const) {
      if (ref === undefined) continue;
      const o = lookup(kind, namespace, ref.name ?? '');
      if (o === undefined || gone(o)) return { error: 'service account token has been invalidated' };
      if (o.uid !== ref.uid) return { error: `${kind === 'pods' ? 'pod' : 'secret'} UID (${o.uid}) does not match service account ${kind === 'pods' ? 'pod' : 'secret'} ref claim (${ref.uid ?? ''})` };
      if (kind === 'pods') {
        extra['authentication.kubernetes.io/pod-name'] = [ref.name ?? ''];
        extra['authentication.kubernetes.io/pod-uid'] = [ref.uid ?? ''];
      }
    }
    return { user: userInfo(serviceAccountUsername(namespace, sa.name), { uid: sa.uid ?? '', groups: serviceAccountGroups(namespace), extra }) };
  }
}

/** Go's %q of a string slice: `["a" "b"]`. */
export function goQuote(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}
