/**
 * The patch engine's failures as the apiserver answers them: apply conflicts as 409 with one cause per
 * conflicting field, other patch errors with their own code and reason.
 */
import { StatusError, newStatus, StatusReason } from '../../../apimachinery/errors.ts';
import { applyServerSideApply, ApplyConflictError, PatchError } from '../patch/index.ts';
import { unknownServerError } from '../status.ts';
import type { Obj } from './scope.ts';

/** Converts a patch engine error into a StatusError; anything else is returned unchanged. */
export function patchFailure(err: unknown): unknown {
  if (err instanceof ApplyConflictError) {
    // The patch engine words the message and causes as the apiserver's fieldmanager does.
    return new StatusError(newStatus(409, StatusReason.Conflict, err.message, { causes: err.causes() }));
  }
  if (err instanceof PatchError) {
    // An untyped error upstream: a Status with the code and message only.
    if (err.reason === '') return unknownServerError(err.message);
    return new StatusError(newStatus(err.statusCode, err.reason, err.message));
  }
  return err;
}

/** Server-side apply of `applied` onto `live` (undefined for a new object), failing with the apiserver's Status. */
export function applyOrThrow(live: Obj | undefined, applied: Obj, options: { manager: string; force: boolean; now: string; apiVersion: string; subresource?: string }): Obj {
  try {
    return applyServerSideApply(live, applied, options);
  } catch (err) {
    throw patchFailure(err);
  }
}
