/**
 * A {@link MetricsProvider} backed by prom-client, exposing the metrics under upstream's names
 * (k8s.io/component-base/metrics/prometheus/workqueue), each labelled with the queue `name`.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { asPromRegistry, promClient } from '../prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../prometheus/registry.ts';
import type { MetricsProvider } from './metrics.ts';

/** Upstream's workqueue histogram buckets: ExponentialBuckets(10e-9, 10, 10), i.e. 10 ns .. 10 s. */
const durationBuckets = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

type Kind = 'gauge' | 'counter' | 'histogram';

/**
 * Creates a provider registering the workqueue metrics in `registry` (default: prom-client's global
 * registry). The metrics are registered on first use and shared by every queue and every provider on
 * the same registry, so calling this twice is safe. Needs prom-client (a dependency of kubeloom),
 * which is loaded on this call.
 *
 * @example
 * const registry = new Registry();
 * const queue = new RateLimitingQueue<string>({ name: 'pods', metricsProvider: newPrometheusMetricsProvider(registry) });
 * // registry.metrics() now includes workqueue_depth{name="pods"} ...
 */
export function newPrometheusMetricsProvider(registry?: PrometheusRegistry): MetricsProvider {
  const { Counter, Gauge, Histogram, register } = promClient();
  const target = registry !== undefined ? asPromRegistry(registry) : register;
  function metric<K extends Kind>(
    kind: K,
    name: string,
    help: string,
  ): K extends 'gauge' ? Gauge<'name'> : K extends 'counter' ? Counter<'name'> : Histogram<'name'> {
    type R = K extends 'gauge' ? Gauge<'name'> : K extends 'counter' ? Counter<'name'> : Histogram<'name'>;
    const existing = target.getSingleMetric(name);
    if (existing !== undefined) return existing as unknown as R;
    const config = { name, help, labelNames: ['name'] as const, registers: [target] };
    if (kind === 'gauge') return new Gauge(config) as unknown as R;
    if (kind === 'counter') return new Counter(config) as unknown as R;
    return new Histogram({ ...config, buckets: durationBuckets }) as unknown as R;
  }

  return {
    newDepthMetric: (name) => metric('gauge', 'workqueue_depth', 'Current depth of workqueue').labels(name),
    newAddsMetric: (name) => metric('counter', 'workqueue_adds_total', 'Total number of adds handled by workqueue').labels(name),
    newLatencyMetric: (name) =>
      metric('histogram', 'workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested.').labels(
        name,
      ),
    newWorkDurationMetric: (name) =>
      metric('histogram', 'workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes.').labels(name),
    newUnfinishedWorkSecondsMetric: (name) =>
      metric(
        'gauge',
        'workqueue_unfinished_work_seconds',
        'How many seconds of work has done that is in progress and hasn\'t been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
      ).labels(name),
    newLongestRunningProcessorSecondsMetric: (name) =>
      metric(
        'gauge',
        'workqueue_longest_running_processor_seconds',
        'How many seconds has the longest running processor for workqueue been running.',
      ).labels(name),
    newRetriesMetric: (name) => metric('counter', 'workqueue_retries_total', 'Total number of retries handled by workqueue').labels(name),
  };
}
