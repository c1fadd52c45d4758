/**
 * The core/v1 event correlator (client-go tools/record/events_cache.go): before an event is written it
 * is aggregated with similar events, de-duplicated against identical ones, and rate limited per source
 * and object, so that a misbehaving component cannot flood the API server.
 *
 * - Aggregation: events that differ only in their message (same source, object, type, reason, reporting
 *   controller and instance) are similar; once 10 distinct messages were seen within 10 minutes of each
 *   other, the next one is replaced by a single aggregate event whose message is
 *   "(combined from similar events): <message>".
 * - De-duplication: an event identical to one already written (same key, message included) is not
 *   created again; the existing one is patched with count + 1, the new lastTimestamp and message.
 * - Spam filter: each source+object gets a token bucket of 25 events refilled at 1 per 5 minutes;
 *   events beyond it are skipped.
 * All three keep their state in LRU caches of 4096 entries.
 */
import type { Event as CoreEvent } from '../../../api/core/v1.ts';
import { realClock, type Clock } from '../../../util/clock/clock.ts';
import { formatTime, parseTime } from '../meta-time.ts';
import { UniqueNanos, generateEventName } from '../util.ts';
import { LruCache } from './lru-cache.ts';
import { TokenBucket } from './token-bucket.ts';

/** Entries in each correlator cache (maxLruCacheEntries). */
export const MAX_LRU_CACHE_ENTRIES = 4096;
/** Distinct similar messages before aggregation (defaultAggregateMaxEvents). */
export const DEFAULT_AGGREGATE_MAX_EVENTS = 10;
/** Similar events further apart than this start a new aggregation window (defaultAggregateIntervalInSeconds). */
export const DEFAULT_AGGREGATE_INTERVAL_SECONDS = 600;
/** Events a source may send about one object at once (defaultSpamBurst). */
export const DEFAULT_SPAM_BURST = 25;
/** Refill rate of that budget: one event per 5 minutes (defaultSpamQPS). */
export const DEFAULT_SPAM_QPS = 1 / 300;

/** Groups events for aggregation: `aggregateKey` identifies the group, `localKey` the event within it. */
export type EventAggregatorKeyFunc = (event: CoreEvent) => {
  /** Identifies the group of similar events. */
  aggregateKey: string;
  /** Identifies the event within its group. */
  localKey: string;
};
/** Produces the message of an aggregate event. */
export type EventAggregatorMessageFunc = (event: CoreEvent) => string;
/** Returns the key under which the spam filter rate-limits an event. */
export type EventSpamKeyFunc = (event: CoreEvent) => string;

function keyOf(parts: Array<string | undefined>): string {
  return JSON.stringify(parts.map((p) => p ?? ''));
}

/** The full identity of an event: source, object, type, reason and message (getEventKey). */
export function getEventKey(event: CoreEvent): string {
  const o = event.involvedObject;
  return keyOf([event.source?.component, event.source?.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, event.type, event.reason, event.message]);
}

/**
 * The spam filter's key: source, object and event type (getSpamKey), so Warnings have a budget of
 * their own and a flood of Normal events cannot silence them.
 */
export function getSpamKey(event: CoreEvent): string {
  const o = event.involvedObject;
  return keyOf([event.source?.component, event.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, event.type]);
}

/** Aggregates by everything but the message, which is the local key (EventAggregatorByReasonFunc). */
export const eventAggregatorByReasonFunc: EventAggregatorKeyFunc = (event) => {
  const o = event.involvedObject;
  return {
    aggregateKey: keyOf([event.source?.component, event.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, event.type, event.reason, event.reportingComponent, event.reportingInstance]),
    localKey: event.message ?? '',
  };
};

/** "(combined from similar events): " + message (EventAggregatorByReasonMessageFunc). */
export const eventAggregatorByReasonMessageFunc: EventAggregatorMessageFunc = (event) => '(combined from similar events): ' + (event.message ?? '');

/** Options of an {@link EventCorrelator} (record.CorrelatorOptions); unset fields take upstream's defaults. */
export interface CorrelatorOptions {
  /** Size of each LRU cache (default 4096). */
  lruCacheSize?: number;
  /** Spam filter burst (default 25). */
  burstSize?: number;
  /** Spam filter refill rate in events per second (default 1/300). */
  qps?: number;
  /** Groups similar events (default: by source, object, type and reason). */
  keyFunc?: EventAggregatorKeyFunc;
  /** The message of an aggregated event. */
  messageFunc?: EventAggregatorMessageFunc;
  /** Distinct similar messages before aggregating (default 10). */
  maxEvents?: number;
  /** Aggregation window in seconds (default 600). */
  maxIntervalInSeconds?: number;
  /** Time source (default: the real clock). */
  clock?: Pick<Clock, 'now'>;
  /** Keys the spam filter's per-source token buckets. */
  spamKeyFunc?: EventSpamKeyFunc;
}

