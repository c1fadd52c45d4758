/**
 * Work queue metrics, mirroring client-go's util/workqueue/metrics.go.
 *
 * A queue reports through a {@link MetricsProvider}, which hands out one metric per kind for each queue
 * name. Nothing is recorded for unnamed queues or with the no-op provider, exactly as upstream: the
 * per-item bookkeeping (add and start times) is skipped entirely, so unmetered queues pay nothing.
 */
import type { Clock } from '../clock/clock.ts';

/** A gauge that moves up and down by one (`workqueue_depth`). */
export interface GaugeMetric {
  /** Adds one. */
  inc(): void;
  /** Subtracts one. */
  dec(): void;
}

/** A gauge that is set to an absolute value (`workqueue_unfinished_work_seconds`, ...). */
export interface SettableGaugeMetric {
  /** Sets the value. */
  set(value: number): void;
}

/** A monotonically increasing counter (`workqueue_adds_total`, `workqueue_retries_total`). */
export interface CounterMetric {
  /** Adds one. */
  inc(): void;
}

/** Records individual observations, in seconds (`workqueue_queue_duration_seconds`, ...). */
export interface HistogramMetric {
  /** Records one observation. */
  observe(value: number): void;
}

/**
 * Creates the metrics of one named queue. Each method is called once per queue, with the queue's name,
 * when the queue is constructed.
 */
export interface MetricsProvider {
  /** `workqueue_depth`: items waiting to be processed (added and not yet handed out). */
  newDepthMetric(name: string): GaugeMetric;
  /** `workqueue_adds_total`: items accepted by `add` (duplicates of a waiting item are not counted). */
  newAddsMetric(name: string): CounterMetric;
  /** `workqueue_queue_duration_seconds`: time from the first `add` to the `get` that hands the item out. */
  newLatencyMetric(name: string): HistogramMetric;
  /** `workqueue_work_duration_seconds`: time from `get` to `done`. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** `workqueue_unfinished_work_seconds`: summed age of the items being processed, refreshed periodically. */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** `workqueue_longest_running_processor_seconds`: age of the oldest item being processed. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  /** `workqueue_retries_total`: calls to `addAfter` (and so `addRateLimited`) on a running queue. */
  newRetriesMetric(name: string): CounterMetric;
}

/** A depth gauge labelled with the item's priority (controller-runtime pkg/metrics DepthMetricWithPriority). */
export interface DepthMetricWithPriority {
  /** Adds one at `priority`. */
  inc(priority: number): void;
  /** Subtracts one at `priority`. */
  dec(priority: number): void;
}

/**
 * A provider whose depth metric carries a `priority` label (controller-runtime's
 * MetricsProviderWithPriority); the priority queue uses it when its provider has it.
 */
export interface MetricsProviderWithPriority extends MetricsProvider {
  /** `workqueue_depth{priority}` of one queue. */
  newDepthMetricWithPriority(name: string): DepthMetricWithPriority;
}

function hasPriorityDepth(p: MetricsProvider): p is MetricsProviderWithPriority {
  return typeof (p as Partial<MetricsProviderWithPriority>).newDepthMetricWithPriority === 'function';
}

const noopMetric: GaugeMetric & SettableGaugeMetric & CounterMetric & HistogramMetric = {
  inc() {},
  dec() {},
  set() {},
  observe() {},
};

/** The provider that records nothing: the default unless {@link setGlobalMetricsProvider} was called. */
export const noopMetricsProvider: MetricsProvider = Object.freeze({
  newDepthMetric: () => noopMetric,
  newAddsMetric: () => noopMetric,
  newLatencyMetric: () => noopMetric,
  newWorkDurationMetric: () => noopMetric,
  newUnfinishedWorkSecondsMetric: () => noopMetric,
  newLongestRunningProcessorSecondsMetric: () => noopMetric,
  newRetriesMetric: () => noopMetric,
});

let globalMetricsProvider: MetricsProvider = noopMetricsProvider;
let globalMetricsProviderSet = false;

/**
 * Sets the provider used by queues constructed afterwards without an explicit `metricsProvider`.
 * Only the first call has an effect, as upstream's `workqueue.SetProvider`; returns whether it took effect.
 */
export function setGlobalMetricsProvider(provider: MetricsProvider): boolean {
  if (globalMetricsProviderSet) return false;
  globalMetricsProviderSet = true;
  globalMetricsProvider = provider;
  return true;
}

