/**
 * Request building as pure data (rest.Request's URL and body assembly, without any I/O).
 *
 * Everything a call to the API server needs — verb, path, query parameters, headers and body — is
 * computed here from a resource location and metav1-style options, so the exact wire form of every
 * verb is unit-tested without a network. The {@link RestClient} only adds authentication, rate
 * limiting and retries on top.
 */
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  ApplyOptions,
  PatchTypeValue,
} from '../apimachinery/options.ts';
import { KubeloomError } from '../apimachinery/errors.ts';

/** HTTP verbs used against the API server. */
export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Thrown when a request cannot be assembled (rest.RequestConstructionError): bad names, missing namespace. */
export class RequestConstructionError extends KubeloomError {
  constructor(message: string) {
    super('ERR_REQUEST_CONSTRUCTION', `request construction error: ${message}`);
  }
}

/** Where a request goes: the API group/version and optionally namespace, resource, name and subresource. */
export interface ResourceLocation {
  /** API group, '' for the core group (served under /api). */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Namespace, or ''/undefined for cluster-scoped resources and all-namespace lists. */
  namespace?: string;
  /** Plural resource name. */
  resource?: string;
  /** Object name. */
  name?: string;
  /** Subresource path, e.g. `status`, `scale`, `log`. */
  subresource?: string;
}

/** One HTTP request to the API server, fully described as data. */
export interface RestRequest {
  /** The HTTP method. */
  verb: HttpVerb;
  /** Absolute path below the server's base URL, e.g. `/api/v1/namespaces/default/pods/web`. */
  path: string;
  /** Query parameters in order (keys sorted, as url.Values.Encode does; repeated keys allowed). */
  query: Array<[string, string]>;
  /** Request headers (lower-case names). Auth, User-Agent and Accept-Encoding are added by the client. */
  headers: Record<string, string>;
  /** Serialised body; strings are sent as UTF-8. Always replayable, so retries may resend it. */
  body?: string;
  /** The request opens a watch stream: not rate-limited and without a response timeout, as client-go. */
  watch?: boolean;
  /** The response is streamed to the caller (watches, logs) rather than read whole. */
  stream?: boolean;
  /**
   * The request's own timeout in ms, as set by rest.Request.Timeout(d) (client-go rest/request.go):
   * when present it replaces the config's timeout as what the request tells the server, so 0 sends
   * no `timeout` query parameter even when the config has a timeout. Absent: the config's timeout
   * (NewRequest starts from c.Client.Timeout). See {@link withRequestTimeout}.
   */
  timeoutMs?: number;
  /**
   * What the request addresses, for error messages and details (`(get pods web)`): set by the
   * builders below from the resource location; absent for requests to a raw path (discovery).
   */
  target?: RequestTarget;
}

/** The resource a request addresses (rest.Request's resource and resourceName). */
export interface RequestTarget {
  /** API group, '' for the core group. */
  group: string;
  /** Plural resource name. */
  resource: string;
  /** Object name, when the request names one. */
  name?: string;
}

/**
 * `req` with its own timeout set (rest.Request.Timeout(d)); what client-go's generated typed List,
 * Watch and DeleteCollection do with the ListOptions' `timeoutSeconds` (gentype/type.go:
 * `Timeout(timeout)`, 0 when timeoutSeconds is unset). Pure: returns a new request.
 */
export function withRequestTimeout(req: RestRequest, timeoutMs: number): RestRequest {
  return { ...req, timeoutMs };
}

/** The JSON content type used for request and response bodies. */
export const JsonContentType = 'application/json';

// Path segments may not be "." or ".." nor contain "/" or "%" (rest.IsValidPathSegmentName).
function validateSegment(what: string, value: string): void {
  if (value === '.' || value === '..') throw new RequestConstructionError(`invalid ${what} "${value}": may not be '${value}'`);
  if (value.includes('/')) throw new RequestConstructionError(`invalid ${what} "${value}": may not contain '/'`);
  if (value.includes('%')) throw new RequestConstructionError(`invalid ${what} "${value}": may not contain '%'`);
}

/**
 * The path of a resource location: `/api/v1` or `/apis/<group>/<version>`, then
 * `/namespaces/<ns>` when a namespace is given, then `/<resource>[/<name>[/<subresource>]]`.
 */
