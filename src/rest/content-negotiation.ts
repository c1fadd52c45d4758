/**
 * Content negotiation of the REST client (client-go's rest.ContentConfig: AcceptContentTypes and
 * ContentType, and the client negotiator of apimachinery `runtime/client_negotiator.go`).
 *
 * A config that asks for protobuf (`acceptContentTypes: 'application/vnd.kubernetes.protobuf,application/json'`)
 * sends that Accept header only for the group-versions the protobuf model knows (the built-in API of
 * Kubernetes 1.34 and older versions still in k8s.io/api); everything else (custom resources,
 * aggregated APIs, discovery) keeps JSON, as client-go's dynamic and discovery clients do. Answers are
 * decoded by their Content-Type, so a server that answers JSON anyway (a CRD, an old server, an error
 * page) is read as JSON. `contentType` protobuf encodes create and update bodies of built-in kinds;
 * patches are JSON by definition.
 */
import { hasProtobufGroupVersion } from '../runtime/protobuf/descriptors.ts';
import { decodeProtobuf, hasProtobufMagic, protobufContentType, type ProtobufDecodeOptions } from '../runtime/protobuf/decode.ts';
import { canEncodeProtobuf, encodeProtobuf } from '../runtime/protobuf/encode.ts';
import type { RestRequest } from './request.ts';

/** The protobuf media type (runtime.ContentTypeProtobuf). */
export const ContentTypeProtobuf = protobufContentType;

/** The Accept header of client-go's protobuf clients (and kubectl): protobuf, JSON when the server cannot. */
export const ProtobufAcceptContentTypes = `${protobufContentType},application/json`;

/** The content settings of a config (rest.ContentConfig). */
export interface ContentSettings {
  /** Accept header for built-in resources (default `application/json`). */
  acceptContentTypes?: string;
  /** Body type of create/update requests for built-in kinds (default `application/json`). */
  contentType?: string;
}

/** The `group/version` (`v1` for the core group) a resource path addresses, or undefined. */
export function groupVersionOfPath(path: string): string | undefined {
  const m = /^\/(?:api\/(v[^/]+)|apis\/([^/]+)\/([^/]+))(?:\/|$)/.exec(path);
  if (m === null) return undefined;
  return m[1] ?? `${m[2]}/${m[3]}`;
}

/** Whether the request addresses a resource whose objects have protobuf messages. */
function isBuiltin(req: RestRequest): boolean {
  // What a proxy subresource answers comes from the pod, node or service behind it.
  if (/\/proxy(?:\/|$)/.test(req.path)) return false;
  const gv = groupVersionOfPath(req.path);
  return gv !== undefined && (req.target !== undefined || req.watch === true) && hasProtobufGroupVersion(gv);
}

/** The Accept header to send for `req` under `settings` (its own when the request asked for something else than JSON). */
export function negotiatedAccept(settings: ContentSettings, req: RestRequest): string | undefined {
  const accept = settings.acceptContentTypes;
  const own = req.headers['accept'];
  if (accept === undefined || accept === '' || (own !== undefined && own !== 'application/json')) return own;
  return isBuiltin(req) ? accept : own;
}

/** A request body as it is sent. */
export interface NegotiatedBody {
  /** The bytes (a string is sent as UTF-8). */
  body: string | Buffer | undefined;
  /** Its Content-Type header. */
  contentType: string | undefined;
}

/** The body and Content-Type to send: protobuf for a create/update of a built-in kind when the config says so. */
export function negotiatedBody(settings: ContentSettings, req: RestRequest): NegotiatedBody {
  const contentType = req.headers['content-type'];
  if (req.body === undefined || settings.contentType !== protobufContentType || contentType !== 'application/json' || (req.verb !== 'POST' && req.verb !== 'PUT') || !isBuiltin(req)) {
    return { body: req.body, contentType };
  }
  let obj: unknown;
  try {
    obj = JSON.parse(req.body);
  } catch {
    return { body: req.body, contentType };
  }
  const o = obj as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || !canEncodeProtobuf(o.apiVersion, o.kind)) {
    return { body: req.body, contentType };
  }
  return { body: encodeProtobuf(o), contentType: protobufContentType };
}

/** Whether a Content-Type header names Kubernetes protobuf. */
export function isProtobufContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';', 1)[0]!.trim().toLowerCase() === protobufContentType;
}

/** Decodes a whole response body by its Content-Type (protobuf, else JSON). Throws what the decoder throws. */
export function decodeBody(body: Buffer, contentType: string | undefined, options: ProtobufDecodeOptions = {}): unknown {
  if (isProtobufContentType(contentType) || (contentType === undefined && hasProtobufMagic(body))) return decodeProtobuf(body, options);
  return JSON.parse(body.toString('utf8')) as unknown;
}
