/** The error of asking for Prometheus metrics without prom-client installed. */
import { KubeloomError } from '../../apimachinery/errors.ts';

/**
 * Thrown when metrics are asked for but prom-client cannot be loaded. prom-client is a dependency of
 * kubeloom, so this happens only in an install that left it out (e.g. a bundle that dropped it).
 */
export class PromClientMissingError extends KubeloomError {
  constructor(cause: unknown) {
    super('ERR_PROM_CLIENT_MISSING', 'Prometheus metrics need prom-client, a dependency of kubeloom that is missing from this install: npm install prom-client', { cause });
  }
}
