/**
 * The REST and watch protocol of the embedded API server. {@link ApiHandler} is the entry point: it
 * authenticates, serves the non-resource paths, resolves a resource path and verb, applies injected
 * faults, reads the body and hands the request to the verb's handler in `handlers/`:
 *
 * - `request-info.ts` path → {@link Target}, method → verb; `request-body.ts` reading and decoding bodies;
 *   `response.ts` Accept negotiation, encodings, answers and error Statuses;
 * - `non-resource.ts` version, health, discovery and OpenAPI;
 * - `get.ts` (objects, pod logs), `list.ts` (+ `list-options.ts`), `watch.ts`;
 * - `create.ts`, `update.ts` (the commit shared by every modifying write), `patch.ts` (+ `patch-failure.ts`),
 *   `scale.ts`, `delete.ts`; `write-options.ts` dryRun and fieldManager.
 *
 * One handler serves every resource, built-in or custom, over {@link Storage}.
 */
import { traceServerRequest } from '../tracing/http-spans.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Faults } from './faults.ts';
import { metaOf } from './object-meta.ts';
import { PodLogs } from './pod-logs.ts';
import { ServiceAllocator } from './registry/service-allocator.ts';
import type { ResourceRegistry } from './resources.ts';
import type { Storage } from './storage.ts';
import { createBinding } from './handlers/binding.ts';
import { readComponentStatuses } from './handlers/component-status.ts';
import { createEviction } from './handlers/eviction.ts';
import { createInternal, createResource, createTracker } from './handlers/create.ts';
import { deleteCollection, deleteResource } from './handlers/delete.ts';
import { getLog, getResource } from './handlers/get.ts';
import { listResource } from './handlers/list.ts';
import { addWarnings } from './handlers/field-validation.ts';
import { serveNonResource } from './handlers/non-resource.ts';
import { patchResource } from './handlers/patch.ts';
import { readBody, typedObject } from './handlers/request-body.ts';
import { route, verbOf } from './handlers/request-info.ts';
import { negotiate, sendError, useFormat } from './handlers/response.ts';
import { getScale, writeScale } from './handlers/scale.ts';
import { crdGroupResource, formatTime, type HandlerConfig, type Obj, type RequestScope, type Target } from './handlers/scope.ts';
import { updateResource } from './handlers/update.ts';
import { watchResource } from './handlers/watch.ts';
import { createReview, isReview } from './handlers/review.ts';
import { AccessControl } from './authz/access-control.ts';
import { RequestRecorder } from './authz/request-recorder.ts';
import { ImpersonationError } from './authz/impersonation.ts';
import { versionWatchCache } from './registry/apiextensions/version-watch-cache.ts';
import { converterContext } from './registry/apiextensions/webhook-converter.ts';
import { WebhookAdmission } from './admission/admission.ts';
import { SystemUsers, userInfo } from './authn/user.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './authz/rbac/bootstrap-policy.ts';

export { formatTime, type HandlerConfig } from './handlers/scope.ts';

/** The embedded server's request handler. */
export class ApiHandler {
  readonly registry: ResourceRegistry;
  readonly storage: Storage;
  readonly faults: Faults;
  readonly logs: PodLogs;
  /** Authentication, authorization and RBAC write checks. */
  readonly access: AccessControl;
  readonly #scope: RequestScope;
  readonly #recorder: RequestRecorder | undefined;
  #serverAddress = '127.0.0.1:0';

