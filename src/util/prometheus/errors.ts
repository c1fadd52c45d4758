/** The error of asking for Prometheus metrics without prom-client installed. */
import { KubeloomError } from '../../apimachinery/errors.ts';

/** Thrown when metrics are asked for but prom-client (an optional peer dependency) is not installed. */
export class PromClientMissingError extends KubeloomError {
  constructor(cause: unknown) {
    super('ERR_PROM_CLIENT_MISSING', 'Prometheus metrics need prom-client, an optional peer dependency of kubeloom: npm install prom-client', { cause });
  }
}
