/**
 * Errors of the REST client: turning error responses into {@link StatusError}s (rest.Request's
 * transformResponse / newUnstructuredResponseError) and typed errors for failures that never
 * produced a response.
 */
import type { Status } from '../api/meta/v1.ts';
import { KubeloomError, StatusError, StatusReason, isStatusObject, newStatus, type StatusReasonValue } from '../apimachinery/errors.ts';

/** A request failed without an HTTP response (connection refused or reset, TLS failure, DNS). `cause` is the original error. */
export class NetworkError extends KubeloomError {
  /** The method and URL that failed (never includes credentials). */
  readonly request: string;
  constructor(request: string, cause: unknown) {
    super('ERR_KUBE_NETWORK', `${request}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.request = request;
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

/** The reason and default message errors.NewGenericServerResponse assigns to an HTTP code. */
function genericReason(code: number): [StatusReasonValue, string] {
  switch (code) {
    case 409:
      return [StatusReason.Conflict, 'the server reported a conflict'];
    case 404:
      return [StatusReason.NotFound, 'the server could not find the requested resource'];
    case 400:
      return [StatusReason.BadRequest, 'the server rejected our request for an unknown reason'];
    case 401:
      return [StatusReason.Unauthorized, 'the server has asked for the client to provide credentials'];
    case 403:
      return [StatusReason.Forbidden, 'the server does not allow access to the requested resource'];
    case 405:
      return [StatusReason.MethodNotAllowed, 'the server does not allow this method on the requested resource'];
    case 406:
      return [StatusReason.NotAcceptable, 'the server was unable to respond with a content type that the client supports'];
    case 410:
      return [StatusReason.Gone, 'the server no longer has the requested resource'];
    case 413:
      return [StatusReason.RequestEntityTooLarge, 'the server has rejected the request because it is too large'];
    case 415:
      return [StatusReason.UnsupportedMediaType, 'the server was unable to process the request because of an unsupported media type'];
    case 422:
      return [StatusReason.Invalid, 'the server rejected our request due to an error in our request'];
    case 429:
      return [StatusReason.TooManyRequests, 'the server has received too many requests and has asked us to try again later'];
    case 500:
      return [StatusReason.InternalError, 'an error on the server has prevented the request from succeeding'];
    case 503:
      return [StatusReason.ServiceUnavailable, 'the server is currently unable to handle the request'];
    case 504:
      return [StatusReason.Timeout, 'the server was unable to return a response in the time allotted, but may still be processing the request'];
    default:
      if (code >= 500) return [StatusReason.InternalError, 'an error on the server has prevented the request from succeeding'];
      return [StatusReason.Unknown, `the server responded with the status code ${code} but did not return more information`];
  }
}

/** Whether the Content-Type names a textual body (no header counts as text, as upstream's isTextResponse). */
function isTextContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true;
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media.startsWith('text/') || media === 'application/json' || media.endsWith('+json');
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
  /** For messages and details: what was being accessed. */
  group?: string;
  /** Resource of the request, for the synthesised Status's details. */
  resource?: string;
  /** Object name of the request, for the synthesised Status's details. */
  name?: string;
}

/**
 * Builds the error for a non-2xx response: the server's own Status when the body is one, otherwise a
 * synthesised Status whose reason follows the HTTP code (404 NotFound, 409 Conflict, 429
 * TooManyRequests, 5xx InternalError, ...) and whose message is the response text.
 */
export function errorFromResponse(resp: ErrorResponse): StatusError {
  const text = Buffer.from(resp.body.buffer, resp.body.byteOffset, resp.body.byteLength).toString('utf8');
  if (text.length > 0) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isStatusObject(parsed) && parsed.status !== 'Success') {
        const status: Status = { ...parsed };
        if (status.code === undefined || status.code === 0) status.code = resp.statusCode;
        return new StatusError(status);
      }
    } catch {
      // Not JSON: fall through to the synthesised Status.
    }
  }
  const [reason, defaultMessage] = genericReason(resp.statusCode);
  const bodyText = isTextContentType(resp.contentType) ? text.slice(0, maxUnstructuredResponseTextBytes).trim() : '';
  const message = bodyText !== '' ? bodyText : defaultMessage;
  const details: NonNullable<Status['details']> = { causes: [{ reason: 'UnexpectedServerResponse', message: bodyText !== '' ? bodyText : 'unknown' }] };
  if (resp.group !== undefined) details.group = resp.group;
  if (resp.resource !== undefined && resp.resource !== '') details.kind = resp.resource;
  if (resp.name !== undefined && resp.name !== '') details.name = resp.name;
  if (resp.retryAfterSeconds !== undefined && resp.retryAfterSeconds > 0 && (resp.statusCode === 429 || resp.statusCode >= 500)) {
    details.retryAfterSeconds = resp.retryAfterSeconds;
  }
  return new StatusError(newStatus(resp.statusCode, reason, message, details));
}

/** Turns a watch ERROR event's Status into the StatusError it stands for (410 Gone → `isExpired`). */
export function errorFromWatchStatus(status: Status): StatusError {
  return new StatusError({ ...status, code: status.code ?? 500 });
}
