/**
 * Patch mechanisms of the embedded API server: JSON patch, merge patch, strategic merge patch and
 * server-side apply, plus the managedFields bookkeeping every write goes through.
 */
export { applyJsonPatch } from './json-patch.ts';
export { applyMergePatch } from './merge-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge-patch.ts';
export { applyServerSideApply, checkAppliedConfiguration, type ApplyOptions, type AppliedTypeOptions } from './server-side-apply.ts';
export { trackUpdate } from './managed-fields.ts';
export { hasBuiltinSchema } from './patch-merge-keys.ts';
export { PatchError, ApplyConflictError, type ApplyConflict } from './errors.ts';
