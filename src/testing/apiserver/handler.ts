/**
 * The REST and watch protocol of the embedded API server: routing of resource paths, the generic
 * create/get/list/update/patch/delete/watch handlers over {@link Storage}, and the error Statuses
 * kube-apiserver answers with. One handler serves every resource, built-in or custom.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StatusCause } from 'kubernetes-types/meta/v1.js';
import { parse as parseYaml } from 'yaml';
import { StatusError, newStatus, StatusReason } from '../../apimachinery/errors.ts';
import { parseSelector, type LabelSelector } from '../../apimachinery/labels.ts';
import { parseFieldSelector, type FieldSelector } from '../../apimachinery/fields.ts';
import { InitialEventsEndAnnotation } from '../../apimachinery/watch.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { apiVersionString, storageKey, type ApiResource, type ResourceRegistry } from './resources.ts';
import { RevisionCompactedError, type Storage, type StoredObject } from './storage.ts';
import type { Faults, Verb } from './faults.ts';
import { WatchStream, type ObjectEncoder } from './watch-stream.ts';
import { fieldsOf, validateFieldSelector } from './selectable-fields.ts';
import { partialMetadata, toTable, type IncludeObject } from './table.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, serverVersion } from './discovery.ts';
import { acceptedCrdStatus, customResourcesOf, generateName, isNoop, isObject, metaOf, specChanged, validateName } from './object-meta.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbidden as forbiddenError,
  internalError,
  invalid,
  methodNotAllowed,
  notFound,
  optimisticLockMessage,
  requiredCause,
  resourceNotFound,
  tooLarge,
  unauthorized,
  unsupportedMediaType,
} from './status.ts';
import { PodLogs } from './pod-logs.ts';
import { ServiceAllocator, applyCreateDefaults, applyUpdateDefaults, podQOSClass } from './defaults.ts';
import { openApiV3GroupVersion, openApiV3Root } from './openapi.ts';
import { decodeKubernetesProtobuf } from './protobuf.ts';

// kubectl's generator commands send this; a few core kinds are decoded (see protobuf.ts).
const protobufMediaType = 'application/vnd.kubernetes.protobuf';
import { applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch, trackUpdate, PatchError, ApplyConflictError } from './patch/index.ts';

type Obj = Record<string, unknown>;

/** Settings the handler needs from the server options. */
export interface HandlerConfig {
  token: string | undefined;
  bookmarkIntervalMs: number;
  defaultWatchTimeoutSeconds: number;
  maxRequestBodyBytes: number;
  clock: Clock;
}

/** A parsed resource path. */
interface Target {
  r: ApiResource;
  namespace: string;
  name: string | undefined;
  subresource: string | undefined;
  watchPath: boolean;
}

type Render = { as: 'object' } | { as: 'table'; apiVersion: string } | { as: 'metadata' };

const crdGroupResource = 'customresourcedefinitions.apiextensions.k8s.io';

/**
 * Stores whose DELETE answers with the deleted object (`ReturnDeletedObject: true` in their registries, or
 * a custom Delete that returns the object); every other resource answers with a Success Status.
 */
const returnsDeletedObject: ReadonlySet<string> = new Set(['pods', 'services', 'serviceaccounts', 'persistentvolumeclaims', 'namespaces', crdGroupResource]);
const namespacesStore = 'namespaces';
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

/** RFC 3339 with second precision, as metav1.Time marshals. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function parseAccept(header: string | undefined): Render {
  if (header === undefined || header === '') return { as: 'object' };
  for (const part of header.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const eq = kv.indexOf('=');
      if (eq > 0) p[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim();
    }
    const t = (type ?? '').toLowerCase();
    if (t !== 'application/json' && t !== '*/*' && t !== 'application/*') continue;
    if (p.as === undefined) return { as: 'object' };
    if (p.g !== 'meta.k8s.io') continue;
    if (p.as === 'Table' && (p.v === 'v1' || p.v === 'v1beta1')) return { as: 'table', apiVersion: `meta.k8s.io/${p.v}` };
    if ((p.as === 'PartialObjectMetadata' || p.as === 'PartialObjectMetadataList') && (p.v === 'v1' || p.v === 'v1beta1')) return { as: 'metadata' };
  }
  // Only unsupported encodings (protobuf, aggregated discovery) were offered: answer JSON.
  return { as: 'object' };
}

/** Replaces the leading apiVersion of an encoded object (objects are stored with apiVersion first). */
function withApiVersion(json: string, apiVersion: string): string {
  const m = /^\{"apiVersion":("(?:[^"\\]|\\.)*")/.exec(json);
  if (m === null) {
    const o = JSON.parse(json) as Obj;
    o.apiVersion = apiVersion;
    return JSON.stringify(o);
  }
  if (m[1] === JSON.stringify(apiVersion)) return json;
  return `{"apiVersion":${JSON.stringify(apiVersion)}${json.slice(m[0].length)}`;
}