  constructor(registry: ResourceRegistry, storage: Storage, faults: Faults, config: HandlerConfig) {
    this.registry = registry;
    this.storage = storage;
    this.faults = faults;
    this.logs = new PodLogs();
    const rbac = config.rbac ?? false;
    const users = [...(config.token === undefined ? [] : [{ name: 'admin', token: config.token, groups: [SystemUsers.privilegedGroup] }]), ...(config.users ?? [])];
    const anonymous = config.anonymous ?? (config.token === undefined || rbac);
    this.access = new AccessControl({ rbac, users, anonymous, serviceAccountIssuer: config.serviceAccountIssuer, serviceAccountSigningKey: config.serviceAccountSigningKey, clock: config.clock }, storage);
    this.#recorder = config.recordRequestsTo === undefined ? undefined : new RequestRecorder(config.recordRequestsTo);
    this.#scope = {
      access: this.access,
      admission: new WebhookAdmission(storage, registry, config.clock, config.webhookServices ?? (() => undefined)),
      // Internal writes (seeding, controllers) act as the server itself.
      user: userInfo('system:apiserver', { groups: [SystemUsers.privilegedGroup] }),
      registry,
      storage,
      faults,
      logs: this.logs,
      config,
      watches: new Set(),
      allocator: new ServiceAllocator(),
      now: () => formatTime(config.clock.now()),
      newUid: config.newUid,
      random: config.random,
    };
  }

  /** The scope internal writers act with: seeding, and the controllers running inside the server. */
  internalScope(): RequestScope {
    return this.#scope;
  }

  /** Records the listening address for /api's serverAddressByClientCIDRs. */
  setServerAddress(address: string): void {
    this.#serverAddress = address;
  }

  /** Ends open watches (all, or of one plural resource) cleanly. */
  closeWatches(resource?: string): void {
    for (const w of this.#scope.watches) if (resource === undefined || w.resource === resource) w.end();
  }

  /** Silences open watches (all, or of one plural resource); returns how many (a fault). */
  stallWatches(resource?: string): number {
    let n = 0;
    for (const w of this.#scope.watches) {
      if (resource !== undefined && w.resource !== resource) continue;
      w.stall();
      n++;
    }
    return n;
  }

  /** Destroys every open watch and log stream (server stop/restart). */
  destroyStreams(): void {
    const watches = this.#scope.watches;
    for (const w of [...watches]) w.destroy();
    watches.clear();
    this.logs.closeFollowers();
  }

  /** Writes a non-JSON line into matching open watches; returns how many got it. */
  injectMalformedLine(resource?: string): number {
    let n = 0;
    for (const w of this.#scope.watches) {
      if (resource !== undefined && w.resource !== resource) continue;
      w.enqueueRaw('{"type":"MODIFIED","object":{this is not json');
      n++;
    }
    return n;
  }

  /** Handles one HTTP request; never throws. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    traceServerRequest(req, res);
    this.#handle(req, res).catch((err: unknown) => {
      if (err instanceof ImpersonationError && !res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        res.end(`Internal Server Error: ${JSON.stringify(req.url ?? '/')}: ${err.message}\n`);
        return;
      }
      sendError(res, err);
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    // authn → impersonation → authz, before anything about the path is known, as kube-apiserver's filters.
    const user = await this.access.identify(req);
    this.#recorder?.record(user, req.headers['user-agent'], method, url.pathname, url.searchParams);
    this.access.authorizeRequest(user, method, url.pathname, url.searchParams);
    const scope: RequestScope = { ...this.#scope, user };
    const { config } = scope;
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const q = url.searchParams;
    const crdOf = (r: { resource: string; group: string }): Obj | undefined => this.storage.get(crdGroupResource, `${r.resource}.${r.group}`)?.obj;
    if (serveNonResource(this.registry, crdOf, this.#serverAddress, method, path, q, req.headers.accept, res)) return;
    const target = route(this.registry, path);
    const verb = verbOf(method, target, q);
    // The first request for a webhook-converted CRD starts its per-version watch caches (version-watch-cache.ts).
    versionWatchCache(this.storage, this.registry, target.r, converterContext(config.clock, config.webhookServices));
    // Errors, including a failed negotiation, are Statuses, which every serialization can carry.
    useFormat(res, negotiate(req.headers.accept, { protobuf: true }, true).format);
    const render = negotiate(req.headers.accept, { protobuf: !target.r.custom });
    useFormat(res, render.format);
    // A deprecated CRD version warns on every request (customresource_handler.go ServeHTTP).
    if (target.r.deprecationWarning !== undefined) addWarnings(res, [`299 - ${JSON.stringify(target.r.deprecationWarning)}`]);
    const delay = this.faults.takeDelay(verb, target.r.resource);
    if (delay > 0) await config.clock.sleep(delay);
    const failure = this.faults.takeFailure(verb, target.r.resource);
    if (failure !== undefined) throw failure.error;
    const body = method === 'GET' ? Buffer.alloc(0) : await readBody(req, config.maxRequestBodyBytes);
    const sub = target.subresource;
    if (target.r.group === '' && target.r.resource === 'componentstatuses') return readComponentStatuses(scope, target, q, render, res);
    switch (verb) {
      case 'get':
        if (sub === 'log') return getLog(scope, target, q, res);
        if (sub === 'scale') return getScale(scope, target, render, res);
        return getResource(scope, target, q, render, res);
      case 'list':
        return listResource(scope, target, q, render, res);
      case 'watch':
        return watchResource(scope, target, q, render, res);
      case 'create':
        if (sub === 'binding' || (target.r.group === '' && target.r.resource === 'bindings')) return createBinding(scope, target, q, req, body, render, res);
        if (sub === 'eviction') return createEviction(scope, target, q, req, body, render, res);
        if (isReview(target)) return createReview(scope, target, q, req, body, render, res);
        return createResource(scope, target, q, req, body, render, res);
      case 'update':
        if (sub === 'scale') return writeScale(scope, target, q, req, body, render, res, false);
        return updateResource(scope, target, q, req, body, render, res);
      case 'patch':
        if (sub === 'scale') return writeScale(scope, target, q, req, body, render, res, true);
        return patchResource(scope, target, q, req, body, render, res);
      case 'delete':
        return deleteResource(scope, target, q, body, render, res);
      case 'deletecollection':
        return deleteCollection(scope, target, q, body, render, res);
    }
  }

  /** Writes the bootstrap RBAC policy (ClusterRoles and ClusterRoleBindings), as kube-apiserver's rbac/bootstrap-roles hook. */
  seedBootstrapPolicy(): void {
    // Recorded as kube-apiserver's own Update, as upstream's managedFields show.
    for (const role of bootstrapClusterRoles()) this.seed('rbac.authorization.k8s.io', 'v1', 'clusterroles', role as unknown as Obj);
    for (const binding of bootstrapClusterRoleBindings()) this.seed('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', binding as unknown as Obj);
  }

  /** Creates an object directly (initial namespaces, priority classes, bootstrap policy) as kube-apiserver; bypasses HTTP but not the registry's rules. */
  seed(group: string, version: string, resource: string, obj: Obj): void {
    const r = this.registry.lookup(group, version, resource);
    if (r === undefined) throw new Error(`unknown resource ${resource}`);
    const meta = metaOf(obj);
    const t: Target = { r, namespace: typeof meta.namespace === 'string' ? meta.namespace : '', name: undefined, subresource: undefined, watchPath: false };
    createInternal(this.#scope, t, typedObject(t, obj), createTracker(this.#scope, t, 'kube-apiserver'));
  }
}
