/**
 * Converting custom resources between versions through the CRD's conversion webhook
 * (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go, v1.24): the objects that are
 * not yet in the desired version are sent in one ConversionReview, in the first of the CRD's
 * `conversionReviewVersions` the server knows (v1beta1 or v1), to `clientConfig.url` or its Service,
 * trusting `caBundle`. The answer must be a ConversionReview (v1: of apiextensions.k8s.io/v1 with the
 * request's uid; v1beta1 answers are not checked for either), with result status Success and as many
 * objects as were sent, each of the desired apiVersion and the same kind, name, namespace and uid;
 * only its labels and annotations are taken (restoreObjectMeta: every other metadata field comes
 * from the object sent). Failures are errors worded as upstream's: `conversion webhook for
 * <apiVersion>, Kind=<kind> failed: <reason>`, the reason being the webhook's Failure message or the
 * HTTP client's error. An object with nothing but apiVersion and kind is converted without calling
 * the webhook (isEmptyUnstructuredObject).
 *
 * The call is bounded by the webhook client's 30 s timeout, which the URL carries as `?timeout=30s`
 * (seen on v1.24: `Post "https://127.0.0.1:1/convert?timeout=30s": dial tcp 127.0.0.1:1: connect:
 * connection refused`); the deadline runs on the server's clock.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookClientConfig } from '../../../api/apiextensions/v1.ts';
import type { Clock } from '../../../util/clock/clock.ts';
import { postToWebhook, webhookUrl, WebhookCallError, type ServiceResolver } from '../../admission/webhook/call.ts';
import { apiVersionString, type ApiResource } from '../../resources.ts';
import { unknownServerError } from '../../status.ts';
import { sortKeysDeep, type StoredObject } from '../../storage.ts';
import { applyDefaults } from './schema/defaulting.ts';
import { prune } from './schema/pruning.ts';

type Obj = Record<string, unknown>;

/** How long a conversion webhook call may take (the webhook client's timeout in kube-apiserver v1.24). */
export const conversionWebhookTimeoutMs = 30_000;

/** The conversion webhook of a CRD (`spec.conversion.webhook` with strategy Webhook). */
export interface ConversionWebhookConfig {
  /** The CRD's name (for messages). */
  readonly crdName: string;
  /** Where the webhook is and the CA its certificate chains to. */
  readonly clientConfig: WebhookClientConfig;
  /** The review versions the webhook accepts, in preference order. */
  readonly conversionReviewVersions: readonly string[];
}

/** What a conversion needs from the server. */
export interface ConverterContext {
  /** The server's clock (deadline of the call). */
  readonly clock: Clock;
  /** Where Service-backed webhooks are reached. */
  readonly resolveService: ServiceResolver;
}

/** A failed conversion; the handlers answer it as an internal error with this message. */
export class ConversionWebhookError extends Error {
  /** Stable identifier. */
  readonly code = 'ConversionWebhookFailed';
  constructor(message: string) {
    super(message);
    this.name = 'ConversionWebhookError';
  }
}

const isRecord = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

// schema.GroupVersionKind.String(): "<group>/<version>, Kind=<kind>" (no slash for the core group).
function gvkString(apiVersion: string, kind: string): string {
  return `${apiVersion}, Kind=${kind}`;
}

function isEmptyObject(o: Obj): boolean {
  const keys = Object.keys(o);
  return keys.length === 2 && keys.includes('apiVersion') && keys.includes('kind');
}

const metaOf = (o: Obj): Obj => (isRecord(o.metadata) ? o.metadata : {});

