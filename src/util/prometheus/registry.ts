/**
 * The shape of a prom-client `Registry`, stated structurally so that kubeloom's public types do not
 * import prom-client: it is loaded only when metrics are asked for, and a program that never asks for
 * them type-checks and runs without loading it.
 */

/**
 * A prom-client `Registry` (pass `new Registry()` or prom-client's global `register`). Only the
 * members kubeloom calls are listed; any prom-client 15 registry satisfies it.
 *
 * @example
 * import { Registry } from 'prom-client';
 * const registry = new Registry();
 * const controller = new Controller({ name: 'pods', reconcile, metrics: registry });
 */
export interface PrometheusRegistry {
  /** The metric registered under `name`, if any (metrics are shared by name). */
  getSingleMetric(name: string): unknown;
  /** Adds a metric; prom-client's metric constructors call it for their `registers`. */
  registerMetric(metric: never): void;
  /** The exposition text of every registered metric. */
  metrics(): Promise<string>;
  /** The Content-Type of {@link PrometheusRegistry.metrics}' text. */
  readonly contentType: string;
}
