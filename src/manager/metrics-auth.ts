/**
 * Authentication and authorization of the metrics endpoint (controller-runtime pkg/metrics/filters/
 * filters.go, `WithAuthenticationAndAuthorization`): every request's bearer token is checked with a
 * TokenReview, and the user it names with a SubjectAccessReview for the non-resource URL it asked for
 * (verb: the lower-cased HTTP method, so a scrape is `get /metrics`). No token or a token the server
 * does not accept: 401 `Unauthorized`; a user the server does not allow: 403 `Authorization denied for
 * user NAME`; a review that fails: 500, as upstream.
 *
 * Answers are cached as k8s.io/apiserver's delegating authenticator and authorizer cache them with the
 * TTLs controller-runtime gives them: a token's review for 1 minute, an allowed decision for 5 minutes,
 * a denied one for 30 seconds. Kubeloom does not retry a failed review (upstream's webhook backoff of
 * 500 ms ×1.5, 5 steps): the scraper retries at its next interval.
 *
 * The manager's identity then needs `create` on `tokenreviews` and `subjectaccessreviews`
 * (kubebuilder's config/rbac/metrics_auth_role.yaml); the scraper needs `get` on the non-resource URL
 * `/metrics` (config/rbac/metrics_reader_role.yaml).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SubjectAccessReview } from '../api/authorization/v1.ts';
import type { TokenReview, UserInfo } from '../api/authentication/v1.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import type { RestClient } from '../rest/client.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';

/**
 * A filter in front of the metrics handler (metricsserver.Filter): answers the request itself and
 * resolves false (refused), or resolves true to let the handler serve it.
 */
export type MetricsFilter = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** Makes the metrics server's filter from the manager's REST client (metricsserver.FilterProvider). */
export type MetricsFilterProvider = (rest: RestClient, options?: { clock?: Clock }) => MetricsFilter;

// controller-runtime's filters.go: authenticator CacheTTL, authorizer AllowCacheTTL and DenyCacheTTL.
const tokenCacheTtlMs = 60_000;
const allowCacheTtlMs = 5 * 60_000;
const denyCacheTtlMs = 30_000;

function refuse(res: ServerResponse, status: number, message: string): false {
  // Go's http.Error.
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(`${message}\n`);
  return false;
}

class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #clock: Clock;
  constructor(clock: Clock) {
    this.#clock = clock;
  }
  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    if (this.#clock.now() >= e.expires) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: V, ttlMs: number): void {
    this.#entries.set(key, { value, expires: this.#clock.now() + ttlMs });
  }
}

/**
 * The metrics filter that authenticates every request with a TokenReview and authorizes it with a
 * SubjectAccessReview (filters.WithAuthenticationAndAuthorization), both sent through `rest`.
 *
 * @example
 * const mgr = newManager(config, { metricsBindAddress: ':8443', metricsServer: { secureServing: true, filterProvider: withAuthenticationAndAuthorization } });
 */
export const withAuthenticationAndAuthorization: MetricsFilterProvider = (rest, options) => {
  const clock = options?.clock ?? realClock;
  const tokenReviews = new ResourceClient<TokenReview>(rest, { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false });
  const accessReviews = new ResourceClient<SubjectAccessReview>(rest, { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false });
  const users = new TtlCache<UserInfo | null>(clock);
  const decisions = new TtlCache<{ allowed: boolean; reason: string }>(clock);
  return async (req, res) => {
    const header = req.headers.authorization ?? '';
    const m = /^bearer\s+(\S+)\s*$/i.exec(header);
    // Anonymous requests are refused (DelegatingAuthenticatorConfig.Anonymous: false).
    if (m === null) return refuse(res, 401, 'Unauthorized');
    const token = m[1]!;
    let user = users.get(token);
    if (user === undefined) {
      try {
        const review = await tokenReviews.create({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
        user = review.status?.authenticated === true ? (review.status.user ?? {}) : null;
      } catch {
        return refuse(res, 500, 'Authentication failed');
      }
      users.set(token, user, tokenCacheTtlMs);
    }
    if (user === null) return refuse(res, 401, 'Unauthorized');
    const name = user.username ?? '';
    const verb = (req.method ?? 'GET').toLowerCase();
    const urlPath = new URL(req.url ?? '/', 'http://localhost').pathname;
    const key = JSON.stringify([name, user.uid ?? '', user.groups ?? [], user.extra ?? {}, verb, urlPath]);
    let decision = decisions.get(key);
    if (decision === undefined) {
      try {
        const review = await accessReviews.create({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: name,
            ...(user.uid !== undefined ? { uid: user.uid } : {}),
            ...(user.groups !== undefined ? { groups: user.groups } : {}),
            ...(user.extra !== undefined ? { extra: user.extra } : {}),
            nonResourceAttributes: { path: urlPath, verb },
          },
        });
        decision = { allowed: review.status?.allowed === true && review.status.denied !== true, reason: review.status?.reason ?? '' };
      } catch {
        return refuse(res, 500, `Authorization for user ${name} failed`);
      }
      decisions.set(key, decision, decision.allowed ? allowCacheTtlMs : denyCacheTtlMs);
    }
    if (!decision.allowed) return refuse(res, 403, `Authorization denied for user ${name}`);
    return true;
  };
};
