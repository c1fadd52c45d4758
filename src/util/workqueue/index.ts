/**
 * Work queues for controllers, mirroring client-go's util/workqueue: a fair, deduplicating queue that
 * never hands one item to two workers, delayed and rate-limited variants, client-go's rate limiters,
 * metrics under upstream's names, and a worker loop.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export { FifoStorage, Queue } from './queue.ts';
export type { GetResult, QueueInterface, QueueOptions, QueueStorage } from './queue.ts';
export { DelayingQueue, maxWaitMs } from './delaying-queue.ts';
export type { DelayingInterface, DelayingQueueOptions } from './delaying-queue.ts';
export { RateLimitingQueue } from './rate-limiting-queue.ts';
export { LowPriority, PriorityQueue } from './priority-queue.ts';
export type { AddOpts, PriorityGetResult, PriorityQueueOptions } from './priority-queue.ts';
export type { RateLimitingInterface, RateLimitingQueueOptions } from './rate-limiting-queue.ts';
export { infDurationMs } from './rate-limiter.ts';
export type { RateLimiter } from './rate-limiter.ts';
export { defaultItemBasedRateLimiter, ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.ts';
export { ItemFastSlowRateLimiter } from './item-fast-slow-rate-limiter.ts';
export { BucketRateLimiter } from './bucket-rate-limiter.ts';
export type { BucketRateLimiterOptions } from './bucket-rate-limiter.ts';
export { MaxOfRateLimiter } from './max-of-rate-limiter.ts';
export { WithMaxWaitRateLimiter } from './with-max-wait-rate-limiter.ts';
export { defaultControllerRateLimiter } from './default-rate-limiters.ts';
export type { DefaultControllerRateLimiterOptions } from './default-rate-limiters.ts';
export { defaultUnfinishedWorkUpdatePeriodMs, noopMetricsProvider, setGlobalMetricsProvider } from './metrics.ts';
export type { CounterMetric, DepthMetricWithPriority, GaugeMetric, HistogramMetric, MetricsProvider, MetricsProviderWithPriority, SettableGaugeMetric } from './metrics.ts';
export { newPrometheusMetricsProvider } from './prometheus-metrics.ts';
export { PromClientMissingError } from '../prometheus/errors.ts';
export type { PrometheusRegistry } from '../prometheus/registry.ts';
export { InvalidConcurrencyError, runWorkers } from './run-workers.ts';
export type { RunWorkersOptions } from './run-workers.ts';
export { parallelizeUntil } from './parallelizer.ts';
export type { ParallelizeOptions } from './parallelizer.ts';
