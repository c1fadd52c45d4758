/**
 * The server's access control, wired from its options: who a request is (authn/), whom it acts as
 * (impersonation), and whether it may (authz/: RBAC, or allow-all when RBAC is off), plus RBAC's
 * escalation checks on role and binding writes. RBAC policy is read from the server's own storage,
 * where the bootstrap roles and bindings are written at start when RBAC is on.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef } from '../../api/rbac/v1.ts';
import { StatusError, StatusReason, newStatus } from '../../apimachinery/errors.ts';
import type { Clock } from '../../util/clock/clock.ts';
import type { Storage } from '../storage.ts';
import { unauthorized } from '../status.ts';
import { AuthenticationError, Authenticator, type StaticUser } from '../authn/authenticator.ts';
import { ServiceAccountTokens, type ObjectLookup } from '../authn/service-account-token.ts';
import type { ServiceAccountSigningKey } from '../authn/service-account-key.ts';
import { SystemUsers, type UserInfo } from '../authn/user.ts';
import { alwaysAllow, forbidden, forbiddenStatus, privilegedGroups, unionAuthorizer, type Authorizer, type RuleResolver as RulesLister } from './authorizer.ts';
import { impersonate } from './impersonation.ts';
import { requestInfo, type Attributes } from './request-info.ts';
import { RbacAuthorizer } from './rbac/authorizer.ts';
import { confirmNoEscalation, escalationAllowed, fullAuthority } from './rbac/escalation.ts';
import { RuleResolver, type PolicySource } from './rbac/rule-resolver.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
const stores = {
  roles: `roles.${rbacGroup}`,
  roleBindings: `rolebindings.${rbacGroup}`,
  clusterRoles: `clusterroles.${rbacGroup}`,
  clusterRoleBindings: `clusterrolebindings.${rbacGroup}`,
} as const;

/** Options of {@link AccessControl}. */
export interface AccessControlOptions {
  /** Authorize with RBAC; false: every authenticated (or anonymous) request is allowed. */
  rbac: boolean;
  users: readonly StaticUser[];
  anonymous: boolean;
  /** Issuer of ServiceAccount tokens (default https://kubernetes.default.svc). */
  serviceAccountIssuer?: string | undefined;
  /** The ServiceAccount token signing key (default: a new one, made on first use). */
  serviceAccountSigningKey?: ServiceAccountSigningKey | undefined;
  clock: Clock;
}

/** The policy source over the server's storage. */
function storagePolicy(storage: Storage): PolicySource {
  const get = <T>(store: string, key: string): T | undefined => storage.get(store, key)?.obj as T | undefined;
  const list = <T>(store: string, namespace?: string): T[] => storage.listAt(store, storage.revision, namespace === undefined ? {} : { namespace }).map((s) => s.obj as T);
  return {
    getRole: (ns, name) => get<Role>(stores.roles, `${ns}/${name}`),
    getClusterRole: (name) => get<ClusterRole>(stores.clusterRoles, name),
    listRoleBindings: (ns) => list<RoleBinding>(stores.roleBindings, ns),
    listClusterRoleBindings: () => list<ClusterRoleBinding>(stores.clusterRoleBindings),
  };
}

/** Authentication, impersonation, authorization and RBAC write checks for one server. */
export class AccessControl {
  readonly rbacEnabled: boolean;
  readonly tokens: ServiceAccountTokens;
  readonly authorizer: Authorizer;
  /** Lists a user's rules (SelfSubjectRulesReview). */
  readonly rules: RulesLister;
  readonly resolver: RuleResolver;
  readonly #authenticator: Authenticator;

  constructor(options: AccessControlOptions, storage: Storage) {
    this.rbacEnabled = options.rbac;
    this.tokens = new ServiceAccountTokens({ clock: options.clock, ...(options.serviceAccountIssuer === undefined ? {} : { issuer: options.serviceAccountIssuer }), signingKey: options.serviceAccountSigningKey });
    const lookup: ObjectLookup = (resource, namespace, name) => {
      const meta = storage.get(resource, `${namespace}/${name}`)?.obj.metadata as { uid?: string; deletionTimestamp?: string } | undefined;
      return meta === undefined ? undefined : { uid: meta.uid ?? '', deletionTimestamp: meta.deletionTimestamp };
    };
    this.#authenticator = new Authenticator({ users: options.users, serviceAccountTokens: this.tokens, lookup, anonymous: options.anonymous });
    this.resolver = new RuleResolver(storagePolicy(storage));
    const rbac = new RbacAuthorizer(this.resolver);
    // As kube-apiserver: system:masters first (its loopback authorizer), then RBAC.
    this.authorizer = options.rbac ? unionAuthorizer(privilegedGroups(SystemUsers.privilegedGroup), rbac) : alwaysAllow;
    this.rules = options.rbac ? rbac : alwaysAllow;
  }

