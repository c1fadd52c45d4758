/**
 * Request bodies: reading them within the size limit, decoding objects from JSON, YAML or protobuf,
 * checking their kind and apiVersion against the URL, and decoding built-in kinds into their Go shape
 * with their defaults — with the apiserver's wording for every failure.
 *
 * Upstream: `apiserver/pkg/endpoints/handlers/create.go` and `update.go` (decoding and
 * transformDecodeError), the JSON, YAML and protobuf serializers of apimachinery.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { StatusError } from '../../apimachinery/errors.ts';
import { isObject } from '../object-meta.ts';
import { decodeKubernetesProtobuf, ProtobufDecodeError, protobufMediaType } from '../protobuf.ts';
import { setDefaults } from '../registry/defaults.ts';
import { apiVersionString, type ResourceRegistry } from '../resources.ts';
import { GoJsonSyntaxError, parseGoJson } from '../schema/go-json.ts';
import { structOfKind } from '../schema/scheme.ts';
import { decodeTyped, GoDecodeError } from '../schema/typed-json.ts';
import { badRequest, invalid, invalidCause, tooLarge, unsupportedMediaType } from '../status.ts';
import type { Obj, Target } from './scope.ts';

/** The media types object bodies may use. */
export const bodyMediaTypes = ['application/json', 'application/yaml', protobufMediaType] as const;

/** The media type of a Content-Type header, lower-cased and without parameters ('' when absent). */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A JSON value as text for a message: strings bare, anything else as JSON. */
export function display(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
}

/** summarizeData of the apiserver's decode errors: a JSON body's first 30 bytes, anything else in hex. */
function summarizeData(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

/** Reads the whole body; 413 as soon as the declared or received size passes `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
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

/** The Go type of the "couldn't get version/kind" probe, as Go prints it in a type error. */
const typeMetaProbe = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * YAML as sigs.k8s.io/yaml reads it: YAML 1.1 (so `y`, `yes`, `on` are booleans) converted to JSON,
 * where map keys become strings.
 */
export function parseKubeYaml(text: string): unknown {
  return parseYaml(text, { version: '1.1', mapAsMap: false, uniqueKeys: false });
}

function unrecognized(kind: string, detail: string, body: Buffer): StatusError {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${detail} (${summarizeData(body)})`);
}

/** Parses a body by its Content-Type into a JSON value; the apiserver's 400/415 on failure. */
export function parseBody(req: IncomingMessage, body: Buffer, kind: string): Obj {
  const type = mediaType(req.headers['content-type']);
  let value: unknown;
  if (type === '' || type === 'application/json') {
    try {
      value = parseGoJson(body.toString('utf8'));
    } catch (err) {
      if (err instanceof GoJsonSyntaxError) throw unrecognized(kind, `couldn't get version/kind; json parse error: ${err.message}`, body);
      throw err;
    }
  } else if (type === 'application/yaml') {
    try {
      value = parseKubeYaml(body.toString('utf8'));
    } catch (err) {
      throw unrecognized(kind, `yaml: ${err instanceof Error ? err.message.split('\n')[0]! : String(err)}`, body);
    }
  } else if (type === protobufMediaType) {
    try {
      value = decodeKubernetesProtobuf(body);
    } catch (err) {
      if (!(err instanceof ProtobufDecodeError)) throw err;
      if (err.message === 'missing the k8s protobuf prefix') throw unrecognized(kind, 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]', body);
      throw unrecognized(kind, err.message, body);
    }
  } else throw unsupportedMediaType(type, bodyMediaTypes);
  if (!isObject(value)) {
    const what = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'bool';
    if (value === null) return {};
    throw unrecognized(kind, `couldn't get version/kind; json parse error: json: cannot unmarshal ${what} into Go value of type ${typeMetaProbe}`, body);
  }
  return value;
}

// Versions of built-in groups that kube-apiserver's scheme still knows (it decodes them, then refuses them as another version).
const legacyVersions: Readonly<Record<string, readonly string[]>> = {
  apps: ['v1beta1', 'v1beta2'],
  extensions: ['v1beta1'],
  batch: ['v1beta1'],
  'rbac.authorization.k8s.io': ['v1alpha1', 'v1beta1'],
  'networking.k8s.io': ['v1beta1'],
  policy: ['v1beta1'],
  'scheduling.k8s.io': ['v1alpha1', 'v1beta1'],
  'coordination.k8s.io': ['v1beta1'],
  'events.k8s.io': ['v1beta1'],
  autoscaling: ['v2', 'v2beta1', 'v2beta2'],
};

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/**
 * Custom resources are decoded as unstructured objects, which must say what they are (POST and PUT):
 * without `kind` the body is refused as the unstructured JSON scheme refuses it (400, "Object 'Kind' is
 * missing in '<body>'", here the body re-encoded as compact JSON), without `apiVersion` as not matching
 * the URL's; another kind is a validation error (422 on field `kind`, from the CR strategy's
 * validation). Built-in kinds take both from the URL instead (see {@link checkType}).
 */
