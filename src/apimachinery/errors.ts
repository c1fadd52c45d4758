/**
 * API errors, mirroring k8s.io/apimachinery/pkg/api/errors.
 *
 * Every failed API call surfaces as a {@link StatusError} wrapping the server's `Status` object.
 * The `is*` predicates follow client-go's rule: they look at the Status `reason` first, and fall back
 * to the HTTP `code` only when the reason is not one of the well-known reasons. They walk the `cause`
 * chain, so a StatusError wrapped by another error is still recognised.
 */
import type { Status, StatusDetails } from '../api/meta/v1.ts';
import { causesOf, fieldErrorString, type FieldError } from './validation/field.ts';

export type { Status, StatusDetails, StatusCause } from '../api/meta/v1.ts';

/** The well-known `Status.reason` values (metav1.StatusReason*). */
export const StatusReason = {
  /** No reason given; the HTTP status code decides. */
  Unknown: '',
  /** 401: the request carried no valid credentials. */
  Unauthorized: 'Unauthorized',
  /** 403: the user may not perform the action. */
  Forbidden: 'Forbidden',
  /** 404: the object does not exist. */
  NotFound: 'NotFound',
  /** 409: an object with that name already exists (create). */
  AlreadyExists: 'AlreadyExists',
  /** 409: the write was based on an out-of-date resourceVersion (retry with the latest). */
  Conflict: 'Conflict',
  /** 410: the resource is no longer available at this version. */
  Gone: 'Gone',
  /** 422: the object failed validation; `details.causes` lists the fields. */
  Invalid: 'Invalid',
  /** 500 (or 504): the server could not finish in time; the request may be retried. */
  ServerTimeout: 'ServerTimeout',
  /** 500: the server could not read an object from storage (corrupt data). */
  StoreReadError: 'StorageReadError',
  /** 504: the request's own timeout expired before it finished. */
  Timeout: 'Timeout',
  /** 429: throttled; `details.retryAfterSeconds` says when to retry. */
  TooManyRequests: 'TooManyRequests',
  /** 400: the request itself is malformed. */
  BadRequest: 'BadRequest',
  /** 405: the verb is not supported on this resource. */
  MethodNotAllowed: 'MethodNotAllowed',
  /** 406: none of the Accept types can be served. */
  NotAcceptable: 'NotAcceptable',
  /** 413: the request body is too large. */
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  /** 415: the Content-Type is not supported (e.g. a patch type). */
  UnsupportedMediaType: 'UnsupportedMediaType',
  /** 500: an unexpected server error. */
  InternalError: 'InternalError',
  /** 410: the resourceVersion (or continue token) is too old; relist. */
  Expired: 'Expired',
  /** 503: the server is temporarily unavailable. */
  ServiceUnavailable: 'ServiceUnavailable',
} as const;

/** A `Status.reason` value; any string is allowed, the well-known ones are listed in {@link StatusReason}. */
export type StatusReasonValue = (typeof StatusReason)[keyof typeof StatusReason] | (string & {});

// Unknown ('') is deliberately absent, as upstream: an empty reason falls back to the HTTP code.
const knownReasons: ReadonlySet<string> = new Set(Object.values(StatusReason).filter((r) => r !== ''));

/** Base class of every kubeloom error. `code` is a stable string identifier for programmatic checks. */
export class KubeloomError extends Error {
  /** A stable identifier of the failure (`ERR_…`), for programmatic checks instead of message matching. */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * An error returned by the API server (or synthesised from a non-Status error response),
 * carrying the full `Status` object.
 */
export class StatusError extends KubeloomError {
  /** The Status the server sent (kind Status, status Failure). */
  readonly status: Status;

  constructor(status: Status, options?: { cause?: unknown }) {
    super('ERR_KUBE_STATUS', status.message || `the server returned ${status.code ?? 'an error'} (${status.reason || 'Unknown'})`, options);
    this.status = status;
  }

