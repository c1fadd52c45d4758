/**
 * The workqueue metrics of controller-runtime (pkg/metrics/workqueue.go): client-go's names, labelled
 * with both `name` and `controller` (the controller's name for both, as upstream), histograms with
 * twelve exponential buckets from 10 ns (ExponentialBuckets(10e-9, 10, 12)), and `workqueue_depth` with
 * a `priority` label: the priority queue reports its depth per priority, other queues with `priority=""`.
 * What a Manager's controllers record in the manager's registry.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { asPromRegistry, promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { MetricsProviderWithPriority } from '../util/workqueue/metrics.ts';

// controller-runtime's latency and work duration buckets: ExponentialBuckets(10e-9, 10, 12).
const buckets = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

/**
 * Registers (or reuses) controller-runtime's workqueue metrics in `registry` and returns the provider
 * the manager's controllers use. Loads prom-client.
 */
export function newControllerRuntimeWorkqueueMetrics(registry: PrometheusRegistry): MetricsProviderWithPriority {
  const { Counter, Gauge, Histogram } = promClient();
  const reg = asPromRegistry(registry);
  const get = <M>(name: string, make: () => M): M => (registry.getSingleMetric(name) as M | undefined) ?? make();
  const labels = ['name', 'controller'];
  const depth: Gauge<string> = get('workqueue_depth', () => new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue by workqueue and priority', labelNames: ['name', 'controller', 'priority'], registers: [reg] }));
  const adds: Counter<string> = get('workqueue_adds_total', () => new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: labels, registers: [reg] }));
  const latency: Histogram<string> = get('workqueue_queue_duration_seconds', () => new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested', labelNames: labels, buckets, registers: [reg] }));
  const work: Histogram<string> = get('workqueue_work_duration_seconds', () => new Histogram({ name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes.', labelNames: labels, buckets, registers: [reg] }));
  const unfinished: Gauge<string> = get(
    'workqueue_unfinished_work_seconds',
    () =>
      new Gauge({
        name: 'workqueue_unfinished_work_seconds',
        help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
        labelNames: labels,
        registers: [reg],
      }),
  );
  const longest: Gauge<string> = get('workqueue_longest_running_processor_seconds', () => new Gauge({ name: 'workqueue_longest_running_processor_seconds', help: 'How many seconds has the longest running processor for workqueue been running.', labelNames: labels, registers: [reg] }));
  const retries: Counter<string> = get('workqueue_retries_total', () => new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: labels, registers: [reg] }));
  const l = (name: string): { name: string; controller: string } => ({ name, controller: name });
  return {
    newDepthMetric: (name) => depth.labels({ ...l(name), priority: '' }),
    newDepthMetricWithPriority: (name) => ({
      inc: (priority) => depth.inc({ ...l(name), priority: String(priority) }),
      dec: (priority) => depth.dec({ ...l(name), priority: String(priority) }),
    }),
    newAddsMetric: (name) => adds.labels(l(name)),
    newLatencyMetric: (name) => latency.labels(l(name)),
    newWorkDurationMetric: (name) => work.labels(l(name)),
    newUnfinishedWorkSecondsMetric: (name) => unfinished.labels(l(name)),
    newLongestRunningProcessorSecondsMetric: (name) => longest.labels(l(name)),
    newRetriesMetric: (name) => retries.labels(l(name)),
  };
}