/** summarizeData of the apiserver's decode errors: a JSON body's first 30 bytes, anything else in hex. */
function summarizeData(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

/** A JSON value as text for a message: strings bare, anything else as JSON. */
function display(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
}

function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v === 'true' || v === '1';
}

/** Kube's continue token: base64 JSON {v, rv, start}. */
interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${lastKey}\u0000` })).toString('base64url');
}

/** Decodes a continue token; rv -1 (handed out with a 410 for a compacted snapshot) means "continue at the latest revision". */
function decodeContinue(token: string): ContinueToken {
  try {
    const o = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (isObject(o) && o.v === 'meta.k8s.io/v1' && typeof o.rv === 'number' && o.rv !== 0 && typeof o.start === 'string') return { rv: o.rv, start: o.start };
  } catch {
    // fall through
  }
  // storage.DecodeContinue's error wrapped by the etcd3 store's GetList.
  throw badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

// etcd3 store's messages for lists at a compacted revision (apiserver/pkg/storage/etcd3/store.go).
const expiredListMessage = 'The resourceVersion for the provided list is too old.';
const inconsistentContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

function notSupported(field: string, value: string, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` };
}

/**
 * The checks of apimachinery's ValidateListOptions (meta/internalversion/validation) for lists and
 * watches, in its order; any failure is one 422 Invalid ListOptions.meta.k8s.io "" with every cause.
 */