// validateConvertedObject: kind, name, namespace and uid must be unchanged.
function validateConverted(original: Obj, converted: Obj): string | undefined {
  const a = metaOf(original);
  const b = metaOf(converted);
  if (str(original.kind) !== str(converted.kind)) return `must have the same kind: ${str(original.kind)} != ${str(converted.kind)}`;
  if (str(a.name) !== str(b.name)) return `must have the same name: ${str(a.name)} != ${str(b.name)}`;
  if (str(a.namespace) !== str(b.namespace)) return `must have the same namespace: ${str(a.namespace)} != ${str(b.namespace)}`;
  if (str(a.uid) !== str(b.uid)) return `must have the same UID: ${str(a.uid)} != ${str(b.uid)}`;
  return undefined;
}

// restoreObjectMeta: the original's metadata, with the converted object's labels and annotations.
function restoreObjectMeta(original: Obj, converted: Obj): string | undefined {
  const response = converted.metadata;
  if (response === undefined) return 'missing metadata in converted object';
  if (!isRecord(response)) return `invalid metadata of type ${goType(response)} in converted object`;
  const meta: Obj = structuredClone(metaOf(original));
  for (const field of ['labels', 'annotations']) {
    const v = response[field];
    if (v === undefined || v === null) {
      delete meta[field];
      continue;
    }
    if (!isRecord(v)) return `invalid metadata.${field} of type ${goType(v)} in converted object`;
    for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') return `metadata.${field}[${k}] must be a string, but is ${goType(x)} in converted object`;
    meta[field] = v;
  }
  converted.metadata = meta;
  return undefined;
}

// The Go type encoding/json decodes a JSON value into (for messages).
function goType(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'map[string]interface {}';
  }
}

/**
 * The conversion review sent for `objects` (createConversionReviewObjects): the request, and an empty
 * response as Go's struct encodes it.
 */
function reviewFor(versions: readonly string[], objects: Obj[], desiredAPIVersion: string, uid: string): { review: Obj; version: string } {
  for (const v of versions) {
    if (v !== 'v1beta1' && v !== 'v1') continue;
    return {
      version: v,
      review: {
        kind: 'ConversionReview',
        apiVersion: `apiextensions.k8s.io/${v}`,
        request: { uid, desiredAPIVersion, objects },
        response: { uid: '', convertedObjects: null, result: { metadata: {} } },
      },
    };
  }
  throw new ConversionWebhookError('no supported conversion review versions');
}

// The rest client's error for a non-2xx answer without a Status body (errors.NewGenericServerResponse).
function httpError(status: number, text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isRecord(parsed) && parsed.kind === 'Status' && typeof parsed.message === 'string') return parsed.message;
  const trimmed = text.trim();
  switch (status) {
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'the server does not allow access to the requested resource';
    case 404:
      return 'the server could not find the requested resource';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      if (status >= 500) return `an error on the server (${JSON.stringify(trimmed === '' ? 'unknown' : trimmed)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${status} but did not return more information`;
  }
}