/** Rate limits events per source, object and type (EventSourceObjectSpamFilter). */
export class EventSourceObjectSpamFilter {
  readonly #cache: LruCache<TokenBucket>;
  readonly #burst: number;
  readonly #qps: number;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #keyFunc: EventSpamKeyFunc;

  constructor(lruCacheSize: number, burst: number, qps: number, clock: Pick<Clock, 'now'>, keyFunc: EventSpamKeyFunc = getSpamKey) {
    this.#cache = new LruCache(lruCacheSize);
    this.#burst = burst;
    this.#qps = qps;
    this.#clock = clock;
    this.#keyFunc = keyFunc;
  }

  /** True if the event must be skipped: its source+object has exhausted its budget. */
  filter(event: CoreEvent): boolean {
    const key = this.#keyFunc(event);
    const bucket = this.#cache.get(key) ?? new TokenBucket(this.#qps, this.#burst, this.#clock);
    const skip = !bucket.tryAccept();
    this.#cache.add(key, bucket);
    return skip;
  }
}

interface AggregateRecord {
  /** Distinct local keys (messages) seen in the current window. */
  localKeys: Set<string>;
  /** When the group was last seen, ms. */
  lastTimestamp: number;
}

/** Replaces a flood of similar events by one aggregate event (EventAggregator). */
export class EventAggregator {
  readonly #cache: LruCache<AggregateRecord>;
  readonly #keyFunc: EventAggregatorKeyFunc;
  readonly #messageFunc: EventAggregatorMessageFunc;
  readonly #maxEvents: number;
  readonly #maxIntervalMs: number;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #nanos = new UniqueNanos();

  constructor(lruCacheSize: number, keyFunc: EventAggregatorKeyFunc, messageFunc: EventAggregatorMessageFunc, maxEvents: number, maxIntervalInSeconds: number, clock: Pick<Clock, 'now'>) {
    this.#cache = new LruCache(lruCacheSize);
    this.#keyFunc = keyFunc;
    this.#messageFunc = messageFunc;
    this.#maxEvents = maxEvents;
    this.#maxIntervalMs = maxIntervalInSeconds * 1000;
    this.#clock = clock;
  }

  /**
   * Returns the event to record and its cache key for de-duplication: the event itself and its full key
   * while under the threshold; otherwise a new aggregate event keyed by the group's aggregate key, so
   * that later aggregates update that one event.
   */
  eventAggregate(newEvent: CoreEvent): {
    /** The event to record: `newEvent`, or the aggregate event standing for its group. */
    event: CoreEvent;
    /** The key the event is logged under. */
    key: string;
  } {
    const now = this.#clock.now();
    const eventKey = getEventKey(newEvent);
    const { aggregateKey, localKey } = this.#keyFunc(newEvent);
    let record = this.#cache.get(aggregateKey);
    if (record === undefined || now - record.lastTimestamp > this.#maxIntervalMs) {
      record = { localKeys: new Set(), lastTimestamp: now };
    }
    record.localKeys.add(localKey);
    record.lastTimestamp = now;
    this.#cache.add(aggregateKey, record);
    if (record.localKeys.size < this.#maxEvents) return { event: newEvent, key: eventKey };

    // Do not let the set grow past the threshold (upstream pops an arbitrary member; we pop the oldest).
    const first = record.localKeys.values().next();
    if (first.done !== true) record.localKeys.delete(first.value);

    const stamp = formatTime(now);
    const aggregate: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: generateEventName(newEvent.involvedObject.name ?? '', this.#nanos.next(now)),
        namespace: newEvent.metadata.namespace ?? '',
      },
      count: 1,
      firstTimestamp: stamp,
      involvedObject: newEvent.involvedObject,
      lastTimestamp: stamp,
      message: this.#messageFunc(newEvent),
      type: newEvent.type ?? '',
      reason: newEvent.reason ?? '',
    };
    if (newEvent.source !== undefined) aggregate.source = newEvent.source;
    return { event: aggregate, key: aggregateKey };
  }
}

interface EventLog {
  /** Occurrences since the first one. */
  count: number;
  firstTimestamp: string | undefined;
  /** Name of the event object holding these occurrences. */
  name: string;
  /** Its resourceVersion as the server last returned it. */
  resourceVersion: string | undefined;
}

