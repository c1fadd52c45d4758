/**
 * A {@link LeaderMetricsProvider} backed by prom-client, with upstream's metric names and help
 * (k8s.io/component-base/metrics/prometheus/clientgo/leaderelection), labelled by lock `name`.
 */
import type { Counter, Gauge } from 'prom-client';
import { asPromRegistry, promClient } from '../../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../../util/prometheus/registry.ts';
import type { LeaderMetricsProvider } from './metrics.ts';

/**
 * Creates a provider registering `leader_election_master_status` and `leader_election_slowpath_total`
 * in `registry` (default: prom-client's global registry). Metrics already registered there are reused,
 * so calling this twice is safe. Needs prom-client (a dependency of kubeloom), which is loaded on
 * this call.
 *
 * @example
 * const elector = new LeaderElector({ lock, callbacks, name: 'podset-controller', metricsProvider: newPrometheusLeaderMetricsProvider(registry) });
 */
export function newPrometheusLeaderMetricsProvider(registry?: PrometheusRegistry): LeaderMetricsProvider {
  const { Counter, Gauge, register } = promClient();
  const target = registry !== undefined ? asPromRegistry(registry) : register;
  const status = (target.getSingleMetric('leader_election_master_status') as Gauge<'name'> | undefined) ??
    new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'] as const,
      registers: [target],
    });
  const slowpath = (target.getSingleMetric('leader_election_slowpath_total') as Counter<'name'> | undefined) ??
    new Counter({
      name: 'leader_election_slowpath_total',
      help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'] as const,
      registers: [target],
    });
  return {
    newLeaderMetric: () => ({
      on: (name) => status.labels(name).set(1),
      off: (name) => status.labels(name).set(0),
      slowpathExercised: (name) => slowpath.labels(name).inc(),
    }),
  };
}