export function checkCustomResourceType(t: Target, obj: Obj): void {
  if (!t.r.custom) return;
  const expected = apiVersionString(t.r.group, t.r.version);
  if (obj.kind === undefined || obj.kind === '') {
    throw badRequest(`${t.r.kind} in version ${JSON.stringify(t.r.version)} cannot be handled as a ${t.r.kind}: Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
  }
  if (obj.apiVersion === undefined || obj.apiVersion === '') throw badRequest(`the API version in the data () does not match the expected API version (${expected})`);
  if (obj.kind !== t.r.kind) {
    const name = isObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
    throw invalid(t.r.group, display(obj.kind), name, [invalidCause('kind', obj.kind, `must be ${t.r.kind}`)]);
  }
  // The create and update handlers compare the body's group-version with the URL's: a body of another
  // served version is refused, not converted (apiserver pkg/endpoints/handlers/create.go, update.go).
  if (typeof obj.apiVersion === 'string' && obj.apiVersion !== expected && splitApiVersion(obj.apiVersion).group === t.r.group) {
    throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`);
  }
}

/**
 * Checks kind and apiVersion against the URL's resource, defaulting them when absent; another served
 * version of a custom resource is converted to the URL's. Ensures `metadata` is an object.
 */
export function checkType(registry: ResourceRegistry, t: Target, obj: Obj): void {
  const expected = apiVersionString(t.r.group, t.r.version);
  if (obj.kind === undefined || obj.kind === '') obj.kind = t.r.kind;
  if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = expected;
  const apiVersion = String(obj.apiVersion);
  const kind = String(obj.kind);
  const { group, version } = splitApiVersion(apiVersion);
  if (t.r.custom) {
    if (group === t.r.group && kind !== t.r.kind) {
      // The custom resource handler validates kind rather than converting.
      throw invalid(t.r.group, kind, isObject(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : '', [{ reason: 'FieldValueInvalid', field: 'kind', message: `Invalid value: ${JSON.stringify(kind)}: must be ${t.r.kind}` }]);
    }
    if (apiVersion !== expected) {
      if (group !== t.r.group || registry.lookup(group, version, t.r.resource) === undefined) throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
      obj.apiVersion = expected;
    }
  } else if (apiVersion !== expected || kind !== t.r.kind) {
    const registered = structOfKind(apiVersion, kind) !== undefined || (kind === t.r.kind && (legacyVersions[group]?.includes(version) ?? false));
    if (!registered) {
      throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${t.r.kind}: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`);
    }
    if (kind !== t.r.kind) {
      const internalGroup = t.r.group === '' ? 'core' : t.r.group.split('.')[0]!;
      throw badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${t.r.kind}: converting (${version}.${kind}) to (${internalGroup}.${t.r.kind}): unknown conversion`);
    }
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
  }
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
}

/**
 * Decodes a built-in kind into its Go shape and applies its defaults, as the apiserver's decoder does;
 * custom resources are left as they are. A value of the wrong type is a 400 in the decoder's words.
 */
export function typedObject(t: Target, obj: Obj): Obj {
  if (t.r.custom) return obj;
  const s = structOfKind(apiVersionString(t.r.group, t.r.version), t.r.kind);
  if (s === undefined) {
    // Kinds without a struct in the API model still get their defaults when decoded.
    setDefaults(t.r, obj);
    return obj;
  }
  let typed: Obj;
  try {
    typed = decodeTyped(s, obj);
  } catch (err) {
    if (err instanceof GoDecodeError) throw badRequest(`${t.r.kind} in version ${JSON.stringify(t.r.version)} cannot be handled as a ${t.r.kind}: ${err.message}`);
    throw err;
  }
  if (!isObject(typed.metadata)) typed.metadata = {};
  setDefaults(t.r, typed);
  return typed;
}

/** The whole decoding of an object body: parse, check kind and apiVersion, decode into the Go shape with defaults. */
export function decodeObject(registry: ResourceRegistry, req: IncomingMessage, body: Buffer, t: Target): Obj {
  const obj = parseBody(req, body, t.r.kind);
  // The JSON-level probe for kind and apiVersion refuses non-string values before anything else.
  for (const k of ['apiVersion', 'kind'] as const) {
    const v = obj[k];
    if (v !== undefined && v !== null && typeof v !== 'string') throw unrecognized(t.r.kind, `couldn't get version/kind; json parse error: json: cannot unmarshal ${typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? 'array' : 'object'} into Go struct field .${k} of type string`, body);
  }
  checkCustomResourceType(t, obj);
  checkType(registry, t, obj);
  return typedObject(t, obj);
}
