/**
 * Loads prom-client when metrics are first asked for, never at import: a program that exports no
 * metrics does not pay for loading it. prom-client is a regular dependency of kubeloom (it was an
 * optional peer, which made `metricsBindAddress` fail on a plain `npm install kubeloom`); it is small,
 * well kept and the format's reference implementation in Node. Loaded with `require` (prom-client
 * is CommonJS) so that the synchronous constructors taking a registry (Controller, the work queue and
 * leader election metrics providers) can create metrics at once; the instance is the one an
 * application's own `import 'prom-client'` gets, so metrics land in the application's registry.
 * Internal: no public declaration refers to this module, so programs without prom-client type-check.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { PromClientMissingError } from './errors.ts';
import type { PrometheusRegistry } from './registry.ts';

let loaded: typeof PromClient | undefined;

/** prom-client's module, loaded on first call; throws {@link PromClientMissingError} when absent. */
export function promClient(): typeof PromClient {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('prom-client') as typeof PromClient;
    } catch (err) {
      const { code, message } = err as { code?: unknown; message?: unknown };
      if (code === 'MODULE_NOT_FOUND' && String(message).includes("'prom-client'")) throw new PromClientMissingError(err);
      throw err;
    }
  }
  return loaded;
}

/** `registry` as prom-client's own type, for passing it to prom-client's metric constructors. */
export function asPromRegistry(registry: PrometheusRegistry): PromClient.Registry {
  return registry as unknown as PromClient.Registry;
}