  /** The HTTP status code (Status.code), 0 if absent. */
  get statusCode(): number {
    return this.status.code ?? 0;
  }

  /** The machine-readable reason (Status.reason), '' if absent. */
  get reason(): StatusReasonValue {
    return this.status.reason ?? '';
  }

  /** Status.details, if any. */
  get details(): StatusDetails | undefined {
    return this.status.details;
  }
}

/**
 * True when `err` or any error it wraps — its `cause` chain and the `errors` of an AggregateError, as Go's
 * errors.Is walks Unwrap — satisfies `test`. Cycles are followed once.
 */
export function someErrorInChain(err: unknown, test: (e: object) => boolean): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length > 0) {
    const e = stack.pop();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (test(e)) return true;
    stack.push((e as { cause?: unknown }).cause);
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) stack.push(...(inner as unknown[]));
  }
  return false;
}

/** Builds a failure Status object with the standard kind and apiVersion. */
export function newStatus(code: number, reason: StatusReasonValue, message: string, details?: StatusDetails): Status {
  // metav1.Status's Go field order (details before code), which is the order kube-apiserver writes.
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  if (details !== undefined) status.details = details;
  status.code = code;
  return status;
}

/** True when `value` looks like a metav1.Status object. */
export function isStatusObject(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

/** Finds the first {@link StatusError} in `err`'s cause chain (or an object exposing a Status). */
export function statusOf(err: unknown): Status | undefined {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current !== undefined && current !== null && !seen.has(current)) {
    seen.add(current);
    if (current instanceof StatusError) return current.status;
    if (typeof current !== 'object') return undefined;
    const maybe = (current as { status?: unknown }).status;
    if (isStatusObject(maybe)) return maybe;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The Status reason of `err`, or '' (Unknown) when it carries no Status. */
export function reasonForError(err: unknown): StatusReasonValue {
  return statusOf(err)?.reason ?? '';
}

function reasonAndCode(err: unknown): [string, number] {
  const status = statusOf(err);
  return [status?.reason ?? '', status?.code ?? 0];
}

function byReasonOrCode(reason: string, code: number): (err: unknown) => boolean {
  return (err) => {
    const [r, c] = reasonAndCode(err);
    if (r === reason) return true;
    return !knownReasons.has(r) && c === code;
  };
}

function byReasonOnly(reason: string): (err: unknown) => boolean {
  return (err) => reasonForError(err) === reason;
}

/** The requested resource does not exist (reason NotFound, or HTTP 404 with an unknown reason). */
export const isNotFound = byReasonOrCode(StatusReason.NotFound, 404);
/** The resource being created already exists (reason AlreadyExists only: a bare 409 is a Conflict). */
export const isAlreadyExists = byReasonOnly(StatusReason.AlreadyExists);
/** A write conflicted with the stored object, e.g. a stale resourceVersion (reason Conflict, or 409). */
export const isConflict = byReasonOrCode(StatusReason.Conflict, 409);
/** The request was invalid (reason Invalid, or 422). */
export const isInvalid = byReasonOrCode(StatusReason.Invalid, 422);
/** The request was malformed (reason BadRequest, or 400). */
export const isBadRequest = byReasonOrCode(StatusReason.BadRequest, 400);
/** The requested resource version is no longer available (reason Gone, or 410). */
export const isGone = byReasonOrCode(StatusReason.Gone, 410);
/** The requested resource version or continue token has expired (reason Expired only). */
export const isResourceExpired = byReasonOnly(StatusReason.Expired);
/** Either {@link isGone} or {@link isResourceExpired}: the reflector relists on this. */
export function isExpired(err: unknown): boolean {
  return isGone(err) || isResourceExpired(err);
}
/** The server asked the client to slow down (reason TooManyRequests, or 429 whatever the reason). */
export function isTooManyRequests(err: unknown): boolean {
  const [r, c] = reasonAndCode(err);
  return r === StatusReason.TooManyRequests || c === 429;
}
/** The request was forbidden (reason Forbidden, or 403). */
export const isForbidden = byReasonOrCode(StatusReason.Forbidden, 403);
/** The request lacked valid credentials (reason Unauthorized, or 401). */
export const isUnauthorized = byReasonOrCode(StatusReason.Unauthorized, 401);
/** The verb is not supported on the resource (reason MethodNotAllowed, or 405). */
export const isMethodNotSupported = byReasonOrCode(StatusReason.MethodNotAllowed, 405);
/** The server could not complete the operation in time and suggests retrying (reason ServerTimeout only). */
export const isServerTimeout = byReasonOnly(StatusReason.ServerTimeout);
/** The request timed out (reason Timeout, or 504). */
export const isTimeout = byReasonOrCode(StatusReason.Timeout, 504);
/** The server failed internally (reason InternalError, or 500). */
export const isInternalError = byReasonOrCode(StatusReason.InternalError, 500);
/** The server is unavailable (reason ServiceUnavailable, or 503). */
export const isServiceUnavailable = byReasonOrCode(StatusReason.ServiceUnavailable, 503);
/** The request body was too large (reason RequestEntityTooLarge, or 413). */
export const isRequestEntityTooLarge = byReasonOrCode(StatusReason.RequestEntityTooLarge, 413);
/** The content type was not supported (reason UnsupportedMediaType, or 415). */
export const isUnsupportedMediaType = byReasonOrCode(StatusReason.UnsupportedMediaType, 415);

/**
 * If the error asks the client to retry after a delay, returns that delay in seconds, as client-go's
 * SuggestsClientDelay: a ServerTimeout reason always does (with details.retryAfterSeconds, possibly 0),
 * and any Status with a positive details.retryAfterSeconds does.
 */
export function suggestsClientDelay(err: unknown): number | undefined {
  const status = statusOf(err);
  if (status?.details === undefined) return undefined;
  const retry = status.details.retryAfterSeconds ?? 0;
  if (status.reason === StatusReason.ServerTimeout) return retry;
  return retry > 0 ? retry : undefined;
}

/**
 * A 422 Invalid StatusError for object `name` of `kind` in `group` (errors.NewInvalid): one
 * StatusCause per field error, and upstream's message — `Website.example.com "home" is invalid:
 * spec.replicas: Invalid value: -1: must be at least 0`, the errors in brackets when there are
 * several (identical ones once, as utilerrors.NewAggregate's message).
 *
 * @example
 * const errors: FieldError[] = [];
 * if (spec.replicas < 0) errors.push(invalidValue(fieldPath('spec', 'replicas'), spec.replicas, 'must be at least 0'));
 * if (errors.length > 0) throw newInvalid({ group: 'example.com', kind: 'Website' }, name, errors);
 */
export function newInvalid(qualifiedKind: { group: string; kind: string }, name: string, errors: readonly FieldError[]): StatusError {
  const gk = qualifiedKind.group === '' ? qualifiedKind.kind : `${qualifiedKind.kind}.${qualifiedKind.group}`;
  const messages = [...new Set(errors.map(fieldErrorString))];
  const aggregate = messages.length === 0 ? '' : messages.length === 1 ? `: ${messages[0]}` : `: [${messages.join(', ')}]`;
  return new StatusError(newStatus(422, StatusReason.Invalid, `${gk} ${JSON.stringify(name)} is invalid${aggregate}`, { group: qualifiedKind.group, kind: qualifiedKind.kind, name, causes: causesOf(errors) }));
}

/** Builds a NotFound StatusError for `resource` `name` (errors.NewNotFound). */
export function newNotFound(group: string, resource: string, name: string): StatusError {
  const qualified = group ? `${resource}.${group}` : resource;
  return new StatusError(newStatus(404, StatusReason.NotFound, `${qualified} "${name}" not found`, { group, kind: resource, name }));
}