/** The provider a queue uses when its options name none. */
export function resolveMetricsProvider(provider: MetricsProvider | undefined): MetricsProvider {
  return provider ?? globalMetricsProvider;
}

/** How often the unfinished-work gauges are refreshed (upstream defaultUnfinishedWorkUpdatePeriod). */
export const defaultUnfinishedWorkUpdatePeriodMs = 500;

/**
 * Per-queue bookkeeping behind the metrics (upstream defaultQueueMetrics). Callers invoke it from the
 * queue's state transitions: `add` when an item becomes dirty, `get` when it is handed out, `done` when
 * processing ends.
 */
export class QueueMetrics<T> {
  readonly #clock: Clock;
  readonly #depth: DepthMetricWithPriority;
  readonly #adds: CounterMetric;
  readonly #latency: HistogramMetric;
  readonly #workDuration: HistogramMetric;
  readonly #unfinishedWorkSeconds: SettableGaugeMetric;
  readonly #longestRunningProcessor: SettableGaugeMetric;
  // Invariant: an item is in #addTimes from its first add until the get that hands it out, and in
  // #processingStartTimes from that get until its done.
  readonly #addTimes = new Map<T, number>();
  readonly #processingStartTimes = new Map<T, number>();

  /** `withPriority`: a priority queue, whose depth goes by priority when the provider can label it. */
  constructor(provider: MetricsProvider, name: string, clock: Clock, withPriority = false) {
    this.#clock = clock;
    if (withPriority && hasPriorityDepth(provider)) this.#depth = provider.newDepthMetricWithPriority(name);
    else {
      const d = provider.newDepthMetric(name);
      this.#depth = { inc: () => d.inc(), dec: () => d.dec() };
    }
    this.#adds = provider.newAddsMetric(name);
    this.#latency = provider.newLatencyMetric(name);
    this.#workDuration = provider.newWorkDurationMetric(name);
    this.#unfinishedWorkSeconds = provider.newUnfinishedWorkSecondsMetric(name);
    this.#longestRunningProcessor = provider.newLongestRunningProcessorSecondsMetric(name);
  }

  /** An item became dirty (at `priority`, for a priority queue): count it and remember when it was first added. */
  add(item: T, priority = 0): void {
    this.#adds.inc();
    this.#depth.inc(priority);
    if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.now());
  }

  /** An item was handed out: observe how long it waited and start its work clock. */
  get(item: T, priority = 0): void {
    this.#depth.dec(priority);
    const now = this.#clock.now();
    this.#processingStartTimes.set(item, now);
    const added = this.#addTimes.get(item);
    if (added !== undefined) {
      this.#latency.observe((now - added) / 1000);
      this.#addTimes.delete(item);
    }
  }

  /** A waiting item's priority went up (a priority queue): its depth moves to the new priority. */
  reprioritize(from: number, to: number): void {
    if (from === to) return;
    this.#depth.dec(from);
    this.#depth.inc(to);
  }

  /** An item's processing ended: observe how long it took. */
  done(item: T): void {
    const started = this.#processingStartTimes.get(item);
    if (started !== undefined) {
      this.#workDuration.observe(this.#clock.since(started) / 1000);
      this.#processingStartTimes.delete(item);
    }
  }

  /** Refreshes the unfinished-work gauges from the items being processed. */
  updateUnfinishedWork(): void {
    // A summary would describe this better, but (as upstream notes) gauges are what Prometheus can reset.
    const now = this.#clock.now();
    let total = 0;
    let oldest = 0;
    for (const started of this.#processingStartTimes.values()) {
      const age = (now - started) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.#unfinishedWorkSeconds.set(total);
    this.#longestRunningProcessor.set(oldest);
  }
}

/**
 * Builds the metrics of a queue, or undefined when nothing should be recorded: an empty name or the
 * no-op provider (upstream newQueueMetrics).
 */
export function newQueueMetrics<T>(provider: MetricsProvider, name: string, clock: Clock, withPriority = false): QueueMetrics<T> | undefined {
  if (name === '' || provider === noopMetricsProvider) return undefined;
  return new QueueMetrics<T>(provider, name, clock, withPriority);
}

/** The retries counter of a named queue, or undefined for an unnamed one (upstream newRetryMetrics). */
export function newRetryMetrics(provider: MetricsProvider, name: string): CounterMetric | undefined {
  if (name === '') return undefined;
  return provider.newRetriesMetric(name);
}