function validateListOptions(q: URLSearchParams, watch: boolean): void {
  const rv = q.get('resourceVersion') ?? '';
  const match = q.get('resourceVersionMatch') ?? '';
  const cont = q.get('continue') ?? '';
  const sendInitial = q.get('sendInitialEvents');
  const causes: StatusCause[] = [];
  if (watch) {
    if (sendInitial !== null && match !== 'NotOlderThan') causes.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (match !== '') {
      if (sendInitial === null) causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (cont !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match !== '') {
      if (rv === '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (cont !== '') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') causes.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && rv === '0') causes.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (sendInitial !== null) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (causes.length > 0) throw invalid('meta.k8s.io', 'ListOptions', '', causes);
}

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
  readonly #config: HandlerConfig;
  readonly #watches = new Set<WatchStream>();
  readonly #allocator = new ServiceAllocator();
  #serverAddress = '127.0.0.1:0';

  constructor(registry: ResourceRegistry, storage: Storage, faults: Faults, config: HandlerConfig) {
    this.registry = registry;
    this.storage = storage;
    this.faults = faults;
    this.logs = new PodLogs();
    this.#config = config;
  }

  /** Records the listening address for /api's serverAddressByClientCIDRs. */
  setServerAddress(address: string): void {
    this.#serverAddress = address;
  }

  #now(): string {
    return formatTime(this.#config.clock.now());
  }

  /** Ends open watches (all, or of one plural resource) cleanly. */
  closeWatches(resource?: string): void {
    for (const w of this.#watches) if (resource === undefined || w.resource === resource) w.end();
  }

  /** Destroys every open watch and log stream (server stop/restart). */
  destroyStreams(): void {
    for (const w of [...this.#watches]) w.destroy();
    this.#watches.clear();
    this.logs.closeFollowers();
  }

  /** Writes a non-JSON line into matching open watches; returns how many got it. */
  injectMalformedLine(resource?: string): number {
    let n = 0;
    for (const w of this.#watches) {
      if (resource !== undefined && w.resource !== resource) continue;
      w.enqueueRaw('{"type":"MODIFIED","object":{this is not json');
      n++;
    }
    return n;
  }

  /** Handles one HTTP request; never throws. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.#handle(req, res).catch((err: unknown) => this.#fail(res, err));
  }

  #fail(res: ServerResponse, err: unknown): void {
    const e = err instanceof StatusError ? err : internalError(err instanceof Error ? err.message : String(err));
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const code = e.status.code ?? 500;
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };
    const retry = e.status.details?.retryAfterSeconds;
    if (retry !== undefined && retry > 0) headers['Retry-After'] = String(retry);
    res.writeHead(code, headers);
    res.end(JSON.stringify(e.status));
  }

  #send(res: ServerResponse, code: number, body: string, contentType = 'application/json'): void {
    // Encode once: large lists would otherwise be measured and encoded separately.
    const bytes = Buffer.from(body);
    res.writeHead(code, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Content-Length': bytes.length });
    res.end(bytes);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#config.token !== undefined && req.headers.authorization !== `Bearer ${this.#config.token}`) throw unauthorized();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (this.#discovery(method, path, res)) return;
    const target = this.#route(path);
    const verb = this.#verb(method, target, url.searchParams);
    const delay = this.faults.takeDelay(verb, target.r.resource);
    if (delay > 0) await this.#config.clock.sleep(delay);
    const failure = this.faults.takeFailure(verb, target.r.resource);
    if (failure !== undefined) throw failure.error;
    const body = method === 'GET' ? undefined : await this.#readBody(req);
    const q = url.searchParams;
    const render = parseAccept(req.headers.accept);
    switch (verb) {
      case 'get':
        if (target.subresource === 'log') return this.#getLog(target, q, res);
        if (target.subresource === 'scale') return this.#getScale(target, res);
        return this.#get(target, render, res);
      case 'list':
        return this.#list(target, q, render, res);
      case 'watch':
        return this.#watch(target, q, render, res);
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

  #discovery(method: string, path: string, res: ServerResponse): boolean {
    const send = (o: Obj | undefined): boolean => {
      if (method !== 'GET') throw methodNotAllowed();
      if (o === undefined) throw resourceNotFound();
      this.#send(res, 200, JSON.stringify(o));
      return true;
    };
    if (path === '/version') return send({ ...serverVersion });
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      this.#send(res, 200, 'ok', 'text/plain; charset=utf-8');
      return true;
    }
    if (path === '/api') return send(apiVersions(this.#serverAddress));
    if (path === '/apis') return send(apiGroupList(this.registry));
    if (path === '/api/v1') return send(apiResourceList(this.registry, '', 'v1'));
    const parts = path.split('/').filter((s) => s !== '');
    if (path === '/openapi/v3') return send(openApiV3Root(this.registry));
    if (parts[0] === 'openapi' && parts[1] === 'v3') {
      if (parts[2] === 'api' && parts.length === 4) return send(openApiV3GroupVersion(this.registry, '', parts[3]!));
      if (parts[2] === 'apis' && parts.length === 5) return send(openApiV3GroupVersion(this.registry, parts[3]!, parts[4]!));
      throw resourceNotFound();
    }
    if (parts[0] === 'apis' && parts.length === 2) return send(apiGroup(this.registry, parts[1]!));
    if (parts[0] === 'apis' && parts.length === 3) return send(apiResourceList(this.registry, parts[1]!, parts[2]!));
    if (parts[0] !== 'api' && parts[0] !== 'apis') throw resourceNotFound();
    return false;
  }

  #route(path: string): Target {
    const parts = path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          throw badRequest(`invalid escape in path segment: ${s}`);
        }
      });
    let group: string;
    let version: string;
    let rest: string[];
    if (parts[0] === 'api' && parts.length >= 2) {
      group = '';
      version = parts[1]!;
      rest = parts.slice(2);
    } else if (parts[0] === 'apis' && parts.length >= 3) {
      group = parts[1]!;
      version = parts[2]!;
      rest = parts.slice(3);
    } else throw resourceNotFound();
    let watchPath = false;
    if (rest[0] === 'watch') {
      watchPath = true;
      rest = rest.slice(1);
    }
    let namespace = '';
    if (rest[0] === 'namespaces' && rest.length > 1) {
      namespace = rest[1]!;
      // namespaces/<ns>/status and /finalize are the namespace's own subresources.
      if (rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
      else {
        rest = ['namespaces', ...rest.slice(1)];
        namespace = '';
      }
    }
    const [resource, name, subresource, ...extra] = rest;
    if (resource === undefined || extra.length > 0) throw resourceNotFound();
    const r = this.registry.lookup(group, version, resource);
    if (r === undefined) throw resourceNotFound();
    if (r.namespaced !== (namespace !== '') && !(r.namespaced && name === undefined)) throw resourceNotFound();
    const known = (subresource === 'status' && r.hasStatus) || (subresource === 'scale' && r.hasScale) || (subresource === 'log' && r.group === '' && r.resource === 'pods');
    if (subresource !== undefined && !known) throw resourceNotFound();
    return { r, namespace, name, subresource, watchPath };
  }

  #verb(method: string, t: Target, q: URLSearchParams): Verb {
    const allowed = (v: Verb): Verb => {
      if (t.subresource === undefined && !t.r.verbs.includes(v)) throw methodNotAllowed();
      if (t.subresource === 'log' && v !== 'get') throw methodNotAllowed();
      if ((t.subresource === 'status' || t.subresource === 'scale') && v !== 'get' && v !== 'update' && v !== 'patch') throw methodNotAllowed();
      return v;
    };
    if (t.watchPath) {
      if (method !== 'GET') throw methodNotAllowed();
      return allowed('watch');
    }
    switch (method) {
      case 'GET':
        if (t.name !== undefined) return allowed('get');
        return allowed(boolParam(q, 'watch') ? 'watch' : 'list');
      case 'POST':
        if (t.name !== undefined) throw methodNotAllowed();
        return allowed('create');
      case 'PUT':
        if (t.name === undefined) throw methodNotAllowed();
        return allowed('update');
      case 'PATCH':
        if (t.name === undefined) throw methodNotAllowed();
        return allowed('patch');
      case 'DELETE':
        if (t.subresource !== undefined) throw methodNotAllowed();
        return allowed(t.name === undefined ? 'deletecollection' : 'delete');
      default:
        throw methodNotAllowed();
    }
  }

  async #readBody(req: IncomingMessage): Promise<Buffer> {
    const limit = this.#config.maxRequestBodyBytes;
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > limit) {
        req.resume();
        throw tooLarge(limit);
      }
      chunks.push(b);
    }
    return Buffer.concat(chunks);
  }

  // ---- decoding and rendering -------------------------------------------------------------

  #decodeObject(req: IncomingMessage, body: Buffer, kind: string): Obj {
    const type = mediaType(req.headers['content-type']);
    let value: unknown;
    try {
      if (type === '' || type === 'application/json') value = JSON.parse(body.toString('utf8'));
      else if (type === 'application/yaml') value = parseYaml(body.toString('utf8'));
      else if (type === protobufMediaType) {
        try {
          value = decodeKubernetesProtobuf(body);
        } catch (err) {
          throw unsupportedMediaType(`${type}: ${err instanceof Error ? err.message : String(err)}`, ['application/json', 'application/yaml']);
        }
      } else throw unsupportedMediaType(type, ['application/json', 'application/yaml']);
    } catch (err) {
      if (err instanceof StatusError) throw err;
      // The create/update handlers' transformDecodeError wording.
      throw badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)} (${summarizeData(body)})`);
    }
    if (!isObject(value)) throw badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: the body is not a JSON object (${summarizeData(body)})`);
    return value;
  }

  /** Checks kind and apiVersion against the URL's resource, defaulting them when absent. */
  #checkType(t: Target, obj: Obj): void {
    const expected = apiVersionString(t.r.group, t.r.version);
    if (obj.kind === undefined || obj.kind === '') obj.kind = t.r.kind;
    if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = expected;
    if (obj.kind !== t.r.kind) {
      const version = typeof obj.apiVersion === 'string' ? (obj.apiVersion.split('/')[1] ?? obj.apiVersion) : '';
      const internalGroup = t.r.group === '' ? 'core' : t.r.group.split('.')[0]!;
      // transformDecodeError around the scheme's failed conversion of the decoded kind into the resource's.
      throw badRequest(`${display(obj.kind)} in version ${JSON.stringify(version)} cannot be handled as a ${t.r.kind}: converting (${version}.${display(obj.kind)}) to (${internalGroup}.${t.r.kind}): unknown conversion`);
    }
    if (obj.apiVersion !== expected) {
      const other = typeof obj.apiVersion === 'string' ? obj.apiVersion.split('/') : [];
      const group = other.length === 2 ? other[0]! : '';
      const version = other.length === 2 ? other[1]! : (other[0] ?? '');
      // Another served version of the same resource is accepted and converted (CRDs convert with strategy None).
      if (group !== t.r.group || this.registry.lookup(group, version, t.r.resource) === undefined) {
        throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`);
      }
      obj.apiVersion = expected;
    }
    if (!isObject(obj.metadata)) obj.metadata = {};
  }

  #json(t: Target, s: StoredObject): string {
    return withApiVersion(s.json, apiVersionString(t.r.group, t.r.version));
  }

  #renderOne(t: Target, s: StoredObject, render: Render): string {
    if (render.as === 'table') return JSON.stringify({ ...toTable(t.r, [s], { includeObject: 'Metadata', noHeaders: false, now: this.#config.clock.now(), listMeta: { resourceVersion: String(s.rv) } }), apiVersion: render.apiVersion });
    if (render.as === 'metadata') return JSON.stringify(partialMetadata(s.obj));
    return this.#json(t, s);
  }

  // ---- reads ---------------------------------------------------------------------------

  #get(t: Target, render: Render, res: ServerResponse): void {
    const s = this.storage.get(storageKey(t.r.group, t.r.resource), this.#key(t.namespace, t.name!));
    if (s === undefined) throw notFound(t.r, t.name!);
    this.#send(res, 200, this.#renderOne(t, s, render));
  }

  #key(namespace: string, name: string): string {
    return namespace === '' ? name : `${namespace}/${name}`;
  }

  #selectors(t: Target, q: URLSearchParams): { label: LabelSelector | undefined; field: FieldSelector | undefined } {
    let label: LabelSelector | undefined;
    let field: FieldSelector | undefined;
    try {
      const l = q.get('labelSelector');
      if (l !== null && l !== '') label = parseSelector(l);
    } catch (err) {
      throw badRequest(`unable to parse requirement: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      const f = q.get('fieldSelector');
      if (f !== null && f !== '') field = parseFieldSelector(f);
    } catch (err) {
      throw badRequest(`invalid field selector: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (field !== undefined) validateFieldSelector(t.r, field);
    if (label?.empty()) label = undefined;
    if (field?.empty()) field = undefined;
    return { label, field };
  }

  #filter(t: Target, sel: { label: LabelSelector | undefined; field: FieldSelector | undefined }, name?: string): (o: Obj) => boolean {
    const { label, field } = sel;
    const ns = t.namespace;
    return (o) => {
      const meta = o.metadata as Obj;
      if (ns !== '' && meta.namespace !== ns) return false;
      if (name !== undefined && meta.name !== name) return false;
      if (label !== undefined && !label.matches(meta.labels as Record<string, string> | undefined)) return false;
      if (field !== undefined && !field.matches(fieldsOf(t.r, o))) return false;
      return true;
    };
  }

  #list(t: Target, q: URLSearchParams, render: Render, res: ServerResponse): void {
    const sel = this.#selectors(t, q);
    const filter = this.#filter(t, sel);
    const store = storageKey(t.r.group, t.r.resource);
    const rvParam = q.get('resourceVersion') ?? '';
    const match = q.get('resourceVersionMatch') ?? '';
    const cont = q.get('continue') ?? '';
    let limit = Number(q.get('limit') ?? '0');
    if (!Number.isFinite(limit) || limit < 0) limit = 0;
    validateListOptions(q, false);
    if (cont !== '' && rvParam !== '' && rvParam !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    let snapshot = this.storage.revision;
    let startKey: string | undefined;
    if (cont !== '') {
      const token = decodeContinue(cont);
      if (token.rv > 0 && token.rv <= this.storage.compactedRevision && token.rv < this.storage.revision) {
        // As handleCompactedErrorForPaginatedList: 410 Expired carrying a token that continues at the latest revision.
        const status = newStatus(410, StatusReason.Expired, inconsistentContinueMessage);
        const latest = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: -1, start: token.start })).toString('base64url');
        throw new StatusError({ ...status, metadata: { continue: latest } });
      }
      snapshot = token.rv < 0 ? this.storage.revision : token.rv;
      startKey = token.start;
    } else if (rvParam !== '') {
      const n = Number(rvParam);
      if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid resource version: ${rvParam}`);
      if (n > this.storage.revision) {
        const status = newStatus(504, StatusReason.Timeout, `Timeout: Too large resource version: ${n}, current: ${this.storage.revision}`, {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        });
        throw new StatusError(status);
      }
      if (match === 'Exact') {
        if (n < this.storage.compactedRevision) throw expired(expiredListMessage);
        snapshot = n;
      }
      // "0" (any) is served from the latest state, like the watch cache, and ignores limit.
      if (n === 0 && match !== 'Exact') limit = 0;
    }
    let scan: { total: number; items: Iterable<StoredObject> };
    try {
      scan = this.storage.scan(store, snapshot, { namespace: t.namespace, ...(startKey === undefined ? {} : { startKey }) });
    } catch (err) {
      if (err instanceof RevisionCompactedError) throw expired(expiredListMessage);
      throw err;
    }
    const noSelectors = sel.label === undefined && sel.field === undefined;
    const items: StoredObject[] = [];
    let continueToken: string | undefined;
    let remaining: number | undefined;
    let seen = 0;
    for (const c of scan.items) {
      seen++;
      if (!noSelectors && !filter(c.obj)) continue;
      if (limit > 0 && items.length === limit) {
        continueToken = encodeContinue(snapshot, items[items.length - 1]!.key);
        if (noSelectors) remaining = scan.total - seen + 1;
        break;
      }
      items.push(c);
    }
    const listMeta: Obj = { resourceVersion: String(snapshot) };
    if (continueToken !== undefined) listMeta.continue = continueToken;
    if (remaining !== undefined) listMeta.remainingItemCount = remaining;
    if (render.as === 'table') {
      const includeObject = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
      this.#send(res, 200, JSON.stringify({ ...toTable(t.r, items, { includeObject, noHeaders: false, now: this.#config.clock.now(), listMeta }), apiVersion: render.apiVersion }));
      return;
    }
    if (render.as === 'metadata') {
      this.#send(res, 200, JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: items.map((s) => partialMetadata(s.obj)) }));
      return;
    }
    const apiVersion = apiVersionString(t.r.group, t.r.version);
    const head = `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`;
    const encoded = t.r.custom ? items.map((s) => withApiVersion(s.json, apiVersion)) : items.map((s) => s.json);
    this.#send(res, 200, `${head}${encoded.join(',')}]}`);
  }

  #getLog(t: Target, q: URLSearchParams, res: ServerResponse): void {
    const name = t.name!;
    const pod = this.storage.get('pods', this.#key(t.namespace, name));
    const container = q.get('container') ?? undefined;
    const lines = this.logs.get(t.namespace, name, container);
    if (pod === undefined && lines === undefined) throw notFound(t.r, name);
    let out = lines ?? [];
    const tail = q.get('tailLines');
    if (tail !== null && Number(tail) >= 0) out = Number(tail) === 0 ? [] : out.slice(-Number(tail));
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
    const text = out.map((l) => `${l}\n`).join('');
    if (!boolParam(q, 'follow')) {
      res.end(text);
      return;
    }
    if (text !== '') res.write(text);
    this.logs.follow(t.namespace, name, container, res);
  }

  // ---- watch ---------------------------------------------------------------------------

  #watch(t: Target, q: URLSearchParams, render: Render, res: ServerResponse): void {
    const sel = this.#selectors(t, q);
    const filter = this.#filter(t, sel, t.name);
    const store = storageKey(t.r.group, t.r.resource);
    const rvParam = q.get('resourceVersion') ?? '';
    const bookmarks = boolParam(q, 'allowWatchBookmarks');
    const sendInitial = q.get('sendInitialEvents');
    validateListOptions(q, true);
    if (sendInitial === 'true' && !bookmarks) throw invalid('meta.k8s.io', 'ListOptions', '', [requiredCause('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true')]);
    const n = rvParam === '' ? 0 : Number(rvParam);
    if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid resource version: ${rvParam}`);
    const timeoutParam = q.get('timeoutSeconds');
    const timeoutSeconds = timeoutParam !== null && Number(timeoutParam) > 0 ? Number(timeoutParam) : this.#config.defaultWatchTimeoutSeconds;
    const apiVersion = apiVersionString(t.r.group, t.r.version);

    let encode: ObjectEncoder | undefined;
    if (render.as === 'table') {
      let first = true;
      const includeObject = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
      encode = (s) => {
        const table = toTable(t.r, [s], { includeObject, noHeaders: !first, now: this.#config.clock.now(), listMeta: { resourceVersion: String(s.rv) } });
        first = false;
        return JSON.stringify({ ...table, apiVersion: render.apiVersion });
      };
    } else if (render.as === 'metadata') encode = (s) => JSON.stringify(partialMetadata(s.obj));
    // Custom resources may be stored under another served version: convert (strategy None) per watcher.
    else if (t.r.custom) encode = (s) => withApiVersion(s.json, apiVersion);

    // Decide the starting point before writing anything so that a too-old version still gets a 200 stream.
    // sendInitialEvents=false with no resourceVersion starts from now, without a replay.
    const initial = sendInitial === 'true' || (sendInitial === null && n === 0);
    const fromNow = sendInitial === 'false' && n === 0;
    let replay: ReturnType<Storage['changesSince']> = [];
    let tooOld: RevisionCompactedError | undefined;
    if (!initial) {
      try {
        replay = fromNow || n >= this.storage.revision ? [] : this.storage.changesSince(store, n);
      } catch (err) {
        if (!(err instanceof RevisionCompactedError)) throw err;
        tooOld = err;
      }
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const kind = t.r.kind;
    const bookmarkLine = (end: boolean): string => {
      const metadata: Obj = { resourceVersion: String(this.storage.revision) };
      if (end) metadata.annotations = { [InitialEventsEndAnnotation]: 'true' };
      const object = render.as === 'metadata' ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata } : { kind, apiVersion, metadata };
      return JSON.stringify({ type: 'BOOKMARK', object });
    };
    let unsubscribe = (): void => {};
    const stream = new WatchStream({
      res,
      resource: t.r.resource,
      filter,
      encode,
      faults: this.faults,
      clock: this.#config.clock,
      timeoutMs: timeoutSeconds * 1000,
      bookmarkIntervalMs: bookmarks ? this.#config.bookmarkIntervalMs : undefined,
      bookmark: bookmarkLine,
      onClose: () => {
        unsubscribe();
        this.#watches.delete(stream);
      },
    });
    this.#watches.add(stream);
    if (this.faults.takeMalformed(t.r.resource)) stream.enqueueRaw('{"type":"MODIFIED","object":{this is not json');
    if (tooOld !== undefined) {
      const status = newStatus(410, StatusReason.Expired, `too old resource version: ${n} (${tooOld.compacted})`);
      stream.enqueueRaw(JSON.stringify({ type: 'ERROR', object: status }));
      stream.end();
      return;
    }
    if (initial) {
      for (const s of this.storage.listAt(store, this.storage.revision, { namespace: t.namespace })) if (filter(s.obj)) stream.enqueueObject('ADDED', s);
      if (sendInitial === 'true') stream.enqueueRaw(bookmarkLine(true));
    } else {
      for (const c of replay) stream.enqueueChange(c);
    }
    unsubscribe = this.storage.subscribe(store, (c) => stream.enqueueChange(c));
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
    this.#checkType(t, obj);
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
    meta.creationTimestamp = this.#now();
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
    applyCreateDefaults(r, obj, this.#allocator);
  }

  #store(t: Target): string {
    return storageKey(t.r.group, t.r.resource);
  }

  async #create(t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    if (t.subresource !== undefined) throw methodNotAllowed();
    const dryRun = this.#dryRun(q);
    const { name, obj } = this.#prepareCreate(t, this.#decodeObject(req, body, t.r.kind));
    this.#send(res, 201, this.#commitCreate(t, name, obj, dryRun, this.#tracker(t, this.#manager(q, req))));
  }

  /**
   * Final checks and the write of a new object. `manage` records managedFields (trackUpdate for
   * ordinary creates; identity when server-side apply already did). Returns the encoded object.
   */
  #commitCreate(t: Target, name: string, obj: Obj, dryRun: boolean, manage: (o: Obj) => Obj): string {
    this.#requireNamespace(t);
    const store = this.#store(t);
    const key = this.#key(t.namespace, name);
    if (this.storage.get(store, key) !== undefined) throw alreadyExists(t.r, name);
    const final = manage(obj);
    let crdEntries: ApiResource[] | undefined;
    if (store === crdGroupResource) {
      const { entries, causes } = customResourcesOf(final);
      if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
      final.status = acceptedCrdStatus(final, this.#now());
      crdEntries = entries;
    }
    if (dryRun) return JSON.stringify(final);
    const stored = this.storage.write(store, key, 'ADDED', final);
    if (crdEntries !== undefined) this.registry.setCustomResource(name, crdEntries);
    return this.#json(t, stored);
  }

  #tracker(t: Target, manager: string): (o: Obj) => Obj {
    return (o) => trackUpdate(undefined, o, { manager, now: this.#now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
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
    const obj = this.#decodeObject(req, body, t.r.kind);
    this.#checkType(t, obj);
    const meta = metaOf(obj);
    const name = t.name!;
    if (meta.name !== undefined && meta.name !== '' && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
    if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    const existing = this.storage.get(this.#store(t), this.#key(t.namespace, name));
    if (existing === undefined) {
      // Strategies with AllowCreateOnUpdate (leases, endpoints, events, RBAC) create on PUT.
      if (t.subresource !== undefined || !createsOnUpdate.has(this.#store(t))) throw notFound(t.r, name);
      meta.name = name;
      delete meta.resourceVersion;
      const { obj: prepared } = this.#prepareCreate(t, obj);
      this.#send(res, 201, this.#commitCreate(t, name, prepared, dryRun, this.#tracker(t, this.#manager(q, req))));
      return;
    }
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
    const out = this.#commitUpdate(t, existing, obj, { manager: this.#manager(q, req), dryRun, apply: undefined });
    this.#send(res, 200, out);
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
      const merged = this.#applyOrThrow(old, candidate, { manager: o.manager, force: o.apply.force, now: this.#now(), apiVersion, ...subresource });
      next = this.#normalise(t, old, merged);
    } else {
      next = trackUpdate(old, this.#normalise(t, old, candidate), { manager: o.manager, now: this.#now(), apiVersion, ...subresource });
    }
    let crdEntries: ApiResource[] | undefined;
    if (this.#store(t) === crdGroupResource) {
      const { entries, causes } = customResourcesOf(next);
      if (causes.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, causes);
      if (t.subresource !== 'status') next.status = acceptedCrdStatus(next, this.#now());
      crdEntries = entries;
    }
    if (isNoop(old, next)) return this.#json(t, existing);
    if (o.dryRun) return JSON.stringify(next);
    const store = this.#store(t);
    const key = existing.key;
    const meta = metaOf(next);
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (meta.deletionTimestamp !== undefined && finalizers.length === 0) {
      const gone = this.#remove(store, key, next);
      return this.#json(t, gone);
    }
    const stored = this.storage.write(store, key, 'MODIFIED', next);
    if (crdEntries !== undefined) this.registry.setCustomResource(t.name!, crdEntries);
    return this.#json(t, stored);
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
      applyUpdateDefaults(t.r, old, next, this.#allocator);
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
    const existing = this.storage.get(this.#store(t), this.#key(t.namespace, name));
    const manager = q.get('fieldManager');
    if (type === patchTypes.apply) {
      if (manager === null || manager === '') throw badRequest('PATCH requests with an apply patch must specify a field manager: fieldManager is required for apply requests');
      if (!isObject(patch)) throw badRequest('error decoding YAML: the apply patch must be an object');
      const applied = patch;
      this.#checkType(t, applied);
      const meta = metaOf(applied);
      if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
      if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const force = boolParam(q, 'force');
      if (existing === undefined) {
        if (t.subresource !== undefined) throw notFound(t.r, name);
        meta.name = name;
        if (t.r.namespaced) meta.namespace = t.namespace;
        this.#requireNamespace(t);
        const merged = this.#applyOrThrow(undefined, applied, { manager, force, now: this.#now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
        const { obj } = this.#prepareCreate(t, merged);
        const out = this.#commitCreate(t, name, obj, dryRun, (x) => x);
        this.#send(res, 201, out);
        return;
      }
      if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
      const out = this.#commitUpdate(t, existing, applied, { manager, dryRun, apply: { force } });
      this.#send(res, 200, out);
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
    this.#checkType(t, patched);
    const meta = metaOf(patched);
    if (meta.name !== name) throw invalid(t.r.group, t.r.kind, name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(meta.name)}: field is immutable` }]);
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
    const out = this.#commitUpdate(t, existing, patched, { manager: this.#manager(q, req), dryRun, apply: undefined });
    this.#send(res, 200, out);
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
    const s = this.storage.get(this.#store(t), this.#key(t.namespace, t.name!));
    if (s === undefined) throw notFound(t.r, t.name!);
    this.#send(res, 200, JSON.stringify(this.#scaleOf(s)));
  }

  /** PUT or PATCH of /scale: changes the workload's spec.replicas. */
  async #writeScale(t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse, patch: boolean): Promise<void> {
    const dryRun = this.#dryRun(q);
    const name = t.name!;
    const existing = this.storage.get(this.#store(t), this.#key(t.namespace, name));
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
    } else scale = this.#decodeObject(req, body, 'Scale');
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
    this.#send(res, 200, JSON.stringify(this.#scaleOf({ obj: stored, json: out, rv: Number((stored.metadata as Obj).resourceVersion), key: existing.key })));
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
    if (this.#store(t) === namespacesStore && immortalNamespaces.has(name)) throw forbiddenError(t.r, name, 'this namespace may not be deleted');
    const existing = this.storage.get(this.#store(t), this.#key(t.namespace, name));
    if (existing === undefined) throw notFound(t.r, name);
    const pre = isObject(opts.preconditions) ? opts.preconditions : {};
    const meta = existing.obj.metadata as Obj;
    if (typeof pre.uid === 'string' && pre.uid !== meta.uid) throw conflict(t.r, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`);
    if (typeof pre.resourceVersion === 'string' && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(t.r, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`);
    }
    const out = this.#deleteOne(t, existing, dryRun);
    // The object stays (finalizers pending) or the registry returns deleted objects: answer with it.
    if (out.pending || returnsDeletedObject.has(this.#store(t))) {
      this.#send(res, 200, out.json);
      return;
    }
    // Otherwise the generic registry answers with a Success Status naming what went (details.kind is the plural).
    const details: Obj = { name, ...(t.r.group === '' ? {} : { group: t.r.group }), kind: t.r.resource, uid: meta.uid };
    this.#send(res, 200, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }));
  }

  /**
   * Deletes (or marks for deletion, with finalizers) one object; returns the encoded object and whether
   * it is still there, waiting for its finalizers.
   */
  #deleteOne(t: Target, existing: StoredObject, dryRun: boolean): { json: string; pending: boolean } {
    const meta = existing.obj.metadata as Obj;
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    const store = this.#store(t);
    if (finalizers.length > 0) {
      if (meta.deletionTimestamp !== undefined || dryRun) return { json: this.#json(t, existing), pending: true };
      const next = structuredClone(existing.obj);
      const m = metaOf(next);
      m.deletionTimestamp = this.#now();
      m.deletionGracePeriodSeconds = 0;
      return { json: this.#json(t, this.storage.write(store, existing.key, 'MODIFIED', next)), pending: true };
    }
    if (dryRun) return { json: this.#json(t, existing), pending: false };
    return { json: this.#json(t, this.#remove(store, existing.key, existing.obj)), pending: false };
  }

  /** Removes an object for good, with the side effects of namespaces and CRDs going away. */
  #remove(store: string, key: string, finalState: Obj): StoredObject {
    if (store === namespacesStore) {
      // As the namespace controller: the contents go first, then the namespace, last seen Terminating with
      // its deletionTimestamp set and the `kubernetes` finalizer gone.
      this.#emptyNamespace(key);
      const last = structuredClone(finalState);
      const meta = metaOf(last);
      meta.deletionTimestamp ??= this.#now();
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
    for (const w of this.#watches) if (w.resource === first.resource) w.end();
  }

  async #deleteCollection(t: Target, q: URLSearchParams, body: Buffer, res: ServerResponse): Promise<void> {
    const dryRun = this.#dryRun(q);
    this.#deleteOptions(body, q);
    const filter = this.#filter(t, this.#selectors(t, q));
    const store = this.#store(t);
    const items: string[] = [];
    for (const s of this.storage.listAt(store, this.storage.revision, { namespace: t.namespace })) {
      if (!filter(s.obj)) continue;
      items.push(this.#deleteOne(t, s, dryRun).json);
    }
    const apiVersion = apiVersionString(t.r.group, t.r.version);
    this.#send(res, 200, `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${this.storage.revision}"},"items":[${items.join(',')}]}`);
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
