/**
 * Calling one admission webhook over HTTPS (apiserver/pkg/util/webhook and
 * admission/plugin/webhook/request): the AdmissionReview v1 request, the POST to clientConfig.url or
 * to a Service resolved through a test-provided map (there is no cluster network), TLS verified
 * against caBundle (for a Service, the certificate must name `<name>.<namespace>.svc`), timeoutSeconds
 * on the server's clock, and the checks of the response (uid, apiVersion/kind, patch and patchType).
 * Failures are {@link WebhookCallError}s worded as Go's client errors, which the dispatcher turns
 * into upstream's `failed calling webhook` messages.
 */
import { request } from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import type { WebhookClientConfig } from '../../../api/admissionregistration/v1.ts';
import type { Clock } from '../../../util/clock/clock.ts';

/** The outcome of a failed call: why, in the words upstream's message would use. */
export class WebhookCallError extends Error {
  readonly code = 'WebhookCallFailed';
  /** True when the webhook answered but the answer was not a valid AdmissionReview. */
  readonly invalidResponse: boolean;
  constructor(message: string, invalidResponse = false) {
    super(message);
    this.name = 'WebhookCallError';
    this.invalidResponse = invalidResponse;
  }
}

/** Where a Service-backed webhook is reached: `namespace/name` (or `namespace/name:port`) → base URL. */
export type ServiceResolver = (namespace: string, name: string, port: number) => string | undefined;

/** The webhook's verdict. */
export interface AdmissionResponse {
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string; status?: string; details?: unknown };
  patch?: string;
  patchType?: string;
  warnings?: string[];
}

// The v1 default of timeoutSeconds.
const defaultTimeoutSeconds = 10;

/**
 * The URL a webhook is called at (with upstream's `?timeout=<n>s` when a timeout is given: admission
 * webhooks have one, conversion webhooks do not), and the host name its certificate must carry.
 */
export function webhookUrl(config: WebhookClientConfig, timeoutSeconds: number | undefined, resolve: ServiceResolver): { url: URL; serverName: string | undefined } {
  const timeout = timeoutSeconds === undefined ? '' : `?timeout=${timeoutSeconds}s`;
  if (config.url !== undefined) {
    const url = new URL(config.url);
    if (timeoutSeconds !== undefined) url.searchParams.set('timeout', `${timeoutSeconds}s`);
    return { url, serverName: undefined };
  }
  const svc = config.service;
  if (svc === undefined) throw new WebhookCallError('webhook has no clientConfig.url or clientConfig.service');
  const port = svc.port ?? 443;
  const base = resolve(svc.namespace, svc.name, port);
  if (base === undefined) throw new WebhookCallError(`Post "https://${svc.name}.${svc.namespace}.svc:${port}${svc.path ?? ''}${timeout}": service "${svc.name}" not found`);
  const url = new URL(`${base.replace(/\/+$/, '')}${svc.path ?? ''}`);
  if (timeoutSeconds !== undefined) url.searchParams.set('timeout', `${timeoutSeconds}s`);
  return { url, serverName: `${svc.name}.${svc.namespace}.svc` };
}

/** Go's net/http wording of a transport failure. */
function describe(err: NodeJS.ErrnoException, url: URL): string {
  const host = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port === '' ? '443' : url.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `x509: certificate is not valid for ${url.hostname}`;
    default:
      return err.message;
  }
}

/**
 * POSTs a JSON body to a webhook over HTTPS, verifying its certificate against `caBundle` (base64 PEM;
 * the system roots when empty) and, for a Service, the name `serverName`; aborts after `timeoutMs` on
 * `clock`. Returns the HTTP status and body; transport failures throw a {@link WebhookCallError} whose
 * message is Go's `Post "<url>": <reason>` (context deadline exceeded on timeout). Shared by admission
 * and CRD conversion webhooks, as apiserver/pkg/util/webhook's client is upstream.
 */
