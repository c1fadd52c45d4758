/** The error `kubeloom init` and `kubeloom create api` fail with. */
import { KubeloomError } from '../apimachinery/errors.ts';

/** A scaffold that cannot be written: bad names, an existing project or kind, a missing anchor. */
export class ScaffoldError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_SCAFFOLD', message, options);
  }
}
