/**
 * The error `kubeloom manifests` fails with: a project it cannot read, or a declaration it will not
 * turn into a manifest (a wildcard RBAC rule, a conversion for a kind no CRD declares).
 */
import { KubeloomError } from '../apimachinery/errors.ts';

/** A project or declaration `kubeloom manifests` cannot turn into config/. */
export class ManifestError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_MANIFESTS', message, options);
  }
}
