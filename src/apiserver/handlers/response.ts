/**
 * Writing answers: content negotiation of the Accept header (JSON, YAML, protobuf; meta.k8s.io Tables
 * and PartialObjectMetadata), encoding objects and error Statuses in the negotiated form, and the
 * router's own 404/405/406/415 answers.
 *
 * Upstream: `apiserver/pkg/endpoints/handlers/negotiation/negotiate.go`,
 * `endpoints/handlers/responsewriters/writers.go`, and go-restful's route selection for the answers
 * that come before any handler runs.
 */
import { str } from '../object-meta.ts';
import type { ServerResponse } from 'node:http';
import { stringify as toYaml } from 'yaml';
import { goFieldOrder } from '../../runtime/json-field-order.ts';
import { StatusError, newStatus, StatusReason } from '../../apimachinery/errors.ts';
import { canEncodeProtobuf as canEncodeFromGoTypes, encodeKubernetesProtobuf as encodeFromGoTypes, protobufMediaType } from '../protobuf.ts';
import { canEncodeProtobuf, encodeProtobuf } from '../../runtime/protobuf/encode.ts';
import { convertCustomResource } from '../registry/apiextensions/custom-resource-schema.ts';
import { convertBuiltin } from '../registry/rest.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { badRequest, internalError, PageNotFound, untypedError } from '../status.ts';
import { EtcdRequestTooLargeError, type StoredObject } from '../storage.ts';
import { partialMetadata, toTable, type IncludeObject } from '../table.ts';
import type { Obj, RequestScope, Target } from './scope.ts';

/** The serialization of an answer. */
export type Format = 'json' | 'yaml' | 'protobuf';

/** The output negotiated from the Accept header: what to answer and in which serialization. */
export type Render = { as: 'object'; format: Format } | { as: 'table'; apiVersion: string; format: Format } | { as: 'metadata'; format: Format; list: boolean };

/** What the server can produce for a request. */
export interface Producible {
  /** Whether the target's objects have a protobuf form (built-in kinds). */
  protobuf: boolean;
}

const mediaTypes: Readonly<Record<string, Format>> = { 'application/json': 'json', 'application/yaml': 'yaml', [protobufMediaType]: 'protobuf' };