export function resourcePath(loc: ResourceLocation): string {
  if (loc.version === '') throw new RequestConstructionError('version may not be empty');
  validateSegment('version', loc.version);
  let path = loc.group === '' ? `/api/${loc.version}` : `/apis/${loc.group}/${loc.version}`;
  if (loc.group !== '') validateSegment('group', loc.group);
  if (loc.namespace !== undefined && loc.namespace !== '') {
    validateSegment('namespace', loc.namespace);
    path += `/namespaces/${loc.namespace}`;
  }
  if (loc.resource !== undefined && loc.resource !== '') {
    validateSegment('resource', loc.resource);
    path += `/${loc.resource.toLowerCase()}`;
  } else if (loc.name !== undefined) {
    throw new RequestConstructionError('a name needs a resource');
  }
  if (loc.name !== undefined) {
    if (loc.name === '') throw new RequestConstructionError('resource name may not be empty');
    validateSegment('resource name', loc.name);
    path += `/${loc.name}`;
  }
  if (loc.subresource !== undefined && loc.subresource !== '') {
    for (const s of loc.subresource.split('/')) validateSegment('subresource', s);
    if (loc.name === undefined) throw new RequestConstructionError('a subresource needs a name');
    path += `/${loc.subresource}`;
  }
  return path;
}

/** Collects query parameters and returns them sorted by key (stable for repeated keys). */
class QueryBuilder {
  readonly #pairs: Array<[string, string]> = [];

  str(key: string, value: string | undefined): this {
    if (value !== undefined && value !== '') this.#pairs.push([key, value]);
    return this;
  }

  num(key: string, value: number | undefined): this {
    if (value !== undefined && value !== 0) this.#pairs.push([key, String(Math.trunc(value))]);
    return this;
  }

  bool(key: string, value: boolean | undefined): this {
    if (value === true) this.#pairs.push([key, 'true']);
    return this;
  }

  list(key: string, values: readonly string[] | undefined): this {
    for (const v of values ?? []) this.#pairs.push([key, v]);
    return this;
  }

  build(): Array<[string, string]> {
    // Array.prototype.sort is stable, so repeated keys keep their order.
    return [...this.#pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}

/** Query parameters of a LIST or WATCH (metav1.ListOptions), omitting empty values as upstream. */
export function listQuery(options: ListOptions = {}, watch = false): Array<[string, string]> {
  const q = new QueryBuilder()
    .str('labelSelector', options.labelSelector)
    .str('fieldSelector', options.fieldSelector)
    .str('resourceVersion', options.resourceVersion)
    .str('resourceVersionMatch', options.resourceVersionMatch)
    .num('limit', options.limit)
    .str('continue', options.continue)
    .num('timeoutSeconds', options.timeoutSeconds)
    .bool('allowWatchBookmarks', options.allowWatchBookmarks)
    .str('shardSelector', options.shardSelector)
    .bool('watch', watch);
  // sendInitialEvents=false is meaningful (it is a *bool upstream), so it is sent when set at all.
  if (options.sendInitialEvents !== undefined) q.str('sendInitialEvents', String(options.sendInitialEvents));
  return q.build();
}

/** Query parameters of a GET (metav1.GetOptions). */
export function getQuery(options: GetOptions = {}): Array<[string, string]> {
  return new QueryBuilder().str('resourceVersion', options.resourceVersion).build();
}

/** Query parameters of a create or update (metav1.CreateOptions / UpdateOptions). */
export function writeQuery(options: CreateOptions = {}): Array<[string, string]> {
  return new QueryBuilder().list('dryRun', options.dryRun).str('fieldManager', options.fieldManager).str('fieldValidation', options.fieldValidation).build();
}

/** Query parameters of a patch (metav1.PatchOptions; `force` only matters for apply). */
export function patchQuery(options: PatchOptions | ApplyOptions = {}): Array<[string, string]> {
  const q = new QueryBuilder().list('dryRun', options.dryRun).str('fieldManager', options.fieldManager).bool('force', options.force);
  if ('fieldValidation' in options) q.str('fieldValidation', options.fieldValidation);
  return q.build();
}

/**
 * The metav1.DeleteOptions body sent with DELETE requests (kind and apiVersion set, empty fields
 * omitted). Its apiVersion is `v1`, as client-go's dynamic and metadata clients encode it
 * (LegacyCodec of version v1): every kube-apiserver accepts that for every group, whereas
 * `meta.k8s.io/v1` in a deletecollection body is a 500 before Kubernetes 1.26
 * (kubernetes/kubernetes#111985, fixed by #113133).
 */
export function deleteOptionsBody(options: DeleteOptions = {}): string | undefined {
  const body: Record<string, unknown> = {};
  if (options.gracePeriodSeconds !== undefined) body['gracePeriodSeconds'] = options.gracePeriodSeconds;
  if (options.preconditions !== undefined) body['preconditions'] = options.preconditions;
  if (options.propagationPolicy !== undefined) body['propagationPolicy'] = options.propagationPolicy;
  if (options.dryRun !== undefined && options.dryRun.length > 0) body['dryRun'] = options.dryRun;
  if (Object.keys(body).length === 0) return undefined;
  return JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...body });
}

function jsonHeaders(withBody: boolean, accept: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: accept ?? JsonContentType };
  if (withBody) headers['content-type'] = JsonContentType;
  return headers;
}

/** Per-request knobs shared by the builders below. */
export interface BuildOptions {
  /** Overrides the Accept header (e.g. for PartialObjectMetadata). */
  accept?: string;
}