/** Counts occurrences of identical events and prepares the count patch (eventLogger). */
class EventLogger {
  readonly #cache: LruCache<EventLog>;

  constructor(lruCacheSize: number) {
    this.#cache = new LruCache(lruCacheSize);
  }

  /**
   * Records an occurrence of `newEvent` under `key`. A repeat takes the first occurrence's name,
   * resourceVersion and firstTimestamp, count + 1, and comes with the patch to send: the fields that
   * change between occurrences (count, lastTimestamp, message).
   */
  eventObserve(newEvent: CoreEvent, key: string): { event: CoreEvent; patch: Record<string, unknown> | undefined } {
    const event = structuredClone(newEvent);
    let patch: Record<string, unknown> | undefined;
    const last = this.#cache.get(key);
    if (last !== undefined && last.count > 0) {
      const { resourceVersion: _rv, ...metadata } = event.metadata;
      event.metadata = last.resourceVersion === undefined ? { ...metadata, name: last.name } : { ...metadata, name: last.name, resourceVersion: last.resourceVersion };
      if (last.firstTimestamp === undefined) delete event.firstTimestamp;
      else event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      // The two-way merge patch between the event with count 0, lastTimestamp at the epoch and no
      // message, and the event itself: exactly these fields, in the order Go's JSON encoding sorts them.
      patch = { count: event.count };
      if (event.lastTimestamp !== undefined && parseTime(event.lastTimestamp) !== 0) patch.lastTimestamp = event.lastTimestamp;
      if (event.message) patch.message = event.message;
    }
    this.#cache.add(key, { count: event.count ?? 0, firstTimestamp: event.firstTimestamp, name: event.metadata.name ?? '', resourceVersion: event.metadata.resourceVersion });
    return { event, patch };
  }

  /** Takes the server's view of an event (name, resourceVersion, count) after a write (updateState). */
  updateState(event: CoreEvent): void {
    this.#cache.add(getEventKey(event), {
      count: event.count ?? 0,
      firstTimestamp: event.firstTimestamp,
      name: event.metadata.name ?? '',
      resourceVersion: event.metadata.resourceVersion,
    });
  }
}

/** The outcome of {@link EventCorrelator.eventCorrelate}. */
export type EventCorrelateResult =
  /** Write `event`: patch it with `patch` when given (count > 1), create it otherwise. */
  | {
      /** Write it. */
      skip: false;
      /** The event to write. */
      event: CoreEvent;
      /** The patch updating an existing event, or undefined to create it. */
      patch: Record<string, unknown> | undefined;
    }
  /** Drop the event (spam filter). */
  | {
      /** Drop it. */
      skip: true;
    };

/**
 * Filters, aggregates, counts and de-duplicates events before they are written (EventCorrelator).
 *
 * @example
 * const correlator = new EventCorrelator({ clock });
 * const result = correlator.eventCorrelate(event);
 * if (!result.skip) write(result.event, result.patch);
 */
export class EventCorrelator {
  readonly #filter: EventSourceObjectSpamFilter;
  readonly #aggregator: EventAggregator;
  readonly #logger: EventLogger;

  constructor(options: CorrelatorOptions = {}) {
    const size = options.lruCacheSize || MAX_LRU_CACHE_ENTRIES;
    const clock = options.clock ?? realClock;
    this.#filter = new EventSourceObjectSpamFilter(size, options.burstSize || DEFAULT_SPAM_BURST, options.qps || DEFAULT_SPAM_QPS, clock, options.spamKeyFunc ?? getSpamKey);
    this.#aggregator = new EventAggregator(
      size,
      options.keyFunc ?? eventAggregatorByReasonFunc,
      options.messageFunc ?? eventAggregatorByReasonMessageFunc,
      options.maxEvents || DEFAULT_AGGREGATE_MAX_EVENTS,
      options.maxIntervalInSeconds || DEFAULT_AGGREGATE_INTERVAL_SECONDS,
      clock,
    );
    this.#logger = new EventLogger(size);
  }

  /**
   * Aggregates, then counts (the count is recorded even if the event is then filtered, as upstream),
   * then applies the spam filter.
   */
  eventCorrelate(newEvent: CoreEvent): EventCorrelateResult {
    const { event: aggregated, key } = this.#aggregator.eventAggregate(newEvent);
    const { event, patch } = this.#logger.eventObserve(aggregated, key);
    if (this.#filter.filter(event)) return { skip: true };
    return { skip: false, event, patch };
  }

  /** Records the server's answer to a write, so the next repeat patches the right object (UpdateState). */
  updateState(event: CoreEvent): void {
    this.#logger.updateState(event);
  }
}
