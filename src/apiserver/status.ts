/**
 * The error Statuses the embedded API server answers with, worded as kube-apiserver words them
 * (k8s.io/apimachinery/pkg/api/errors), so clients matching on reason, code or message behave alike.
 */
import type { StatusCause, StatusDetails } from '../api/meta/v1.ts';
import { StatusError, StatusReason, newStatus, type StatusReasonValue } from '../apimachinery/errors.ts';

/** What an error is about: the resource's group and plural name (details.kind is the plural, as upstream). */
export interface ResourceRef {
  group: string;
  resource: string;
}

function qualified(r: ResourceRef): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}

function details(r: ResourceRef, name: string): StatusDetails {
  const d: StatusDetails = { name, kind: r.resource };
  if (r.group !== '') d.group = r.group;
  return d;
}

/** 404 NotFound for one object. */
export function notFound(r: ResourceRef, name: string): StatusError {
  return new StatusError(newStatus(404, StatusReason.NotFound, `${qualified(r)} "${name}" not found`, details(r, name)));
}

/** 403 Forbidden for one object, as errors.NewForbidden words it. */
export function forbidden(r: ResourceRef, name: string, why: string): StatusError {
  return new StatusError(newStatus(403, StatusReason.Forbidden, `${qualified(r)} "${name}" is forbidden: ${why}`, details(r, name)));
}

/** 409 AlreadyExists. */
export function alreadyExists(r: ResourceRef, name: string): StatusError {
  return new StatusError(newStatus(409, StatusReason.AlreadyExists, `${qualified(r)} "${name}" already exists`, details(r, name)));
}

/** 409 Conflict, e.g. for a stale resourceVersion or a failed precondition. */
export function conflict(r: ResourceRef, name: string, why: string): StatusError {
  return new StatusError(newStatus(409, StatusReason.Conflict, `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`, details(r, name)));
}

/** The message of a stale-resourceVersion conflict. */
export const optimisticLockMessage = 'the object has been modified; please apply your changes to the latest version and try again';

/** 400 BadRequest. */
export function badRequest(message: string): StatusError {
  return new StatusError(newStatus(400, StatusReason.BadRequest, message));
}

/** 422 Invalid with field causes, as errors.NewInvalid formats them. */
export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): StatusError {
  // The message is an aggregate of the errors, which lists each distinct one once (the causes keep them all).
  const list = [...new Set(causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`))];
  const summary = list.length === 1 ? list[0]! : `[${list.join(', ')}]`;
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const d: StatusDetails = { ...(name === '' ? {} : { name }), ...(group === '' ? {} : { group }), ...(kind === '' ? {} : { kind }), causes };
  return new StatusError(newStatus(422, StatusReason.Invalid, `${qualifiedKind} "${name}" is invalid: ${summary}`, d));
}

/** A "Required value" cause. */
export function requiredCause(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueRequired', message: `Required value: ${detail}`, field };
}

/** An "Invalid value" cause. */
export function invalidCause(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field };
}

/** 404 for a path that names no served resource. */
export function resourceNotFound(): StatusError {
  return new StatusError(newStatus(404, StatusReason.NotFound, 'the server could not find the requested resource', {}));
}

/**
 * The mux's answer for a path nothing is registered at (an unserved group version): plain text
 * `404 page not found`, not a Status. Thrown like a StatusError; sendError writes it as text.
 */
export class PageNotFound extends StatusError {
  constructor() {
    super(newStatus(404, StatusReason.NotFound, '404 page not found'));
  }
}

/** The mux's plain-text 404. */
export function pageNotFound(): PageNotFound {
  return new PageNotFound();
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): StatusError {
  return new StatusError(newStatus(405, StatusReason.MethodNotAllowed, 'the server does not allow this method on the requested resource', {}));
}

/** 410 Expired. */
export function expired(message: string): StatusError {
  return new StatusError(newStatus(410, StatusReason.Expired, message));
}

/** 413 RequestEntityTooLarge. */
export function tooLarge(limit: number): StatusError {
  return new StatusError(newStatus(413, StatusReason.RequestEntityTooLarge, `Request entity too large: limit is ${limit}`));
}

/** 415 UnsupportedMediaType from a handler: the body's media type is not one it decodes (no details, as upstream). */
export function unsupportedMediaType(_contentType: string, accepted: readonly string[]): StatusError {
  return new StatusError(newStatus(415, StatusReason.UnsupportedMediaType, `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`));
}

/** An error kube-apiserver answers without a reason (an untyped error surfacing from a library). */
export function untypedError(code: number, message: string): StatusError {
  const { reason: _none, ...status } = newStatus(code, StatusReason.Unknown, message);
  return new StatusError(status);
}

/** 401 Unauthorized. */
export function unauthorized(): StatusError {
  return new StatusError(newStatus(401, StatusReason.Unauthorized, 'Unauthorized'));
}

/** 500 InternalError. */
export function internalError(message: string): StatusError {
  return new StatusError(newStatus(500, StatusReason.InternalError, `Internal error occurred: ${message}`, { causes: [{ message }] }));
}

/**
 * 500 without a reason: how kube-apiserver answers an error that carries no Status of its own
 * (apierrors.ErrorToAPIStatus on a plain Go error: the message as is, no reason, no details).
 */
export function unknownServerError(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

/** The reason kube-apiserver pairs with an HTTP status code (errors.NewGenericServerResponse). */
export function reasonForCode(code: number): StatusReasonValue {
  switch (code) {
    case 400:
      return StatusReason.BadRequest;
    case 401:
      return StatusReason.Unauthorized;
    case 403:
      return StatusReason.Forbidden;
    case 404:
      return StatusReason.NotFound;
    case 405:
      return StatusReason.MethodNotAllowed;
    case 406:
      return StatusReason.NotAcceptable;
    case 409:
      return StatusReason.Conflict;
    case 410:
      return StatusReason.Expired;
    case 413:
      return StatusReason.RequestEntityTooLarge;
    case 415:
      return StatusReason.UnsupportedMediaType;
    case 422:
      return StatusReason.Invalid;
    case 429:
      return StatusReason.TooManyRequests;
    case 500:
      return StatusReason.InternalError;
    case 503:
      return StatusReason.ServiceUnavailable;
    case 504:
      return StatusReason.Timeout;
    default:
      return StatusReason.Unknown;
  }
}
