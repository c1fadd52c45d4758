/**
 * core/v1 events (client-go tools/record): the legacy recorder with the event correlator.
 */
export { DEFAULT_RETRY_SLEEP_MS, EventBroadcaster, MAX_QUEUED_EVENTS, MAX_TRIES_PER_EVENT } from './event.ts';
export type { EventBroadcasterOptions, EventRecorder, EventSink } from './event.ts';
export {
  DEFAULT_AGGREGATE_INTERVAL_SECONDS,
  DEFAULT_AGGREGATE_MAX_EVENTS,
  DEFAULT_SPAM_BURST,
  DEFAULT_SPAM_QPS,
  EventAggregator,
  EventCorrelator,
  EventSourceObjectSpamFilter,
  MAX_LRU_CACHE_ENTRIES,
  eventAggregatorByReasonFunc,
  eventAggregatorByReasonMessageFunc,
  getEventKey,
  getSpamKey,
} from './events-cache.ts';
export type { CorrelatorOptions, EventAggregatorKeyFunc, EventAggregatorMessageFunc, EventCorrelateResult, EventSpamKeyFunc } from './events-cache.ts';
export { LruCache } from './lru-cache.ts';
export { TokenBucket } from './token-bucket.ts';
