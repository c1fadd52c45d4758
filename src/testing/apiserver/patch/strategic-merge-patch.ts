/**
 * Strategic merge patch for built-in kinds (k8s.io/apimachinery/pkg/util/strategicpatch).
 */
import { PatchError } from './errors.ts';
import type { GroupVersionKind } from './patch-merge-keys.ts';

/**
 * Applies a strategic merge patch to an object of kind `kind`.
 * @throws {PatchError} with the status kube-apiserver answers for the same patch.
 */
export function applyStrategicMergePatch(_doc: unknown, _patch: unknown, _kind: GroupVersionKind): unknown {
  throw new PatchError(500, 'InternalError', 'strategic merge patch is not available yet');
}
