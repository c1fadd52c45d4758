/**
 * Admission responses (controller-runtime pkg/webhook/admission/response.go and Response.Complete in
 * webhook.go): `allowed`, `denied` (403 Forbidden), `errored` (a code and message, allowed false),
 * `patched`, `patchResponseFromRaw` (the JSONPatch between the object received and the object
 * wanted), and `validationResponseFromStatus` for errors that carry their own Status. Every Status
 * gets a code (200 when unset) before it is sent, as Complete does.
 */
import type { Status } from '../../api/meta/v1.ts';
import { createPatch } from './json-patch-diff.ts';
import type { AdmissionResponseWire, JsonPatchOperation, ResultStatus } from './types.ts';

/** What a handler answers (controller-runtime admission.Response): the verdict plus patches to encode. */
export interface Response {
  /** Whether the request is admitted. */
  allowed: boolean;
  /** The Status explaining the verdict; a code of 200 is filled in when missing. */
  result?: ResultStatus;
  /** JSONPatch operations; encoded into `patch` (base64) with patchType JSONPatch when non-empty. */
  patches?: JsonPatchOperation[];
  /** Warnings for the client. */
  warnings?: string[];
  /** Annotations for the audit event. */
  auditAnnotations?: Record<string, string>;
}

/**
 * ValidationResponse: allowed → code 200; denied → code 403 with reason Forbidden; the message
 * (when non-empty) in `message`.
 */
export function validationResponse(allowed: boolean, message: string): Response {
  const result: ResultStatus = allowed ? { code: 200 } : { code: 403, reason: 'Forbidden' };
  if (message !== '') result.message = message;
  return { allowed, result };
}

/** Admits the request (code 200), with an optional message. */
export function allowed(message = ''): Response {
  return validationResponse(true, message);
}

/** Denies the request: code 403, reason Forbidden, the message. */
export function denied(message = ''): Response {
  return validationResponse(false, message);
}

/** Admits the request and asks for `patches` to be applied. */
export function patched(message: string, ...patches: JsonPatchOperation[]): Response {
  return { ...allowed(message), patches };
}

/** A failure to handle the request: allowed false, the given code (400, 500, …) and the error's message. */
export function errored(code: number, err: unknown): Response {
  return { allowed: false, result: { code, message: err instanceof Error ? err.message : String(err) } };
}

/** The response of an error that carries its own Status (an API StatusError): the Status as it is. */
export function validationResponseFromStatus(isAllowed: boolean, status: Status): Response {
  const { apiVersion: _a, kind: _k, ...result } = status;
  return { allowed: isAllowed, result };
}

/**
 * PatchResponseFromRaw: admits with the JSONPatch that turns `original` into `current` (no patch
 * when they are equal).
 */
export function patchResponseFromRaw(original: unknown, current: unknown): Response {
  const patches = createPatch(original, current);
  return { allowed: true, patches };
}

/** Adds warnings to a response (WithWarnings: existing ones are kept). */
export function withWarnings(r: Response, ...warnings: string[]): Response {
  if (warnings.length === 0) return r;
  return { ...r, warnings: [...(r.warnings ?? []), ...warnings] };
}

// A metav1.Status inside an AdmissionResponse, in Go's field order: its ListMeta is a struct, which
// encoding/json's omitempty never leaves out, hence the `metadata: {}` upstream answers carry.
function encodeStatus(s: ResultStatus): Record<string, unknown> {
  const out: Record<string, unknown> = { metadata: s.metadata ?? {} };
  if (s.status !== undefined && s.status !== '') out.status = s.status;
  if (s.message !== undefined && s.message !== '') out.message = s.message;
  if (s.reason !== undefined && s.reason !== '') out.reason = s.reason;
  if (s.details !== undefined) out.details = s.details;
  if (s.code !== undefined && s.code !== 0) out.code = s.code;
  return out;
}

/**
 * Response.Complete plus encoding: the uid echoed, a Status with a code (200 when unset), the
 * patches as a base64 JSONPatch.
 */
export function completeResponse(r: Response, uid: string): AdmissionResponseWire {
  const result: ResultStatus = { ...(r.result ?? {}) };
  if (result.code === undefined || result.code === 0) result.code = 200;
  const out: AdmissionResponseWire = { uid, allowed: r.allowed, status: encodeStatus(result) as ResultStatus };
  if (r.patches !== undefined && r.patches.length > 0) {
    out.patch = Buffer.from(JSON.stringify(r.patches)).toString('base64');
    out.patchType = 'JSONPatch';
  }
  if (r.auditAnnotations !== undefined && Object.keys(r.auditAnnotations).length > 0) out.auditAnnotations = r.auditAnnotations;
  if (r.warnings !== undefined && r.warnings.length > 0) out.warnings = r.warnings;
  return out;
}