/** A GET of one object. */
export function buildGet(loc: ResourceLocation, options?: GetOptions, build: BuildOptions = {}): RestRequest {
  return { verb: 'GET', path: resourcePath(loc), query: getQuery(options), headers: jsonHeaders(false, build.accept), ...targetOf(loc) };
}

/** A LIST of a collection. */
export function buildList(loc: ResourceLocation, options?: ListOptions, build: BuildOptions = {}): RestRequest {
  return { verb: 'GET', path: resourcePath(loc), query: listQuery(options), headers: jsonHeaders(false, build.accept), ...targetOf(loc) };
}

/** A WATCH of a collection (`?watch=true`), streamed. */
export function buildWatch(loc: ResourceLocation, options?: ListOptions, build: BuildOptions = {}): RestRequest {
  return { verb: 'GET', path: resourcePath(loc), query: listQuery(options, true), headers: jsonHeaders(false, build.accept), watch: true, stream: true, ...targetOf(loc) };
}

/** A POST creating `body` in the collection at `loc`. */
export function buildCreate(loc: ResourceLocation, body: unknown, options?: CreateOptions, build: BuildOptions = {}): RestRequest {
  return { verb: 'POST', path: resourcePath(loc), query: writeQuery(options), headers: jsonHeaders(true, build.accept), body: JSON.stringify(body), ...targetOf(loc) };
}

/** A PUT replacing the object (or its subresource) at `loc`. */
export function buildUpdate(loc: ResourceLocation, body: unknown, options?: CreateOptions, build: BuildOptions = {}): RestRequest {
  requireName(loc, 'update');
  return { verb: 'PUT', path: resourcePath(loc), query: writeQuery(options), headers: jsonHeaders(true, build.accept), body: JSON.stringify(body), ...targetOf(loc) };
}

/**
 * A PATCH with the given patch type. `patch` is sent as-is when it is a string, JSON-encoded otherwise
 * (apply patches are YAML, and JSON is valid YAML).
 */
export function buildPatch(loc: ResourceLocation, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions, build: BuildOptions = {}): RestRequest {
  requireName(loc, 'patch');
  if (patchType === 'application/apply-patch+yaml' && (options?.fieldManager ?? '') === '') {
    throw new RequestConstructionError('fieldManager is required for apply patches');
  }
  const headers: Record<string, string> = { accept: build.accept ?? JsonContentType, 'content-type': patchType };
  return { verb: 'PATCH', path: resourcePath(loc), query: patchQuery(options), headers, body: typeof patch === 'string' ? patch : JSON.stringify(patch), ...targetOf(loc) };
}

/** A server-side apply of `obj` (an apply patch, fieldManager required). */
export function buildApply(loc: ResourceLocation, obj: unknown, options: ApplyOptions, build: BuildOptions = {}): RestRequest {
  return buildPatch(loc, 'application/apply-patch+yaml', obj, options, build);
}

/** A DELETE of one object, with DeleteOptions in the body. */
export function buildDelete(loc: ResourceLocation, options?: DeleteOptions, build: BuildOptions = {}): RestRequest {
  requireName(loc, 'delete');
  const body = deleteOptionsBody(options);
  const req: RestRequest = { verb: 'DELETE', path: resourcePath(loc), query: [], headers: jsonHeaders(body !== undefined, build.accept), ...targetOf(loc) };
  if (body !== undefined) req.body = body;
  return req;
}

/** A DELETE of a collection: list options select the objects, DeleteOptions go in the body. */
export function buildDeleteCollection(loc: ResourceLocation, options?: DeleteOptions, listOptions?: ListOptions, build: BuildOptions = {}): RestRequest {
  const body = deleteOptionsBody(options);
  const req: RestRequest = { verb: 'DELETE', path: resourcePath(loc), query: listQuery(listOptions), headers: jsonHeaders(body !== undefined, build.accept), ...targetOf(loc) };
  if (body !== undefined) req.body = body;
  return req;
}

/** The request's target, when the location names a resource. */
function targetOf(loc: ResourceLocation): { target?: RequestTarget } {
  if (loc.resource === undefined || loc.resource === '') return {};
  const target: RequestTarget = { group: loc.group, resource: loc.resource };
  if (loc.name !== undefined && loc.name !== '') target.name = loc.name;
  return { target };
}

function requireName(loc: ResourceLocation, verb: string): void {
  if (loc.name === undefined || loc.name === '') throw new RequestConstructionError(`${verb} needs a resource name`);
}

/**
 * The full URL of a request against `host` (which may carry a path prefix, kept as upstream does).
 * Query values are form-encoded.
 */
export function requestUrl(host: string, req: Pick<RestRequest, 'path' | 'query'>): string {
  const base = host.endsWith('/') ? host.slice(0, -1) : host;
  const query = req.query.length === 0 ? '' : `?${new URLSearchParams(req.query).toString()}`;
  return `${base}${req.path}${query}`;
}
