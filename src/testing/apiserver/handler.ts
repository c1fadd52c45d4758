/**
 * The REST and watch protocol of the embedded API server. {@link ApiHandler} is the entry point: it
 * authenticates, serves the non-resource paths, resolves a resource path and verb, applies injected
 * faults, reads the body and hands the request to the verb's handler. Request parsing, encodings and
 * the read verbs live in `handlers/`; the write verbs are still methods here.
 *
 * One handler serves every resource, built-in or custom, over {@link Storage}.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { StatusError, newStatus, StatusReason } from '../../apimachinery/errors.ts';
import { applyCreateDefaults, applyUpdateDefaults, podQOSClass, ServiceAllocator } from './defaults.ts';
import type { Faults } from './faults.ts';
import { acceptedCrdStatus, customResourcesOf, generateName, isNoop, isObject, metaOf, specChanged, validateName } from './object-meta.ts';
import { applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch, trackUpdate, PatchError, ApplyConflictError } from './patch/index.ts';
import { PodLogs } from './pod-logs.ts';
import { apiVersionString, storageKey, type ApiResource, type ResourceRegistry } from './resources.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalid,
  methodNotAllowed,
  notFound,
  optimisticLockMessage,
  requiredCause,
  unauthorized,
  unsupportedMediaType,
} from './status.ts';
import type { Storage, StoredObject } from './storage.ts';
import { getLog, getResource } from './handlers/get.ts';
import { listResource } from './handlers/list.ts';
import { objectFilter, parseSelectors } from './handlers/list-options.ts';
import { serveNonResource } from './handlers/non-resource.ts';
import { checkType, decodeObject, display, mediaType, readBody } from './handlers/request-body.ts';
import { boolParam, route, verbOf } from './handlers/request-info.ts';
import { encodeStored, parseAccept, send, sendError } from './handlers/response.ts';
import { crdGroupResource, formatTime, namespacesStore, objectKey, storeOf, type HandlerConfig, type Obj, type RequestScope, type Target } from './handlers/scope.ts';
import { watchResource } from './handlers/watch.ts';

export { formatTime, type HandlerConfig } from './handlers/scope.ts';

/**
 * Stores whose DELETE answers with the deleted object (`ReturnDeletedObject: true` in their registries, or
 * a custom Delete that returns the object); every other resource answers with a Success Status.
 */
const returnsDeletedObject: ReadonlySet<string> = new Set(['pods', 'services', 'serviceaccounts', 'persistentvolumeclaims', 'namespaces', crdGroupResource]);
// Stores whose registry strategies answer AllowCreateOnUpdate() with true: a PUT of a missing object creates it.
const createsOnUpdate: ReadonlySet<string> = new Set([
  'leases.coordination.k8s.io',
  'endpoints',
  'events',
  'events.events.k8s.io',
  'roles.rbac.authorization.k8s.io',
  'rolebindings.rbac.authorization.k8s.io',
  'clusterroles.rbac.authorization.k8s.io',
  'clusterrolebindings.rbac.authorization.k8s.io',
]);
// NamespaceLifecycle's immortal namespaces (plugin/pkg/admission/namespace/lifecycle).
const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

const patchTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** Pulls the manager name out of a User-Agent, as kube-apiserver does: the product before the first '/'. */
function managerFromUserAgent(ua: string | undefined): string {
  const s = (ua ?? '').split('/')[0]!.trim();
  return s === '' ? 'unknown' : s.slice(0, 128);
}

/** The embedded server's request handler. */
export class ApiHandler {
  readonly registry: ResourceRegistry;
  readonly storage: Storage;
  readonly faults: Faults;
  readonly logs: PodLogs;
  readonly #scope: RequestScope;
  #serverAddress = '127.0.0.1:0';