/** getConvertedObjectsFromResponse: the converted objects, or the reason the answer is refused. */
function convertedObjects(version: string, parsed: unknown, uid: string): Obj[] {
  const review = isRecord(parsed) ? parsed : {};
  if (version === 'v1') {
    const gv = str(review.apiVersion);
    const [g, v] = gv.includes('/') ? gv.split('/', 2) : ['', gv];
    if (gv !== 'apiextensions.k8s.io/v1' || review.kind !== 'ConversionReview') {
      throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${g === '' ? '' : `${g}/`}${v}, Kind=${str(review.kind)}`);
    }
  }
  const response = review.response;
  if (!isRecord(response)) throw new Error('no response provided');
  if (version === 'v1' && str(response.uid) !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(str(response.uid))}`);
  const result = isRecord(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (str(result.message) !== '') throw new Error(str(result.message));
    throw new Error(`response.result.status was '${str(result.status)}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? (response.convertedObjects as Obj[]) : [];
}

/**
 * An object as kube-apiserver v1.24 sends it in a review: without metadata.resourceVersion (the storage
 * layer converts what it reads before the versioner sets the revision, and clears it before it encodes
 * what it writes: etcd3 store decode / PrepareObjectForStorage) and with its keys sorted, as Go writes an
 * unstructured object (checked against v1.24). The revision is restored from the original afterwards
 * with the rest of its metadata.
 */
function sentForm(o: Obj): Obj {
  const sorted = sortKeysDeep(o) as Obj;
  if (isRecord(sorted.metadata) && 'resourceVersion' in sorted.metadata) {
    const { resourceVersion: _rv, ...metadata } = sorted.metadata;
    return { ...sorted, metadata };
  }
  return sorted;
}

/**
 * Converts `objects` (all of one kind) to `desiredAPIVersion` through the CRD's webhook, as
 * webhookConverter.Convert does for a single object (`list` false) or an UnstructuredList (`list`
 * true, named `listGvk` in messages). Objects already in that version are kept and not sent; nothing
 * is sent when none needs converting. Throws a {@link ConversionWebhookError}.
 */
export async function convertWithWebhook(config: ConversionWebhookConfig, objects: readonly Obj[], desiredAPIVersion: string, ctx: ConverterContext, listGvk?: string): Promise<Obj[]> {
  const pending = objects.map((o, i) => ({ o, i })).filter(({ o }) => str(o.apiVersion) !== desiredAPIVersion && !(listGvk === undefined && isEmptyObject(o)));
  // An empty object converts as the no-op converter would: only its apiVersion changes.
  const out = objects.map((o) => (str(o.apiVersion) !== desiredAPIVersion && isEmptyObject(o) ? { ...o, apiVersion: desiredAPIVersion } : o));
  if (pending.length === 0) return out;
  const first = pending[0]!.o;
  const inGvk = listGvk ?? gvkString(str(first.apiVersion), str(first.kind));
  const failed = (reason: string): ConversionWebhookError => new ConversionWebhookError(`conversion webhook for ${inGvk} failed: ${reason}`);
  const uid = randomUUID();
  const { review, version } = reviewFor(config.conversionReviewVersions, pending.map(({ o }) => sentForm(o)), desiredAPIVersion, uid);
  let status: number;
  let text: string;
  try {
    const { url, serverName } = webhookUrl(config.clientConfig, conversionWebhookTimeoutMs / 1000, ctx.resolveService);
    ({ status, text } = await postToWebhook(url, serverName, config.clientConfig.caBundle, JSON.stringify(review), conversionWebhookTimeoutMs, ctx.clock));
  } catch (err) {
    if (err instanceof WebhookCallError) throw failed(err.message);
    throw err;
  }
  if (status < 200 || status > 299) throw failed(httpError(status, text));
  let converted: Obj[];
  try {
    converted = convertedObjects(version, JSON.parse(text), uid);
  } catch (err) {
    throw failed(err instanceof SyntaxError ? `couldn't get version/kind; json parse error: ${err.message}` : (err as Error).message);
  }
  if (converted.length !== pending.length) {
    if (listGvk === undefined) throw failed('no objects returned');
    throw new ConversionWebhookError(`conversion webhook for ${inGvk} returned ${converted.length} objects, expected ${pending.length}`);
  }
  pending.forEach(({ o, i }, n) => {
    const c = isRecord(converted[n]) ? structuredClone(converted[n]) : {};
    const where = listGvk === undefined ? 'invalid object at index 0' : `invalid converted object at index ${n}`;
    const cv = str(c.apiVersion);
    if (cv !== desiredAPIVersion) throw new ConversionWebhookError(`conversion webhook for ${inGvk} returned ${where}: invalid groupVersion (expected ${desiredAPIVersion}, received ${cv})`);
    if (str(c.kind) !== str(o.kind)) throw new ConversionWebhookError(`conversion webhook for ${inGvk} returned ${where}: invalid kind (expected ${str(o.kind)}, received ${str(c.kind)})`);
    const invalid = validateConverted(o, c);
    if (invalid !== undefined) throw new ConversionWebhookError(`conversion webhook for ${inGvk} returned ${listGvk === undefined ? 'invalid object' : where}: ${invalid}`);
    const badMeta = restoreObjectMeta(o, c);
    if (badMeta !== undefined) throw new ConversionWebhookError(`conversion webhook for ${inGvk} returned invalid metadata${listGvk === undefined ? '' : ` in object at index ${n}`}: ${badMeta}`);
    out[i] = c;
  });
  return out;
}

/** The conversion webhook of a CRD object when its strategy is Webhook; undefined otherwise. */
export function conversionWebhookOf(crd: Obj): ConversionWebhookConfig | undefined {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const conversion = isRecord(spec.conversion) ? spec.conversion : {};
  if (conversion.strategy !== 'Webhook' || !isRecord(conversion.webhook)) return undefined;
  const webhook = conversion.webhook;
  const clientConfig = isRecord(webhook.clientConfig) ? (webhook.clientConfig as WebhookClientConfig) : {};
  const versions = Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions.filter((v): v is string => typeof v === 'string') : [];
  return { crdName: str(isRecord(crd.metadata) ? crd.metadata.name : ''), clientConfig, conversionReviewVersions: versions };
}

/** Whether objects of `r` convert between versions through a webhook. */
export function convertsWithWebhook(r: ApiResource): r is ApiResource & { conversionWebhook: ConversionWebhookConfig } {
  return r.custom && r.conversionWebhook !== undefined;
}

/** The converter context of a request scope. */
export function converterContext(clock: Clock, resolveService: ServiceResolver | undefined): ConverterContext {
  return { clock, resolveService: resolveService ?? (() => undefined) };
}

/**
 * A custom resource converted to `version` of `r` through its webhook, then pruned to that version's
 * schema as the CR handler's schemaCoercingConverter does after every conversion (and, for the storage
 * version, defaulted as the storage decoder would); `obj` itself when it is in that version already or
 * `r` converts without a webhook. A failed call is kube-apiserver's answer to it: a 500 without reason
 * whose message is the converter's error.
 */
export async function objectInVersion(r: ApiResource, obj: Obj, version: string, ctx: ConverterContext): Promise<Obj> {
  const apiVersion = apiVersionString(r.group, version);
  if (!convertsWithWebhook(r) || obj.apiVersion === apiVersion) return obj;
  let converted: Obj;
  try {
    [converted] = (await convertWithWebhook(r.conversionWebhook, [obj], apiVersion, ctx)) as [Obj];
  } catch (err) {
    if (err instanceof ConversionWebhookError) throw unknownServerError(err.message);
    throw err;
  }
  const storage = r.storage !== undefined && r.storage.version === version;
  const cs = storage ? r.storage!.schema : version === r.version ? r.schema : undefined;
  // apiVersion first, as every stored and encoded object has it (the encoders look for it there).
  const { apiVersion: _a, ...rest } = converted;
  const out: Obj = { apiVersion, ...rest };
  if (cs !== undefined) {
    prune(out, cs.schema, true);
    if (storage) applyDefaults(out, cs.schema);
  }
  return out;
}

/** A stored object as `r`'s version (the request's) sees it, converted through the webhook when it is stored in another. */
export async function storedInRequestVersion(r: ApiResource, s: StoredObject, ctx: ConverterContext): Promise<StoredObject> {
  const obj = await objectInVersion(r, s.obj, r.version, ctx);
  return obj === s.obj ? s : { ...s, obj, json: JSON.stringify(obj) };
}

/**
 * An encoded object (as the handlers' encoders return it; for resources converted by a webhook they
 * leave the stored version alone) in the version of `r`, converted through the webhook when needed.
 */
export async function encodedInRequestVersion(r: ApiResource, json: string, ctx: ConverterContext): Promise<string> {
  if (!convertsWithWebhook(r)) return json;
  const obj = JSON.parse(json) as Obj;
  const converted = await objectInVersion(r, obj, r.version, ctx);
  return converted === obj ? json : JSON.stringify(converted);
}
