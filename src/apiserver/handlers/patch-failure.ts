/**
 * The patch engine's failures as the apiserver answers them: apply conflicts as 409 with one cause per
 * conflicting field, other patch errors with their own code and reason.
 */
import { StatusError, newStatus, StatusReason } from '../../apimachinery/errors.ts';
import { applyServerSideApply, ApplyConflictError, PatchError } from '../patch/index.ts';
import { untypedError } from '../status.ts';
import type { Obj } from './scope.ts';

// The message of errors.NewGenericServerResponse for 422.
const invalidPatchMessage = 'the server rejected our request due to an error in our request';

/** Converts a patch engine error into a StatusError; anything else is returned unchanged. */
export function patchFailure(err: unknown): unknown {
  if (err instanceof ApplyConflictError) {
    // The patch engine words the message and causes as the apiserver's fieldmanager does.
    return new StatusError(newStatus(409, StatusReason.Conflict, err.message, { causes: err.causes() }));
  }
  if (err instanceof PatchError) {
    // A well-formed patch that does not apply: NewGenericServerResponse(422) with its fixed sentence and empty details.
    if (err.statusCode === 422) return new StatusError(newStatus(422, StatusReason.Invalid, invalidPatchMessage, {}));
    if (err.reason === '') return untypedError(err.statusCode, err.message);
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