/** 406 from the negotiator: a media type it knows, with parameters it does not. */
function notAcceptableTypes(): StatusError {
  return new StatusError(newStatus(406, StatusReason.NotAcceptable, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'));
}

/** 406 from the router: no route produces any of the media types asked for. */
export function routerNotAcceptable(): StatusError {
  return new StatusError(newStatus(406, StatusReason.NotAcceptable, '406: Not Acceptable', {}));
}

/** 415 from the router: no route consumes the request's media type (PATCH with an unknown patch type). */
export function routerUnsupportedMediaType(): StatusError {
  return new StatusError(newStatus(415, StatusReason.UnsupportedMediaType, '415: Unsupported Media Type', {}));
}

interface Clause {
  type: string;
  params: Record<string, string>;
}

function parseClauses(header: string): Clause[] {
  return header
    .split(',')
    .map((part) => {
      const [type, ...params] = part.split(';').map((s) => s.trim());
      const p: Record<string, string> = {};
      for (const kv of params) {
        const eq = kv.indexOf('=');
        if (eq > 0) p[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim();
      }
      return { type: (type ?? '').toLowerCase(), params: p };
    })
    .filter((c) => c.type !== '');
}

/**
 * Negotiates the answer's form. The first clause the server can produce wins: a plain media type, or a
 * Table / PartialObjectMetadata conversion. Throws 406 as the router does when no clause names a media
 * type the server produces, and as the negotiator does when known media types carry unknown conversions.
 */
export function negotiate(header: string | undefined, producible: Producible = { protobuf: true }, forErrors = false): Render {
  if (header === undefined || header.trim() === '') return { as: 'object', format: 'json' };
  if (forErrors) {
    // The serialization of an error: the first media type offered the server can write a Status in.
    for (const c of parseClauses(header)) {
      const format = c.type === '*/*' ? 'json' : mediaTypes[c.type];
      if (format !== undefined) return { as: 'object', format };
    }
    return { as: 'object', format: 'json' };
  }
  const clauses = parseClauses(header);
  let knownType = false;
  for (const c of clauses) {
    const format = c.type === '*/*' ? 'json' : mediaTypes[c.type];
    if (format === undefined) continue;
    if (format === 'protobuf' && !producible.protobuf) {
      knownType = true;
      continue;
    }
    knownType = true;
    const p = c.params;
    if (p.as === undefined) return { as: 'object', format };
    // Tables have no protobuf form; PartialObjectMetadata(List) has, as kube-apiserver answers it.
    if (p.g !== 'meta.k8s.io' || (format === 'protobuf' && p.as === 'Table')) continue;
    if (p.as === 'Table' && (p.v === 'v1' || p.v === 'v1beta1')) return { as: 'table', apiVersion: `meta.k8s.io/${p.v}`, format };
    if ((p.as === 'PartialObjectMetadata' || p.as === 'PartialObjectMetadataList') && (p.v === 'v1' || p.v === 'v1beta1')) return { as: 'metadata', format, list: p.as === 'PartialObjectMetadataList' };
  }
  if (!knownType) throw routerNotAcceptable();
  throw notAcceptableTypes();
}

/** The Accept handling of paths without conversions (discovery, OpenAPI): anything but an explicit other type is JSON. */
export function parseAccept(header: string | undefined): Render {
  try {
    return negotiate(header);
  } catch {
    return { as: 'object', format: 'json' };
  }
}

// The leading TypeMeta of a stored object: `{"kind":…,"apiVersion":…` for built-in kinds (Go struct order),
// `{"apiVersion":…,"kind":…` for custom resources (sorted keys). Group 1 is everything before the
// apiVersion's value, group 2 the value.
const leadingApiVersion = /^(\{"apiVersion":|\{"kind":"(?:[^"\\]|\\.)*","apiVersion":)("(?:[^"\\]|\\.)*")/;

/** The encoded apiVersion at the start of a stored object's JSON, undefined when it is not there. */
function storedApiVersion(json: string): string | undefined {
  return leadingApiVersion.exec(json)?.[2];
}

/** Replaces the apiVersion at the start of an encoded object (objects are stored with TypeMeta first). */
export function withApiVersion(json: string, apiVersion: string): string {
  const m = leadingApiVersion.exec(json);
  if (m === null) {
    const o = JSON.parse(json) as Obj;
    o.apiVersion = apiVersion;
    return JSON.stringify(o);
  }
  const encoded = JSON.stringify(apiVersion);
  if (m[2] === encoded) return json;
  return `${m[1]}${encoded}${json.slice(m[0].length)}`;
}

/**
 * The encoded object without its apiVersion and kind: items of a built-in resource's List carry no
 * TypeMeta (the List's own kind/apiVersion say what they are), as kube-apiserver encodes typed lists.
 * Custom resources are unstructured and keep theirs.
 */
export function withoutTypeMeta(json: string): string {
  const m = /^\{(?:"apiVersion":"(?:[^"\\]|\\.)*","kind":"(?:[^"\\]|\\.)*"|"kind":"(?:[^"\\]|\\.)*","apiVersion":"(?:[^"\\]|\\.)*"),?/.exec(json);
  if (m !== null) return `{${json.slice(m[0].length)}`;
  const { apiVersion: _a, kind: _k, ...rest } = JSON.parse(json) as Obj;
  return JSON.stringify(rest);
}

/** A stored object encoded in the version of the request's URL (custom resources convert with strategy None). */
export function encodeStored(t: Target, s: StoredObject): string {
  return encodeInVersion(t.r, s.json);
}

/**
 * A stored object as the request's version sees it, for writes that start from it (PATCH, PUT):
 * built-in kinds stored in another version are converted; everything else is returned as stored.
 */
export function storedInVersion(t: Target, s: StoredObject): StoredObject {
  if (t.r.custom || t.r.storage === undefined || (t.r.storage.version === t.r.version && t.r.storage.group === undefined)) return s;
  const obj = convertBuiltin(t.r, s.obj, t.r.version);
  return { ...s, obj, json: JSON.stringify(obj) };
}

/**
 * An encoded object in the version of resource `r`: custom resources stored in another version are
 * converted (strategy None) and pruned to that version's schema, as the CR handler's converter does.
 */
export function encodeInVersion(r: ApiResource, json: string): string {
  const apiVersion = apiVersionString(r.group, r.version);
  if (!r.custom && r.storage !== undefined) {
    // A built-in kind stored in another of its versions: converted to the request's.
    if (storedApiVersion(json) === JSON.stringify(apiVersion)) return json;
    // Encoded from the request version's Go struct: in its field order.
    return JSON.stringify(goFieldOrder(convertBuiltin(r, JSON.parse(json) as Obj, r.version)));
  }
  // A conversion webhook is called by the handlers, which await it (webhook-converter.ts): stored as is here.
  if (r.conversionWebhook !== undefined) return json;
  if (!r.custom || r.schema === undefined) return withApiVersion(json, apiVersion);
  if (storedApiVersion(json) === JSON.stringify(apiVersion)) return json;
  return JSON.stringify(convertCustomResource(JSON.parse(json) as Obj, apiVersion, r.schema));
}

/**
 * The `includeObject` of a Table request (Metadata by default); 400 for any other value than None,
 * Metadata and Object, as the table convertor's option validation answers.
 */
export function tableOptions(q: URLSearchParams, render: Render): IncludeObject {
  const v = q.get('includeObject') ?? '';
  if (render.as !== 'table') return 'Metadata';
  if (v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`);
}

/** The Go type kube-apiserver names in conversion errors: `*core.ConfigMap`, `*apps.DeploymentList`, unstructured for custom resources. */
function internalType(t: Target, list: boolean): string {
  if (t.r.custom) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = t.r.group === '' || t.r.group === 'events.k8s.io' ? 'core' : t.r.group.split('.')[0]!;
  return `*${pkg}.${t.r.kind}${list ? 'List' : ''}`;
}

/** 406 when PartialObjectMetadata(List) is asked of the other shape (a list for one object, or the reverse). */
export function checkMetadataShape(t: Target, render: Render, list: boolean): void {
  if (render.as !== 'metadata' || render.list === list) return;
  const message = list
    ? `you requested PartialObjectMetadata, but the requested object is a list (${internalType(t, true)})`
    : `you requested PartialObjectMetadataList, but the requested object is not a list (${internalType(t, false)})`;
  throw new StatusError(newStatus(406, StatusReason.NotAcceptable, message));
}

/** One object in the negotiated conversion, as JSON. */
export function renderOne(scope: RequestScope, t: Target, s: StoredObject, render: Render, includeObject: IncludeObject = 'Metadata'): string {
  if (render.as === 'table') return JSON.stringify({ ...toTable(t.r, [s], { includeObject, noHeaders: false, now: scope.config.clock.now(), listMeta: { resourceVersion: String(s.rv) } }), apiVersion: render.apiVersion });
  if (render.as === 'metadata') return JSON.stringify(partialMetadata(s.obj));
  return encodeStored(t, s);
}

// The serialization each response was negotiated to, so errors raised later answer in it too.
const negotiated = new WeakMap<ServerResponse, Format>();

/** Records the serialization later errors of this response use. */
export function useFormat(res: ServerResponse, format: Format): void {
  negotiated.set(res, format);
}

function serialize(json: string, format: Format): { body: Buffer; contentType: string } {
  if (format === 'yaml') return { body: Buffer.from(toYaml(JSON.parse(json) as unknown, { sortMapEntries: true, lineWidth: 0 })), contentType: 'application/yaml' };
  if (format === 'protobuf') {
    const obj = JSON.parse(json) as Obj;
    if (canEncodeProtobuf(str(obj.apiVersion), str(obj.kind))) return { body: encodeProtobuf(obj), contentType: protobufMediaType };
    // Kinds outside k8s.io/api's generated.proto files (kube-aggregator's APIService) keep the struct
    // table of the request decoder, which knows them.
    if (canEncodeFromGoTypes(str(obj.apiVersion), str(obj.kind))) return { body: Buffer.from(encodeFromGoTypes(obj)), contentType: protobufMediaType };
  }
  // encoding/json's Encoder ends every document with a newline, as kube-apiserver's JSON answers do.
  return { body: Buffer.from(`${json}\n`), contentType: 'application/json' };
}

function write(res: ServerResponse, code: number, body: Buffer, contentType: string, extra: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Content-Length': body.length, ...extra });
  res.end(body);
}

/** Writes a complete JSON answer with its Content-Length. */
export function send(res: ServerResponse, code: number, body: string, contentType = 'application/json'): void {
  write(res, code, Buffer.from(body), contentType);
}

/** Writes an object (given as JSON) in the negotiated serialization. */
export function sendObject(res: ServerResponse, code: number, json: string, render: Render): void {
  const { body, contentType } = serialize(json, render.format);
  write(res, code, body, contentType);
}

/**
 * Writes an object in the negotiated serialization, protobuf encoded from `obj` itself (no JSON rendered
 * and parsed again) when its kind has a protobuf form; otherwise as {@link sendObject} with `json()`.
 */
export function sendObjectValue(res: ServerResponse, code: number, obj: Obj, json: () => string, render: Render): void {
  if (render.format === 'protobuf' && canEncodeProtobuf(str(obj.apiVersion), str(obj.kind))) {
    write(res, code, encodeProtobuf(obj), protobufMediaType);
    return;
  }
  sendObject(res, code, json(), render);
}

/** A built-in object stored in the request's version, as sent: with the request's apiVersion. */
export function storedValue(t: Target, s: StoredObject): Obj | undefined {
  if (t.r.custom || t.r.storage !== undefined || t.r.conversionWebhook !== undefined) return undefined;
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  return s.obj.apiVersion === apiVersion ? s.obj : { ...s.obj, apiVersion };
}

/**
 * Answers with the Status of a failure (a StatusError's own, or 500 InternalError for anything else)
 * in the response's negotiated serialization, with Retry-After when the Status asks for it; a response
 * already under way is cut off instead.
 */
export function sendError(res: ServerResponse, err: unknown): void {
  // etcd's own errors reach the client untyped (no reason), as kube-apiserver passes them through.
  const e = err instanceof StatusError ? err : err instanceof EtcdRequestTooLargeError ? untypedError(500, err.message) : internalError(err instanceof Error ? err.message : String(err));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (e instanceof PageNotFound) {
    sendText(res, 404, '404 page not found\n');
    return;
  }
  const code = e.status.code ?? 500;
  const extra: Record<string, string> = {};
  const retry = e.status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) extra['Retry-After'] = String(retry);
  // In metav1.Status's Go field order at every level (details before code, a cause's reason first).
  const { body, contentType } = serialize(JSON.stringify(goFieldOrder(e.status as unknown as Obj)), negotiated.get(res) ?? 'json');
  write(res, code, body, contentType, extra);
}

/** A plain-text answer (health checks, the router's 404 page). */
export function sendText(res: ServerResponse, code: number, text: string): void {
  write(res, code, Buffer.from(text), 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
}
