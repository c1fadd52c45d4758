/**
 * Errors raised while applying patches, shaped so the API server can turn them into the Status
 * kube-apiserver would answer (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
 */
import { KubeloomError } from '../../apimachinery/errors.ts';

/**
 * A patch that could not be applied. `statusCode` and `reason` are the HTTP code and Status reason
 * kube-apiserver answers for the same failure: 400 BadRequest for a malformed patch document, 422
 * Invalid for a well-formed patch that does not apply (failed `test`, missing path), 413 for too many
 * JSON patch operations, 500 with an empty reason where upstream surfaces an untyped error.
 */
export class PatchError extends KubeloomError {
  /** HTTP status code of the answer (400, 413, 422 or 500). */
  readonly statusCode: number;
  /** metav1 Status reason of the answer ('BadRequest', 'Invalid', 'RequestEntityTooLarge', or '' for unknown). */
  readonly reason: string;

  constructor(statusCode: number, reason: string, message: string, options?: { cause?: unknown }) {
    super('ERR_PATCH', message, options);
    this.statusCode = statusCode;
    this.reason = reason;
  }
}

/** 400 BadRequest: the patch document itself is malformed. */
export function badPatch(message: string): PatchError {
  return new PatchError(400, 'BadRequest', message);
}

// kube-apiserver answers a patch that does not apply with NewGenericServerResponse(422, ...), whose
// message is this fixed sentence; the detail is appended so the caller learns which op and path failed.
const invalidPrefix = 'the server rejected our request due to an error in our request';

/** 422 Invalid: the patch is well formed but does not apply to the document. */
export function patchDoesNotApply(detail: string): PatchError {
  return new PatchError(422, 'Invalid', `${invalidPrefix}: ${detail}`);
}

/** One field whose owner would change: the manager owning it now and the field's path (`.spec.replicas`). */
export interface ApplyConflict {
  /** Name of the field manager currently owning the field. */
  readonly manager: string;
  /** The field, in the `.a.b[name="c"]` notation kube-apiserver prints in conflict messages. */
  readonly field: string;
  /**
   * How kube-apiserver names the owner in messages: `"kubectl"` for an Apply manager,
   * `"kubectl" using apps/v1` for an Update manager.
   */
  readonly owner: string;
}

/**
 * Server-side apply would take a field owned by another manager. kube-apiserver answers 409 Conflict
 * with one Status cause per field (see {@link ApplyConflictError.causes}); `message` is the text it prints.
 */
export class ApplyConflictError extends KubeloomError {
  /** Every conflicting field with its current owner, sorted by manager then field. */
  readonly conflicts: ReadonlyArray<ApplyConflict>;

  constructor(conflicts: ReadonlyArray<ApplyConflict>) {
    super('ERR_APPLY_CONFLICT', conflictMessage(conflicts));
    this.conflicts = conflicts;
  }

  /**
   * The Status causes kube-apiserver sends with the 409, one per field. metav1.StatusCause serialises
   * its Type as `reason`, so the wire form is `{ reason: 'FieldManagerConflict', message, field }`.
   */
  causes(): Array<{ reason: string; message: string; field: string }> {
    return this.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.owner}`, field: c.field }));
  }
}

// Same text as the apiserver's fieldmanager: one line for a single conflict, else grouped by owner.
function conflictMessage(conflicts: ReadonlyArray<ApplyConflict>): string {
  const first = conflicts[0];
  if (conflicts.length === 1 && first !== undefined) {
    return `Apply failed with 1 conflict: conflict with ${first.owner}: ${first.field}`;
  }
  const byOwner = new Map<string, string[]>();
  for (const c of conflicts) byOwner.set(c.owner, [...(byOwner.get(c.owner) ?? []), c.field]);
  const lines: string[] = [];
  for (const owner of [...byOwner.keys()].sort()) {
    lines.push(`conflicts with ${owner}:`);
    for (const field of byOwner.get(owner) ?? []) lines.push(`- ${field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
