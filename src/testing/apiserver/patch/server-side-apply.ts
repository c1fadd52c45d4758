/**
 * Server-side apply (sigs.k8s.io/structured-merge-diff merge.Updater.Apply).
 */
import { PatchError } from './errors.ts';

/** Options of {@link applyServerSideApply}. */
export interface ApplyOptions {
  readonly manager: string;
  readonly force: boolean;
  readonly now: string;
  readonly apiVersion: string;
  readonly subresource?: string;
}

/**
 * Applies `applied` as the configuration of `options.manager` onto `live`.
 * @throws {ApplyConflictError} when another manager owns a field being changed and `force` is false.
 */
export function applyServerSideApply(_live: Record<string, unknown> | undefined, _applied: Record<string, unknown>, _options: ApplyOptions): Record<string, unknown> {
  throw new PatchError(500, 'InternalError', 'server-side apply is not available yet');
}