  /** Authenticates a request and applies its impersonation headers; throws 401, 403 or 500 Statuses. */
  async identify(req: IncomingMessage): Promise<UserInfo> {
    const socket = req.socket as Partial<TLSSocket>;
    const peer =
      typeof socket.getPeerCertificate === 'function'
        ? { certificate: socket.getPeerCertificate(), authorized: socket.authorized === true, authorizationError: socket.authorizationError?.message ?? (socket.authorizationError as unknown as string | undefined) }
        : undefined;
    let user: UserInfo;
    try {
      user = await this.#authenticator.authenticate({ authorization: req.headers.authorization, peer });
    } catch (err) {
      if (err instanceof AuthenticationError) throw unauthorized();
      throw err;
    }
    return impersonate(req.headers, req.rawHeaders, user, this.authorizer);
  }

  /** Authenticates a bare bearer token (TokenReview): the user and the audiences it was accepted for. */
  async reviewToken(token: string): Promise<{ user: UserInfo; audiences: string[] } | { error: string }> {
    const r = await this.#authenticator.authenticateToken(token);
    return 'user' in r ? { user: r.user, audiences: [...this.tokens.apiAudiences] } : r;
  }

  /** Throws the 403 of a request the authorizer does not allow. */
  authorizeRequest(user: UserInfo, method: string, path: string, query: URLSearchParams): void {
    const attrs: Attributes = { user, ...requestInfo(method, path, query) };
    const d = this.authorizer.authorize(attrs);
    if (!d.allowed) throw forbidden(attrs, d.reason);
  }

  /**
   * RBAC's escalation checks on a role or binding write (create, or update of `old`); no-op for other
   * stores, without RBAC, and for system:masters. Throws 403 when the writer would grant more than it holds.
   */
  checkRbacWrite(user: UserInfo, store: string, namespace: string, obj: Record<string, unknown>, old: Record<string, unknown> | undefined): void {
    if (!this.rbacEnabled || escalationAllowed(user)) return;
    const meta = (obj.metadata ?? {}) as { name?: string };
    const name = meta.name ?? '';
    if (old !== undefined && onlyGcFieldsChanged(obj, old)) return;
    if (store === stores.roles || store === stores.clusterRoles) {
      const resource = store === stores.roles ? 'roles' : 'clusterroles';
      const escalate = this.authorizer.authorize({ user, verb: 'escalate', resourceRequest: true, path: '', apiGroup: rbacGroup, apiVersion: '*', resource, subresource: '', namespace, name });
      if (escalate.allowed) return;
      const why = confirmNoEscalation(this.resolver, user, namespace, (obj.rules ?? []) as PolicyRule[]);
      if (why !== undefined) throw forbiddenStatus(rbacGroup, resource, name, why);
      const aggregated = (o: Record<string, unknown> | undefined): boolean => ((o?.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors?.length ?? 0) > 0;
      if (resource === 'clusterroles' && (aggregated(obj) || aggregated(old)) && confirmNoEscalation(this.resolver, user, namespace, fullAuthority) !== undefined) {
        throw forbiddenStatus(rbacGroup, resource, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    if (store === stores.roleBindings || store === stores.clusterRoleBindings) {
      const resource = store === stores.roleBindings ? 'rolebindings' : 'clusterrolebindings';
      const ref = obj.roleRef as RoleRef | undefined;
      if (ref === undefined) return;
      const bind = this.authorizer.authorize({
        user,
        verb: 'bind',
        resourceRequest: true,
        path: '',
        apiGroup: ref.apiGroup,
        apiVersion: '*',
        resource: ref.kind === 'Role' ? 'roles' : ref.kind === 'ClusterRole' ? 'clusterroles' : '',
        subresource: '',
        namespace,
        name: ref.name,
      });
      if (bind.allowed && (ref.kind === 'Role' || ref.kind === 'ClusterRole')) return;
      const rules = this.resolver.roleReferenceRules(ref, namespace);
      // The binding registry reads the role through its REST storage: a plain 404 NotFound.
      if ('error' in rules) throw roleRefNotFound(ref);
      const why = confirmNoEscalation(this.resolver, user, namespace, rules.rules);
      if (why !== undefined) throw forbiddenStatus(rbacGroup, resource, name, why);
    }
  }
}

function roleRefNotFound(ref: RoleRef): StatusError {
  const resource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
  return new StatusError(newStatus(404, StatusReason.NotFound, `${resource}.${rbacGroup} ${JSON.stringify(ref.name)} not found`, { name: ref.name, group: rbacGroup, kind: resource }));
}

// IsOnlyMutatingGCFields: ownerReferences, finalizers and managedFields changes need no escalation check.
function onlyGcFieldsChanged(obj: Record<string, unknown>, old: Record<string, unknown>): boolean {
  const strip = (o: Record<string, unknown>): string => {
    const c = structuredClone(o);
    const m = (c.metadata ?? {}) as Record<string, unknown>;
    for (const k of ['ownerReferences', 'finalizers', 'managedFields', 'resourceVersion', 'selfLink']) delete m[k];
    return canonicalJson(c);
  };
  return strip(obj) === strip(old);
}

/** JSON with object keys sorted at every level, for order-insensitive comparison. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
