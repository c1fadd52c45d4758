/**
 * An admission webhook over HTTP (controller-runtime pkg/webhook/admission/webhook.go and http.go):
 * the body is read (7 MiB at most: 413 beyond), its Content-Type must be exactly application/json,
 * it is decoded as an AdmissionReview of admission.k8s.io/v1 or v1beta1 (a review without apiVersion
 * and kind is taken as v1, as the decoder's defaults do; one without a request gets an empty request,
 * as upstream's decoder into a preallocated request does), the handler's response is completed (uid
 * echoed, a code in its Status, patches encoded) and written back as an AdmissionReview of the
 * version received. Failures before the handler runs are `errored(400, …)` answers without uid and
 * without apiVersion or kind (`{"response":{…}}`), as upstream's writeResponse sends them; the HTTP
 * status is always 200. An exception
 * thrown by the handler is recovered into `errored(500, "panic: <message> [recovered]")` (upstream's
 * RecoverPanic, on by default), so a bug in a handler never brings the server down.
 *
 * Differences: Go's deserializer messages for malformed JSON name Go's parser; kubeloom reports
 * JavaScript's parser message after the same `couldn't get version/kind; json parse error: ` prefix.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultLogger, type Logger } from '../../tools/events/logger.ts';
import { completeResponse, errored, type Response } from './response.ts';
import type { AdmissionRequest, AdmissionReview } from './types.ts';

// http.go: maxRequestSize.
const maxRequestSize = 7 * 1024 * 1024;

const admissionGroup = 'admission.k8s.io';

/** What a handler receives besides the request. */
export interface AdmissionContext {
  /** The request being handled (controller-runtime's RequestFromContext). */
  readonly request: AdmissionRequest;
  /** Aborts when the API server gives up on the call (it closed the connection). */
  readonly signal: AbortSignal;
}

/** Decides on one AdmissionRequest (controller-runtime admission.Handler). */
export interface AdmissionHandler {
  /** Returns the verdict; a thrown error becomes a 500 answer. */
  handle(request: AdmissionRequest, context: AdmissionContext): Response | Promise<Response>;
}

/** A handler as a plain function. */
export type AdmissionHandlerFunc = (request: AdmissionRequest, context: AdmissionContext) => Response | Promise<Response>;

/** Options of {@link AdmissionWebhook}. */
export interface AdmissionWebhookOptions {
  /** Answer 500 instead of failing the HTTP request when the handler throws (default true, as RecoverPanic). */
  recoverPanic?: boolean;
  /** Log sink (default: errors to stderr). */
  logger?: Logger;
}

class DecodeError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * An admission webhook: {@link AdmissionWebhook.handle} runs the handler on a request,
 * {@link AdmissionWebhook.serveHTTP} serves it on a webhook server's path.
 *
 * @example
 * ```ts
 * server.register('/validate-v1-configmap', new AdmissionWebhook((req) => (req.object?.data ? allowed() : denied('no data'))));
 * ```
 */
export class AdmissionWebhook {
  readonly #handler: AdmissionHandler;
  readonly #recoverPanic: boolean;
  readonly #logger: Logger;

  constructor(handler: AdmissionHandler | AdmissionHandlerFunc, options: AdmissionWebhookOptions = {}) {
    this.#handler = typeof handler === 'function' ? { handle: handler } : handler;
    this.#recoverPanic = options.recoverPanic ?? true;
    this.#logger = options.logger ?? defaultLogger;
    this.serveHTTP = this.serveHTTP.bind(this);
  }

  /** Runs the handler (Webhook.Handle); exceptions are recovered into a 500 answer unless recoverPanic is off. */
  async handle(request: AdmissionRequest, signal: AbortSignal = new AbortController().signal): Promise<Response> {
    try {
      return await this.#handler.handle(request, { request, signal });
    } catch (err) {
      if (!this.#recoverPanic) throw err;
      const message = err instanceof Error ? err.message : String(err);
      this.#logger.error('observed a panic in webhook', { uid: request.uid, error: message });
      return errored(500, `panic: ${message} [recovered]`);
    }
  }

  /** Serves one HTTP request carrying an AdmissionReview. */
  async serveHTTP(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ac = new AbortController();
    res.once('close', () => ac.abort());
    let review: AdmissionReview;
    try {
      const body = await readBody(req);
      const contentType = req.headers['content-type'] ?? '';
      if (contentType !== 'application/json') throw new DecodeError(400, `contentType=${contentType}, expected application/json`);
      review = decodeReview(body);
    } catch (err) {
      const e = err instanceof DecodeError ? err : new DecodeError(400, (err as Error).message);
      this.#logger.error('unable to decode the request', { error: e.message });
      write(res, { response: completeResponse(errored(e.status, e.message), '') });
      return;
    }
    const request = review.request!;
    const response = await this.handle(request, ac.signal);
    // Go's TypeMeta order: kind, then apiVersion.
    write(res, { kind: review.kind, apiVersion: review.apiVersion, response: completeResponse(response, request.uid) });
  }
}

function write(res: ServerResponse, review: Record<string, unknown>): void {
  // json.NewEncoder(w).Encode: the JSON and a newline; Go's server sniffs the content type.
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(review)}\n`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxRequestSize) throw new DecodeError(413, `request entity is too large; limit is ${maxRequestSize} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) throw new DecodeError(400, 'request body is empty');
  return Buffer.concat(chunks).toString('utf8');
}

/** Decodes an AdmissionReview of admission.k8s.io/v1 or v1beta1 (missing type meta reads as v1). */
export function decodeReview(body: string): AdmissionReview {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw new DecodeError(400, `couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new DecodeError(400, `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const r = parsed as Record<string, unknown>;
  const apiVersion = typeof r.apiVersion === 'string' && r.apiVersion !== '' ? r.apiVersion : `${admissionGroup}/v1`;
  const kind = typeof r.kind === 'string' && r.kind !== '' ? r.kind : 'AdmissionReview';
  if (kind !== 'AdmissionReview' || (apiVersion !== `${admissionGroup}/v1` && apiVersion !== `${admissionGroup}/v1beta1`)) {
    throw new DecodeError(400, `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`);
  }
  const request = typeof r.request === 'object' && r.request !== null && !Array.isArray(r.request) ? (r.request as AdmissionRequest) : ({} as AdmissionRequest);
  return { apiVersion, kind, request: { ...request, uid: typeof request.uid === 'string' ? request.uid : '' } };
}