  constructor(registry: ResourceRegistry, storage: Storage, faults: Faults, config: HandlerConfig) {
    this.registry = registry;
    this.storage = storage;
    this.faults = faults;
    this.logs = new PodLogs();
    this.#scope = {
      registry,
      storage,
      faults,
      logs: this.logs,
      config,
      watches: new Set(),
      allocator: new ServiceAllocator(),
      now: () => formatTime(config.clock.now()),
    };
  }

  /** Records the listening address for /api's serverAddressByClientCIDRs. */
  setServerAddress(address: string): void {
    this.#serverAddress = address;
  }

  /** Ends open watches (all, or of one plural resource) cleanly. */
  closeWatches(resource?: string): void {
    for (const w of this.#scope.watches) if (resource === undefined || w.resource === resource) w.end();
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
    this.#handle(req, res).catch((err: unknown) => sendError(res, err));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const scope = this.#scope;
    const { config } = scope;
    if (config.token !== undefined && req.headers.authorization !== `Bearer ${config.token}`) throw unauthorized();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (serveNonResource(this.registry, this.#serverAddress, method, path, res)) return;
    const target = route(this.registry, path);
    const verb = verbOf(method, target, url.searchParams);
    const delay = this.faults.takeDelay(verb, target.r.resource);
    if (delay > 0) await config.clock.sleep(delay);
    const failure = this.faults.takeFailure(verb, target.r.resource);
    if (failure !== undefined) throw failure.error;
    const body = method === 'GET' ? undefined : await readBody(req, config.maxRequestBodyBytes);
    const q = url.searchParams;
    const render = parseAccept(req.headers.accept);
    switch (verb) {
      case 'get':
        if (target.subresource === 'log') return getLog(scope, target, q, res);
        if (target.subresource === 'scale') return this.#getScale(target, res);
        return getResource(scope, target, render, res);
      case 'list':
        return listResource(scope, target, q, render, res);
      case 'watch':
        return watchResource(scope, target, q, render, res);
      case 'create':
        return this.#create(target, q, req, body!, res);
      case 'update':
        if (target.subresource === 'scale') return this.#writeScale(target, q, req, body!, res, false);
        return this.#update(target, q, req, body!, res);
      case 'patch':
        if (target.subresource === 'scale') return this.#writeScale(target, q, req, body!, res, true);
        return this.#patch(target, q, req, body!, res);
      case 'delete':
        return this.#delete(target, q, body!, res);
      case 'deletecollection':
        return this.#deleteCollection(target, q, body!, res);
    }
  }

  // ---- writes --------------------------------------------------------------------------

  #dryRun(q: URLSearchParams): boolean {
    const values = q.getAll('dryRun');
    for (const v of values) if (v !== 'All') throw badRequest(`Invalid dry run value: ${v}`);
    return values.length > 0;
  }

  #manager(q: URLSearchParams, req: IncomingMessage): string {
    const m = q.get('fieldManager');
    if (m !== null && m !== '') {
      if (m.length > 128) throw invalid('meta.k8s.io', 'UpdateOptions', '', [{ reason: 'FieldValueTooLong', field: 'fieldManager', message: 'Too long: may not be longer than 128' }]);
      return m;
    }
    return managerFromUserAgent(req.headers['user-agent']);
  }

  #requireNamespace(t: Target): void {
    if (!t.r.namespaced) return;
    if (this.storage.get(namespacesStore, t.namespace) === undefined) throw notFound({ group: '', resource: 'namespaces' }, t.namespace);
  }

  /** Prepares a new object for storage: names, namespace, uid, timestamps, defaults. Throws on invalid input. */
  #prepareCreate(t: Target, obj: Obj): { name: string; obj: Obj } {
    checkType(this.registry, t, obj);
    const meta = metaOf(obj);
    if (t.r.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      meta.namespace = t.namespace;
    } else delete meta.namespace;
    if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') meta.name = generateName(meta.generateName);
    const name = typeof meta.name === 'string' ? meta.name : '';
    if (name === '') throw invalid(t.r.group, t.r.kind, '', [requiredCause('metadata.name', 'name or generateName is required')]);
    const causes = validateName(t.r, name);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
    meta.uid = randomUUID();
    meta.creationTimestamp = this.#scope.now();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (t.r.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    this.#defaults(t.r, obj);
    return { name, obj };
  }

  /**
   * Create-time strategy: resources with a status subresource start with an empty status (nodes keep
   * theirs, as upstream), plus the few defaults clients commonly rely on.
   */
  #defaults(r: ApiResource, obj: Obj): void {
    if (r.hasStatus && !(r.group === '' && r.resource === 'nodes')) delete obj.status;
    if (r.group === '' && r.resource === 'namespaces') {
      obj.spec = { finalizers: ['kubernetes'], ...(isObject(obj.spec) ? obj.spec : {}) };
      obj.status = { phase: 'Active' };
    } else if (r.group === '' && r.resource === 'pods') {
      obj.status = { phase: 'Pending', qosClass: podQOSClass(obj.spec) };
    } else if (r.group === '' && r.resource === 'persistentvolumeclaims') {
      obj.status = { phase: 'Pending' };
    } else if (r.group === 'apps' && (r.resource === 'deployments' || r.resource === 'replicasets' || r.resource === 'statefulsets')) {
      if (isObject(obj.spec) && obj.spec.replicas === undefined) obj.spec.replicas = 1;
    } else if (r.group === '' && r.resource === 'secrets') {
      obj.type ??= 'Opaque';
    }
    applyCreateDefaults(r, obj, this.#scope.allocator);
  }

  async #create(t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    if (t.subresource !== undefined) throw methodNotAllowed();
    const dryRun = this.#dryRun(q);
    const { name, obj } = this.#prepareCreate(t, decodeObject(req, body, t.r.kind));
    send(res, 201, this.#commitCreate(t, name, obj, dryRun, this.#tracker(t, this.#manager(q, req))));
  }

  /**
   * Final checks and the write of a new object. `manage` records managedFields (trackUpdate for
   * ordinary creates; identity when server-side apply already did). Returns the encoded object.
   */
  #commitCreate(t: Target, name: string, obj: Obj, dryRun: boolean, manage: (o: Obj) => Obj): string {
    this.#requireNamespace(t);
    const store = storeOf(t);
    const key = objectKey(t.namespace, name);
    if (this.storage.get(store, key) !== undefined) throw alreadyExists(t.r, name);
    const final = manage(obj);
    let crdEntries: ApiResource[] | undefined;
    if (store === crdGroupResource) {
      const { entries, causes } = customResourcesOf(final);
      if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
      final.status = acceptedCrdStatus(final, this.#scope.now());
      crdEntries = entries;
    }
    if (dryRun) return JSON.stringify(final);
    const stored = this.storage.write(store, key, 'ADDED', final);
    if (crdEntries !== undefined) this.registry.setCustomResource(name, crdEntries);
    return encodeStored(t, stored);
  }

  #tracker(t: Target, manager: string): (o: Obj) => Obj {
    return (o) => trackUpdate(undefined, o, { manager, now: this.#scope.now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
  }

  #applyOrThrow(live: Obj | undefined, applied: Obj, options: { manager: string; force: boolean; now: string; apiVersion: string; subresource?: string }): Obj {
    try {
      return applyServerSideApply(live, applied, options);
    } catch (err) {
      throw this.#patchFailure(err);
    }
  }

  #patchFailure(err: unknown): unknown {
    if (err instanceof ApplyConflictError) {
      // The patch engine words the message and causes as the apiserver's fieldmanager does.
      return new StatusError(newStatus(409, StatusReason.Conflict, err.message, { causes: err.causes() }));
    }
    if (err instanceof PatchError) return new StatusError(newStatus(err.statusCode, err.reason, err.message));
    return err;
  }

  async #update(t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const dryRun = this.#dryRun(q);
    const obj = decodeObject(req, body, t.r.kind);
    checkType(this.registry, t, obj);
    const meta = metaOf(obj);
    const name = t.name!;
    if (meta.name !== undefined && meta.name !== '' && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
    if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    const existing = this.storage.get(storeOf(t), objectKey(t.namespace, name));
    if (existing === undefined) {
      // Strategies with AllowCreateOnUpdate (leases, endpoints, events, RBAC) create on PUT.
      if (t.subresource !== undefined || !createsOnUpdate.has(storeOf(t))) throw notFound(t.r, name);
      meta.name = name;
      delete meta.resourceVersion;
      const { obj: prepared } = this.#prepareCreate(t, obj);
      send(res, 201, this.#commitCreate(t, name, prepared, dryRun, this.#tracker(t, this.#manager(q, req))));
      return;
    }
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
    const out = this.#commitUpdate(t, existing, obj, { manager: this.#manager(q, req), dryRun, apply: undefined });
    send(res, 200, out);
  }

  /**
   * The shared tail of PUT and PATCH: merges the candidate with the stored object according to the
   * subresource, tracks managed fields, bumps generation, skips no-ops, and finalises deletions.
   * With `apply`, `candidate` is the applied configuration and is merged by server-side apply first.
   */
  #commitUpdate(t: Target, existing: StoredObject, candidate: Obj, o: { manager: string; dryRun: boolean; apply: { force: boolean } | undefined }): string {
    const old = existing.obj;
    const apiVersion = apiVersionString(t.r.group, t.r.version);
    const subresource = t.subresource === 'status' ? { subresource: 'status' } : {};
    let next: Obj;
    if (o.apply !== undefined) {
      const merged = this.#applyOrThrow(old, candidate, { manager: o.manager, force: o.apply.force, now: this.#scope.now(), apiVersion, ...subresource });
      next = this.#normalise(t, old, merged);
    } else {
      next = trackUpdate(old, this.#normalise(t, old, candidate), { manager: o.manager, now: this.#scope.now(), apiVersion, ...subresource });
    }
    let crdEntries: ApiResource[] | undefined;
    if (storeOf(t) === crdGroupResource) {
      const { entries, causes } = customResourcesOf(next);
      if (causes.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, causes);
      if (t.subresource !== 'status') next.status = acceptedCrdStatus(next, this.#scope.now());
      crdEntries = entries;
    }
    if (isNoop(old, next)) return encodeStored(t, existing);
    if (o.dryRun) return JSON.stringify(next);
    const store = storeOf(t);
    const key = existing.key;
    const meta = metaOf(next);
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (meta.deletionTimestamp !== undefined && finalizers.length === 0) {
      const gone = this.#remove(store, key, next);
      return encodeStored(t, gone);
    }
    const stored = this.storage.write(store, key, 'MODIFIED', next);
    if (crdEntries !== undefined) this.registry.setCustomResource(t.name!, crdEntries);
    return encodeStored(t, stored);
  }

  /**
   * What a write may change: through /status only `.status` (and managedFields); through the main
   * resource everything but the system metadata and, for resources with a status subresource, `.status`.
   * Bumps metadata.generation when the spec changed.
   */
  #normalise(t: Target, old: Obj, candidate: Obj): Obj {
    const oldMeta = old.metadata as Obj;
    const candMeta = isObject(candidate.metadata) ? candidate.metadata : {};
    let next: Obj;
    if (t.subresource === 'status') {
      next = { ...structuredClone(old), status: candidate.status };
      if (candidate.status === undefined) delete next.status;
      const meta = metaOf(next);
      if (candMeta.managedFields !== undefined) meta.managedFields = candMeta.managedFields;
    } else {
      next = candidate;
      const meta = metaOf(next);
      for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
        if (oldMeta[k] === undefined) delete meta[k];
        else meta[k] = oldMeta[k];
      }
      meta.name = oldMeta.name;
      if (t.r.namespaced) meta.namespace = oldMeta.namespace;
      else delete meta.namespace;
      delete meta.selfLink;
      if (t.r.hasStatus && t.r.resource !== 'customresourcedefinitions') {
        if (old.status === undefined) delete next.status;
        else next.status = structuredClone(old.status);
      }
      applyUpdateDefaults(t.r, old, next, this.#scope.allocator);
      if (t.r.tracksGeneration && specChanged(t.r, old, next)) meta.generation = (typeof oldMeta.generation === 'number' ? oldMeta.generation : 0) + 1;
    }
    metaOf(next).resourceVersion = oldMeta.resourceVersion;
    return next;
  }

  async #patch(t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const dryRun = this.#dryRun(q);
    const type = mediaType(req.headers['content-type']);
    const accepted = t.r.custom ? [patchTypes.json, patchTypes.merge, patchTypes.apply] : [patchTypes.json, patchTypes.merge, patchTypes.strategic, patchTypes.apply];
    if (!accepted.includes(type as (typeof accepted)[number])) throw unsupportedMediaType(type, accepted);
    let patch: unknown;
    try {
      patch = type === patchTypes.apply ? parseYaml(body.toString('utf8')) : JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
    }
    const name = t.name!;
    const existing = this.storage.get(storeOf(t), objectKey(t.namespace, name));
    const manager = q.get('fieldManager');
    if (type === patchTypes.apply) {
      if (manager === null || manager === '') throw badRequest('PATCH requests with an apply patch must specify a field manager: fieldManager is required for apply requests');
      if (!isObject(patch)) throw badRequest('error decoding YAML: the apply patch must be an object');
      const applied = patch;
      checkType(this.registry, t, applied);
      const meta = metaOf(applied);
      if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
      if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const force = boolParam(q, 'force');
      if (existing === undefined) {
        if (t.subresource !== undefined) throw notFound(t.r, name);
        meta.name = name;
        if (t.r.namespaced) meta.namespace = t.namespace;
        this.#requireNamespace(t);
        const merged = this.#applyOrThrow(undefined, applied, { manager, force, now: this.#scope.now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
        const { obj } = this.#prepareCreate(t, merged);
        const out = this.#commitCreate(t, name, obj, dryRun, (x) => x);
        send(res, 201, out);
        return;
      }
      if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
      const out = this.#commitUpdate(t, existing, applied, { manager, dryRun, apply: { force } });
      send(res, 200, out);
      return;
    }
    if (existing === undefined) throw notFound(t.r, name);
    let patched: unknown;
    const current = structuredClone(existing.obj);
    try {
      if (type === patchTypes.json) {
        if (!Array.isArray(patch)) throw badRequest('json patch must be a JSON array of operations');
        patched = applyJsonPatch(current, patch);
      } else if (type === patchTypes.merge) patched = applyMergePatch(current, patch);
      else patched = applyStrategicMergePatch(current, patch, { group: t.r.group, version: t.r.version, kind: t.r.kind });
    } catch (err) {
      throw this.#patchFailure(err);
    }
    if (!isObject(patched)) throw badRequest('the patched object must be a JSON object');
    checkType(this.registry, t, patched);
    const meta = metaOf(patched);
    if (meta.name !== name) throw invalid(t.r.group, t.r.kind, name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(meta.name)}: field is immutable` }]);
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
    const out = this.#commitUpdate(t, existing, patched, { manager: this.#manager(q, req), dryRun, apply: undefined });
    send(res, 200, out);
  }

  // ---- scale subresource ----------------------------------------------------------------

  /** autoscaling/v1 Scale view of a workload, as the apps registries build it. */
  #scaleOf(s: StoredObject): Obj {
    const o = s.obj;
    const meta = o.metadata as Obj;
    const spec = isObject(o.spec) ? o.spec : {};
    const status = isObject(o.status) ? o.status : {};
    const selector = isObject(spec.selector) && isObject(spec.selector.matchLabels) ? spec.selector.matchLabels : {};
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp },
      spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
      status: {
        replicas: typeof status.replicas === 'number' ? status.replicas : 0,
        selector: Object.entries(selector)
          .map(([k, v]) => `${k}=${display(v)}`)
          .join(','),
      },
    };
  }

  #getScale(t: Target, res: ServerResponse): void {
    const s = this.storage.get(storeOf(t), objectKey(t.namespace, t.name!));
    if (s === undefined) throw notFound(t.r, t.name!);
    send(res, 200, JSON.stringify(this.#scaleOf(s)));
  }

  /** PUT or PATCH of /scale: changes the workload's spec.replicas. */
  async #writeScale(t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse, patch: boolean): Promise<void> {
    const dryRun = this.#dryRun(q);
    const name = t.name!;
    const existing = this.storage.get(storeOf(t), objectKey(t.namespace, name));
    if (existing === undefined) throw notFound(t.r, name);
    let scale: unknown;
    if (patch) {
      const type = mediaType(req.headers['content-type']);
      const accepted = [patchTypes.json, patchTypes.merge, patchTypes.strategic];
      if (!accepted.includes(type as (typeof accepted)[number])) throw unsupportedMediaType(type, accepted);
      let p: unknown;
      try {
        p = JSON.parse(body.toString('utf8'));
      } catch (err) {
        throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
      }
      try {
        const current = this.#scaleOf(existing);
        if (type === patchTypes.json) scale = applyJsonPatch(current, p);
        else if (type === patchTypes.merge) scale = applyMergePatch(current, p);
        else scale = applyStrategicMergePatch(current, p, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
      } catch (err) {
        throw this.#patchFailure(err);
      }
    } else scale = decodeObject(req, body, 'Scale');
    if (!isObject(scale) || (scale.kind !== undefined && scale.kind !== 'Scale')) throw badRequest('the body must be an autoscaling/v1 Scale');
    const meta = isObject(scale.metadata) ? scale.metadata : {};
    if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
    const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${display(replicas)}: must be greater than or equal to 0` }]);
    }
    const candidate = structuredClone(existing.obj);
    candidate.spec = { ...(isObject(candidate.spec) ? candidate.spec : {}), replicas };
    const main: Target = { ...t, subresource: undefined };
    const out = this.#commitUpdate(main, existing, candidate, { manager: this.#manager(q, req), dryRun, apply: undefined });
    const stored = JSON.parse(out) as Obj;
    send(res, 200, JSON.stringify(this.#scaleOf({ obj: stored, json: out, rv: Number((stored.metadata as Obj).resourceVersion), key: existing.key })));
  }

  #deleteOptions(body: Buffer, q: URLSearchParams): Obj {
    let opts: Obj = {};
    if (body.length > 0) {
      let v: unknown;
      try {
        v = JSON.parse(body.toString('utf8'));
      } catch (err) {
        throw badRequest(`error decoding DeleteOptions: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!isObject(v)) throw badRequest('DeleteOptions must be a JSON object');
      opts = v;
    }
    const grace = q.get('gracePeriodSeconds');
    if (grace !== null) {
      // The parameter codec's strconv error, as a 400.
      if (!/^[-+]?\d+$/.test(grace)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
      opts.gracePeriodSeconds = Number(grace);
    }
    const policy = q.get('propagationPolicy');
    if (policy !== null) opts.propagationPolicy = policy;
    const pp = opts.propagationPolicy;
    if (pp !== undefined && pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground') {
      throw invalid('meta.k8s.io', 'DeleteOptions', '', [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: ${JSON.stringify(pp)}: supported values: "Foreground", "Background", "Orphan"` }]);
    }
    return opts;
  }

  async #delete(t: Target, q: URLSearchParams, body: Buffer, res: ServerResponse): Promise<void> {
    const dryRun = this.#dryRun(q);
    const opts = this.#deleteOptions(body, q);
    const name = t.name!;
    // The NamespaceLifecycle admission plugin keeps its immortal namespaces.
    if (storeOf(t) === namespacesStore && immortalNamespaces.has(name)) throw forbidden(t.r, name, 'this namespace may not be deleted');
    const existing = this.storage.get(storeOf(t), objectKey(t.namespace, name));
    if (existing === undefined) throw notFound(t.r, name);
    const pre = isObject(opts.preconditions) ? opts.preconditions : {};
    const meta = existing.obj.metadata as Obj;
    if (typeof pre.uid === 'string' && pre.uid !== meta.uid) throw conflict(t.r, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`);
    if (typeof pre.resourceVersion === 'string' && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(t.r, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`);
    }
    const out = this.#deleteOne(t, existing, dryRun);
    // The object stays (finalizers pending) or the registry returns deleted objects: answer with it.
    if (out.pending || returnsDeletedObject.has(storeOf(t))) {
      send(res, 200, out.json);
      return;
    }
    // Otherwise the generic registry answers with a Success Status naming what went (details.kind is the plural).
    const details: Obj = { name, ...(t.r.group === '' ? {} : { group: t.r.group }), kind: t.r.resource, uid: meta.uid };
    send(res, 200, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }));
  }

  /**
   * Deletes (or marks for deletion, with finalizers) one object; returns the encoded object and whether
   * it is still there, waiting for its finalizers.
   */
  #deleteOne(t: Target, existing: StoredObject, dryRun: boolean): { json: string; pending: boolean } {
    const meta = existing.obj.metadata as Obj;
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    const store = storeOf(t);
    if (finalizers.length > 0) {
      if (meta.deletionTimestamp !== undefined || dryRun) return { json: encodeStored(t, existing), pending: true };
      const next = structuredClone(existing.obj);
      const m = metaOf(next);
      m.deletionTimestamp = this.#scope.now();
      m.deletionGracePeriodSeconds = 0;
      return { json: encodeStored(t, this.storage.write(store, existing.key, 'MODIFIED', next)), pending: true };
    }
    if (dryRun) return { json: encodeStored(t, existing), pending: false };
    return { json: encodeStored(t, this.#remove(store, existing.key, existing.obj)), pending: false };
  }

  /** Removes an object for good, with the side effects of namespaces and CRDs going away. */
  #remove(store: string, key: string, finalState: Obj): StoredObject {
    if (store === namespacesStore) {
      // As the namespace controller: the contents go first, then the namespace, last seen Terminating with
      // its deletionTimestamp set and the `kubernetes` finalizer gone.
      this.#emptyNamespace(key);
      const last = structuredClone(finalState);
      const meta = metaOf(last);
      meta.deletionTimestamp ??= this.#scope.now();
      meta.deletionGracePeriodSeconds ??= 0;
      last.spec = {};
      last.status = { ...(isObject(last.status) ? last.status : {}), phase: 'Terminating' };
      return this.storage.write(store, key, 'DELETED', last);
    }
    const gone = this.storage.write(store, key, 'DELETED', finalState);
    if (store === crdGroupResource) this.#dropCustomResource(key);
    return gone;
  }

  // The namespace controller's end result: everything in the namespace goes with it.
  #emptyNamespace(namespace: string): void {
    const seen = new Set<string>();
    for (const r of this.registry.all()) {
      if (!r.namespaced) continue;
      const store = storageKey(r.group, r.resource);
      if (seen.has(store)) continue;
      seen.add(store);
      for (const s of this.storage.listAt(store, this.storage.revision, { namespace })) this.storage.write(store, s.key, 'DELETED', s.obj);
    }
  }

  // Deleting a CRD deletes its objects, ends its watches and stops serving it.
  #dropCustomResource(crdName: string): void {
    const entries = this.registry.removeCustomResource(crdName);
    const first = entries[0];
    if (first === undefined) return;
    const store = storageKey(first.group, first.resource);
    for (const s of this.storage.listAt(store, this.storage.revision)) this.storage.write(store, s.key, 'DELETED', s.obj);
    for (const w of this.#scope.watches) if (w.resource === first.resource) w.end();
  }

  async #deleteCollection(t: Target, q: URLSearchParams, body: Buffer, res: ServerResponse): Promise<void> {
    const dryRun = this.#dryRun(q);
    this.#deleteOptions(body, q);
    const filter = objectFilter(t, parseSelectors(t, q));
    const store = storeOf(t);
    const items: string[] = [];
    for (const s of this.storage.listAt(store, this.storage.revision, { namespace: t.namespace })) {
      if (!filter(s.obj)) continue;
      items.push(this.#deleteOne(t, s, dryRun).json);
    }
    const apiVersion = apiVersionString(t.r.group, t.r.version);
    send(res, 200, `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${this.storage.revision}"},"items":[${items.join(',')}]}`);
  }

  /** Creates an object directly (initial namespaces); bypasses HTTP but not the storage rules. */
  seed(group: string, version: string, resource: string, obj: Obj): void {
    const r = this.registry.lookup(group, version, resource);
    if (r === undefined) throw new Error(`unknown resource ${resource}`);
    const meta = metaOf(obj);
    const t: Target = { r, namespace: typeof meta.namespace === 'string' ? meta.namespace : '', name: undefined, subresource: undefined, watchPath: false };
    const { name, obj: prepared } = this.#prepareCreate(t, obj);
    this.#commitCreate(t, name, prepared, false, (o) => o);
  }
}