export async function postToWebhook(url: URL, serverName: string | undefined, caBundle: string | undefined, body: string, timeoutMs: number, clock: Clock): Promise<{ status: number; text: string }> {
  const ca = caBundle === undefined || caBundle === '' ? undefined : Buffer.from(caBundle, 'base64').toString('utf8');
  const controller = new AbortController();
  const timer = clock.afterFunc(timeoutMs, () => controller.abort());
  const post = `Post "${url.toString()}"`;
  try {
    return await new Promise<{ status: number; text: string }>((resolveCall, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': Buffer.byteLength(body) },
          ...(ca === undefined ? {} : { ca }),
          ...(serverName === undefined ? {} : { servername: serverName, checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(serverName, cert) }),
          signal: controller.signal,
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (data += c));
          res.on('end', () => resolveCall({ status: res.statusCode ?? 0, text: data }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  } catch (err) {
    if (controller.signal.aborted) throw new WebhookCallError(`${post}: context deadline exceeded`);
    throw new WebhookCallError(`${post}: ${describe(err as NodeJS.ErrnoException, url)}`);
  } finally {
    timer.stop();
  }
}

/**
 * POSTs an AdmissionReview and returns the verified response. `review` must carry `request.uid`.
 */
export async function callWebhook(config: WebhookClientConfig, timeoutSeconds: number | undefined, review: Record<string, unknown>, mutating: boolean, resolve: ServiceResolver, clock: Clock): Promise<AdmissionResponse> {
  const seconds = timeoutSeconds ?? defaultTimeoutSeconds;
  const { url, serverName } = webhookUrl(config, seconds, resolve);
  let text: string;
  let status: number;
  try {
    ({ status, text } = await postToWebhook(url, serverName, config.caBundle, JSON.stringify(review), seconds * 1000, clock));
  } catch (err) {
    if (err instanceof WebhookCallError) throw new WebhookCallError(`failed to call webhook: ${err.message}`);
    throw err;
  }
  if (status < 200 || status > 299) {
    throw new WebhookCallError(`failed to call webhook: an error on the server (${JSON.stringify(text.trim())}) has prevented the request from succeeding`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new WebhookCallError(`failed to call webhook: couldn't get version/kind; json parse error: ${notJsonDetail(text) ?? (err as Error).message}`);
  }
  // The client decodes into its v1 AdmissionReview and cannot convert another version.
  if (isRecord(parsed) && parsed.apiVersion === 'admission.k8s.io/v1beta1' && parsed.kind === 'AdmissionReview') {
    throw new WebhookCallError('failed to call webhook: converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion');
  }
  return verifyResponse(parsed, (review.request as { uid: string }).uid, mutating);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Go's reflect name of the struct the client decodes type meta into.
const typeMetaStruct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * What Go says about a body that is not JSON: the client reads it as YAML (sigs.k8s.io/yaml) and then fails
 * to decode the scalar or list it got into the type-meta struct; undefined for anything else.
 */
function notJsonDetail(text: string): string | undefined {
  let v: unknown;
  try {
    v = parseYaml(text, { version: '1.1' });
  } catch {
    return undefined;
  }
  const type = Array.isArray(v) ? 'array' : typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : undefined;
  return type === undefined ? undefined : `json: cannot unmarshal ${type} into Go value of type ${typeMetaStruct}`;
}

/** VerifyAdmissionResponse for v1 reviews. */
export function verifyResponse(parsed: unknown, uid: string, mutating: boolean): AdmissionResponse {
  const invalid = (m: string): WebhookCallError => new WebhookCallError(`received invalid webhook response: ${m}`, true);
  const review = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { apiVersion?: string; kind?: string; response?: Record<string, unknown> };
  const r = review.response;
  if (r === undefined || r === null || typeof r !== 'object') throw invalid('webhook response was absent');
  if (r.uid !== uid) throw invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid ?? '')}`);
  if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') {
    const [g, v] = (review.apiVersion ?? '').includes('/') ? (review.apiVersion ?? '').split('/') : ['', review.apiVersion ?? ''];
    throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${g === '' ? '' : `${g}/`}${v}, Kind=${review.kind ?? ''}`);
  }
  const patch = typeof r.patch === 'string' ? r.patch : undefined;
  const patchType = typeof r.patchType === 'string' ? r.patchType : undefined;
  if (mutating) {
    if (patch !== undefined && patchType === undefined) throw invalid('webhook returned response.patch but not response.patchType');
    if (patch === undefined && patchType !== undefined) throw invalid('webhook returned response.patchType but not response.patch');
    if (patchType !== undefined && patchType !== 'JSONPatch') throw invalid(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
  } else {
    if (patch !== undefined) throw invalid('validating webhook may not return response.patch');
    if (patchType !== undefined) throw invalid('validating webhook may not return response.patchType');
  }
  const out: AdmissionResponse = { allowed: r.allowed === true };
  if (typeof r.status === 'object' && r.status !== null) out.status = r.status as AdmissionResponse['status'] & object;
  if (patch !== undefined) out.patch = patch;
  if (patchType !== undefined) out.patchType = patchType;
  if (Array.isArray(r.warnings)) out.warnings = r.warnings.filter((w): w is string => typeof w === 'string');
  return out;
}
