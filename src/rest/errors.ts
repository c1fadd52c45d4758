/**
 * Errors of the REST client: turning error responses into {@link StatusError}s (rest.Request's
 * transformResponse / newUnstructuredResponseError) and typed errors for failures that never
 * produced a response.
 */
import type { Status } from '../api/meta/v1.ts';
import { KubeloomError, StatusError, StatusReason, isStatusObject, newStatus, type StatusReasonValue } from '../apimachinery/errors.ts';
import { decodeProtobuf, hasProtobufMagic } from '../runtime/protobuf/decode.ts';
import type { Reachability } from './reachability.ts';

/** A request failed without an HTTP response (connection refused or reset, TLS failure, DNS). `cause` is the original error. */
export class NetworkError extends KubeloomError {
  /** The method and URL that failed (never includes credentials). */
  readonly request: string;
  /**
   * The reachability of the client that sent it (see {@link reachabilityOf}): a reflector waits on it
   * to learn when the server is back. Not enumerable, so that logging the error stays short.
   */
  declare readonly reachability: Reachability | undefined;
  constructor(request: string, cause: unknown, reachability?: Reachability) {
    super('ERR_KUBE_NETWORK', `${request}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.request = request;
    Object.defineProperty(this, 'reachability', { value: reachability, enumerable: false });
  }
}

/** The {@link Reachability} of the client a {@link NetworkError} (in `err` or its causes) came from. */
export function reachabilityOf(err: unknown): Reachability | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e !== null && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    if (e instanceof NetworkError && e.reachability !== undefined) return e.reachability;
  }
  return undefined;
}

/**
 * The request was made on, or was still open on, a client that was closed (`RestClient.close()`).
 * Not a network fault: nothing retries it, since every later attempt would fail the same way.
 */
export class ClientClosedError extends KubeloomError {
  /** The method and URL that was refused or cut (never includes credentials). */
  readonly request: string;
  constructor(request: string) {
    super('ERR_KUBE_CLIENT_CLOSED', `${request}: the client was closed`);
    this.request = request;
  }
}

/**
 * The credential provider (an exec plugin) failed, so no request was sent: client-go's exec round
 * tripper's `getting credentials: <err>`. `cause` is the provider's own error (ExecPluginFailedError,
 * ExecPluginOutputError, ...).
 */
export class GettingCredentialsError extends KubeloomError {
  constructor(cause: unknown) {
    super('ERR_KUBE_GETTING_CREDENTIALS', `getting credentials: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A request did not complete within its timeout (RestConfig.timeoutMs or the per-call timeoutMs). */
export class RequestTimeoutError extends KubeloomError {
  /** The timeout that expired. */
  readonly timeoutMs: number;
  constructor(request: string, timeoutMs: number) {
    super('ERR_KUBE_REQUEST_TIMEOUT', `${request}: no response within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A request received no byte of its response (headers or body) for `idleMs`, so its connection was
 * taken for half-open and closed: the HTTP/1.1 counterpart of client-go's HTTP/2 connection health
 * check, which closes a connection that stays silent and does not answer a ping.
 */
export class ReadIdleTimeoutError extends KubeloomError {
  /** The method and URL that went unanswered. */
  readonly request: string;
  /** How long the response stayed silent. */
  readonly idleMs: number;
  constructor(request: string, idleMs: number) {
    super('ERR_KUBE_READ_IDLE_TIMEOUT', `${request}: no response bytes for ${idleMs} ms; assuming a broken connection`);
    this.request = request;
    this.idleMs = idleMs;
  }
}

/** A watch stream carried a line that is not a watch event, or ended in the middle of one. */
export class WatchDecodeError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_WATCH_DECODE', message, options);
  }
}

/** A response body could not be decoded as the JSON the API promises. */
export class ResponseDecodeError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_KUBE_RESPONSE_DECODE', message, options);
  }
}

/** Refused to send credentials in clear text to a non-loopback host (RestConfig.allowInsecureCredentials). */
export class InsecureCredentialsError extends KubeloomError {
  constructor(host: string) {
    super('ERR_KUBE_INSECURE_CREDENTIALS', `refusing to send credentials over plain HTTP to ${host}; use https or set allowInsecureCredentials`);
  }
}

// client-go caps how much of a non-Status body ends up in an error (maxUnstructuredResponseTextBytes).
const maxUnstructuredResponseTextBytes = 2048;

/**
 * The reason and message errors.NewGenericServerResponse assigns to an HTTP code. Most codes get a
 * fixed message; for 403, 406 and 415 the server's text is the message, and an unknown 5xx quotes it.
 */
function genericReason(code: number, verb: string | undefined, serverMessage: string): [StatusReasonValue, string] {
  switch (code) {
    case 409:
      // A conflicting create means the name is taken (upstream checks the verb, not the body).
      return [verb === 'POST' ? StatusReason.AlreadyExists : StatusReason.Conflict, 'the server reported a conflict'];
    case 404:
      return [StatusReason.NotFound, 'the server could not find the requested resource'];
    case 400:
      return [StatusReason.BadRequest, 'the server rejected our request for an unknown reason'];
    case 401:
      return [StatusReason.Unauthorized, 'the server has asked for the client to provide credentials'];
    case 403:
      // The server's text says who tried to do what.
      return [StatusReason.Forbidden, serverMessage];
    case 406:
      return [StatusReason.NotAcceptable, serverMessage === '' || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage];
    case 415:
      return [StatusReason.UnsupportedMediaType, serverMessage];
    case 405:
      return [StatusReason.MethodNotAllowed, 'the server does not allow this method on the requested resource'];
    case 422:
      return [StatusReason.Invalid, 'the server rejected our request due to an error in our request'];
    case 503:
      return [StatusReason.ServiceUnavailable, 'the server is currently unable to handle the request'];
    case 504:
      return [StatusReason.Timeout, 'the server was unable to return a response in the time allotted, but may still be processing the request'];
    case 429:
      return [StatusReason.TooManyRequests, 'the server has received too many requests and has asked us to try again later'];
    default:
      if (code >= 500) return [StatusReason.InternalError, `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`];
      return [StatusReason.Unknown, `the server responded with the status code ${code} but did not return more information`];
  }
}

/** Whether the body is text worth quoting: no Content-Type, or a `text/*` one (upstream's isTextResponse). */
function isTextContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true;
  return contentType.split(';')[0]!.trim().toLowerCase().startsWith('text/');
}

/** Facts about an error response needed to build its Status. */
export interface ErrorResponse {
  /** HTTP status code. */
  statusCode: number;
  /** Content-Type of the body. */
  contentType?: string;
  /** The response body. */
  body: Uint8Array;
  /** Parsed Retry-After seconds, if the header was a valid integer. */
  retryAfterSeconds?: number;
  /** The request's HTTP method (a 409 to a POST is AlreadyExists). */
  verb?: string;
  /** For messages and details: what was being accessed. */
  group?: string;
  /** Resource of the request, for the synthesised Status's details. */
  resource?: string;
  /** Object name of the request, for the synthesised Status's details. */
  name?: string;
}

/**
 * Builds the error for a non-2xx response (rest.Request's transformResponse and Result.Error): the
 * server's own Status when the body is a `kind: Status` with `status: Failure`; otherwise a Status
 * synthesised as errors.NewGenericServerResponse does — the reason follows the HTTP code (404
 * NotFound, 409 Conflict or, for a POST, AlreadyExists, 429 TooManyRequests, 5xx InternalError,
 * ...), the message is the code's standard text followed by `(verb resource name)`, and the body's
 * text (when it is `text/*` or untyped, at most 2 KiB) is kept as the UnexpectedServerResponse cause.
 */
export function errorFromResponse(resp: ErrorResponse): StatusError {
  const raw = Buffer.from(resp.body.buffer, resp.body.byteOffset, resp.body.byteLength);
  if (raw.length > 0) {
    try {
      const parsed: unknown = hasProtobufMagic(raw) ? decodeProtobuf(raw) : JSON.parse(raw.toString('utf8'));
      if (isStatusObject(parsed) && parsed.status === 'Failure') {
        const status: Status = { ...parsed };
        // A Status without a code still names the failure: the HTTP code stands in (upstream leaves 0).
        if (status.code === undefined || status.code === 0) status.code = resp.statusCode;
        return new StatusError(status);
      }
    } catch {
      // Not JSON: fall through to the synthesised Status.
    }
  }
  const serverMessage = isTextContentType(resp.contentType) ? raw.subarray(0, maxUnstructuredResponseTextBytes).toString('utf8').trim() : 'unknown';
  const [reason, genericMessage] = genericReason(resp.statusCode, resp.verb, serverMessage);
  let message = genericMessage;
  const group = resp.resource !== undefined && resp.resource !== '' ? (resp.group ?? '') : '';
  const resource = resp.resource ?? '';
  const name = resp.name ?? '';
  if (resource !== '') {
    const qualified = group === '' ? resource : `${resource}.${group}`;
    const verb = (resp.verb ?? '').toLowerCase();
    message = name !== '' ? `${message} (${verb} ${qualified} ${name})` : `${message} (${verb} ${qualified})`;
  }
  // Empty fields are left out, as Go's omitempty leaves them out of the JSON form.
  const details: NonNullable<Status['details']> = { causes: [{ reason: 'UnexpectedServerResponse', message: serverMessage }] };
  if (group !== '') details.group = group;
  if (resource !== '') details.kind = resource;
  if (name !== '') details.name = name;
  if (resp.retryAfterSeconds !== undefined && resp.retryAfterSeconds !== 0) details.retryAfterSeconds = resp.retryAfterSeconds;
  return new StatusError(newStatus(resp.statusCode, reason, message, details));
}

/** Turns a watch ERROR event's Status into the StatusError it stands for (410 Gone → `isExpired`). */
export function errorFromWatchStatus(status: Status): StatusError {
  return new StatusError({ ...status, code: status.code ?? 500 });
}
