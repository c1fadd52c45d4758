/**
 * What every verb handler of the embedded API server works with: the {@link RequestScope} (registry,
 * storage, clock, open watches, ...) and the {@link Target} a resource path resolved to. Named after
 * the apiserver's `handlers.RequestScope`, which plays the same role for its REST handlers.
 */
import type { ResourceQuotaConfiguration } from '../admission/resource-quota.ts';
import type { FeatureGates } from '../sharding.ts';
import type { Clock } from '../../util/clock/clock.ts';
import type { ServiceAllocator } from '../registry/service-allocator.ts';
import type { Faults } from '../faults.ts';
import type { PodLogs } from '../pod-logs.ts';
import { storageKey, type ApiResource, type ResourceRegistry } from '../resources.ts';
import type { Storage } from '../storage.ts';
import type { WatchStream } from '../watch-stream.ts';
import type { StaticUser } from '../authn/authenticator.ts';
import type { UserInfo } from '../authn/user.ts';
import type { ServiceAccountSigningKey } from '../authn/service-account-key.ts';
import type { AccessControl } from '../authz/access-control.ts';
import type { WebhookAdmission } from '../admission/admission.ts';

/** A decoded JSON object as the handlers manipulate it. */
export type Obj = Record<string, unknown>;

/** Settings the handler needs from the server options. */
export interface HandlerConfig {
  /** Bearer token of the built-in admin (system:masters); with it, requests without credentials get 401 unless RBAC is on. */
  token: string | undefined;
  /** Authorize with RBAC (default false: everything is allowed). */
  rbac?: boolean;
  /** Users of the static token table (default none). */
  users?: readonly StaticUser[];
  /** Requests without credentials are system:anonymous; false: 401 (default: true unless a token is set without RBAC). */
  anonymous?: boolean;
  /** Issuer of ServiceAccount tokens (default https://kubernetes.default.svc). */
  serviceAccountIssuer?: string | undefined;
  /** The ServiceAccount token signing key (default: a new one, made on first use). */
  serviceAccountSigningKey?: ServiceAccountSigningKey | undefined;
  /** Resolves an admission webhook's clientConfig.service to a base URL (default: none resolve). */
  webhookServices?: ((namespace: string, name: string, port: number) => string | undefined) | undefined;
  /** The ResourceQuota admission plugin's configuration (default: no limited resources). */
  resourceQuota?: ResourceQuotaConfiguration | undefined;
  /** Validate custom resources against their CRD schemas and CEL rules (pruning and defaulting happen regardless). */
  schemaValidation?: boolean;
  /** Period of BOOKMARK events on watches that allow them. */
  bookmarkIntervalMs: number;
  /** Watch timeout when the request sets no timeoutSeconds. */
  defaultWatchTimeoutSeconds: number;
  /** Largest accepted request body; larger ones are 413. */
  maxRequestBodyBytes: number;
  /** Time source for timestamps, bookmarks, watch timeouts and injected delays. */
  clock: Clock;
  /** Feature gates (default: all off). */
  featureGates?: FeatureGates;
  /** A JSON-lines file every distinct request's authorizer attributes are appended to (default none). */
  recordRequestsTo?: string | undefined;
  /**
   * A uniform draw in [0, 1) for the server's random choices: generated names' suffixes and, when set, the
   * timeout of a watch that asks for none, drawn in [defaultWatchTimeoutSeconds, 2 × that) as
   * kube-apiserver draws it from --min-request-timeout (endpoints/handlers/get.go, ListResource). Default:
   * crypto for names and the fixed defaultWatchTimeoutSeconds. The simulator passes a seeded generator.
   */
  random?: (() => number) | undefined;
  /** New objects' uids (default: random UUIDs). The simulator passes a counter, so runs replay. */
  newUid?: (() => string) | undefined;
}

/** The shared state the verb handlers read and write; built once by `ApiHandler`. */
export interface RequestScope {
  readonly registry: ResourceRegistry;
  readonly storage: Storage;
  readonly faults: Faults;
  readonly logs: PodLogs;
  readonly config: HandlerConfig;
  /** Every open watch stream: added when a watch starts, removed when it closes. */
  readonly watches: Set<WatchStream>;
  /** Cluster IPs and node ports handed out to Services. */
  readonly allocator: ServiceAllocator;
  /** The clock's current time as a metav1.Time string. */
  now(): string;
  /** Authentication, authorization and RBAC write checks. */
  readonly access: AccessControl;
  /** Admission webhooks. */
  readonly admission: WebhookAdmission;
  /** The user the request acts as (after impersonation); the server itself for internal writes. */
  readonly user: UserInfo;
  /** {@link HandlerConfig.newUid}, for the registry's BeforeCreate. */
  readonly newUid?: (() => string) | undefined;
  /** {@link HandlerConfig.random}, for generated names. */
  readonly random?: (() => number) | undefined;
}

/** A parsed resource path. */
export interface Target {
  r: ApiResource;
  namespace: string;
  name: string | undefined;
  subresource: string | undefined;
  /** The path had the legacy `/watch/` segment. */
  watchPath: boolean;
}

/** The storage key of CustomResourceDefinitions, whose writes change what the server serves. */
export const crdGroupResource = 'customresourcedefinitions.apiextensions.k8s.io';

/** The storage key of Namespaces. */
export const namespacesStore = 'namespaces';

// The last second formatted: every write within one second stamps the same text (managedFields' time, conditions).
let lastSecond = NaN;
let lastText = '';

/** RFC 3339 with second precision, as metav1.Time marshals. */
export function formatTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}

/** The storage key of a target's resource (group and plural). */
export function storeOf(t: Target): string {
  return storageKey(t.r.group, t.r.resource);
}

/** The key of an object within its store: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}
