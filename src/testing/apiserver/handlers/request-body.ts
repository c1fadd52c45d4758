/**
 * Request bodies: reading them within the size limit, decoding objects from JSON, YAML or (for a few
 * core kinds) protobuf, and checking their kind and apiVersion against the URL, with the apiserver's
 * wording for every failure.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { StatusError } from '../../../apimachinery/errors.ts';
import { isObject } from '../object-meta.ts';
import { decodeKubernetesProtobuf } from '../protobuf.ts';
import { apiVersionString, type ResourceRegistry } from '../resources.ts';
import { badRequest, invalid, invalidCause, tooLarge, unsupportedMediaType } from '../status.ts';
import type { Obj, Target } from './scope.ts';

// kubectl's generator commands send this; a few core kinds are decoded (see protobuf.ts).
const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/**
 * How request YAML is read: as go-yaml v2 reads it (sigs.k8s.io/yaml) — YAML 1.1, so `y`, `on` and `yes` are
 * booleans and `017` is octal — and the last of repeated keys wins.
 */
export const yamlOptions = { version: '1.1', uniqueKeys: false } as const;

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

/** Decodes an object body by its Content-Type; `kind` names the expected type in decode errors. */
export function decodeObject(req: IncomingMessage, body: Buffer, kind: string): Obj {
  const type = mediaType(req.headers['content-type']);
  let value: unknown;
  try {
    if (type === '' || type === 'application/json') value = JSON.parse(body.toString('utf8'));
    else if (type === 'application/yaml') value = parseYaml(body.toString('utf8'), yamlOptions);
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
}

/**
 * Checks kind and apiVersion against the URL's resource, defaulting them when absent; another served
 * version of the same resource is converted to the URL's. Ensures `metadata` is an object.
 */
export function checkType(registry: ResourceRegistry, t: Target, obj: Obj): void {
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
    if (group !== t.r.group || registry.lookup(group, version, t.r.resource) === undefined) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`);
    }
    obj.apiVersion = expected;
  }
  if (!isObject(obj.metadata)) obj.metadata = {};
}
