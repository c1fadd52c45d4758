/**
 * The events.k8s.io/v1 event broadcaster (client-go tools/events event_broadcaster.go): takes events from
 * recorders without blocking them, folds repeats into series, and writes to an {@link EventSink} in the
 * background with bounded retries.
 *
 * Series: an event identical to one seen before (same type, action, reason, reporting controller and
 * instance, regarding and related object) is not written again. The second occurrence turns the cached
 * event into a series (count 2) and patches it at once; later occurrences only bump the cached
 * `series.count` and `series.lastObservedTime`, which reach the server when the series is refreshed
 * (every 30 minutes) or finished (checked every 6 minutes: a series not observed for 6 minutes is
 * written one last time and forgotten). Singleton events leave the cache 6 minutes after they happened,
 * so an identical event after that starts afresh — the cache is a TTL cache.
 */
import { hostname } from 'node:os';
import type { Event } from '../../api/events/v1.ts';
import { KubeloomError, isAlreadyExists, isNotFound, statusOf } from '../../apimachinery/errors.ts';
import { jitter, type RandomSource } from '../../util/backoff/backoff.ts';
import { realClock, type Clock } from '../../util/clock/clock.ts';
import { RecorderImpl } from './event-recorder.ts';
import type { EventRecorder, EventSink } from './interfaces.ts';
import { defaultLogger, type Logger } from './logger.ts';
import { formatMicroTime, parseTime } from './meta-time.ts';
import { UniqueNanos, referenceKey } from './util.ts';

/** An error as one log line (its message, not its stack). */
function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Attempts per event write before giving up (events.maxTriesPerEvent). */
export const MAX_TRIES_PER_EVENT = 12;
/** A series not observed for this long is finished; also how often that is checked (events.finishTime). */
export const SERIES_FINISH_MS = 6 * 60_000;
/** How often ongoing series are written to the server (events.refreshTime). */
export const SERIES_REFRESH_MS = 30 * 60_000;
/** Events accepted but not yet written beyond which new ones are dropped (events.maxQueuedEvents). */
export const MAX_QUEUED_EVENTS = 1000;
/** Base wait between write attempts, jittered by up to 25% (events.defaultSleepDuration). */
export const DEFAULT_RETRY_SLEEP_MS = 10_000;

/** Options of an {@link EventBroadcaster}. Durations in ms; defaults are upstream's. */
export interface EventBroadcasterOptions {
  /** Time source (default: the real clock). */
  clock?: Clock;
  /** Random source in [0, 1) for retry jitter (default Math.random). */
  random?: RandomSource;
  /** Where failures are logged (default: errors to stderr). */
  logger?: Logger;
  /** Bound on events queued or being written; further events are dropped and logged (default 1000). */
  maxQueuedEvents?: number;
  /** Attempts per write (default 12). */
  maxTriesPerEvent?: number;
  /** Base wait between attempts, jittered by up to 25% (default 10 000). */
  retrySleepMs?: number;
  /** Series refresh period (default 30 min). */
  seriesRefreshMs?: number;
  /** Series finish period and idle time (default 6 min). */
  seriesFinishMs?: number;
}

/** Options of {@link EventBroadcaster.newRecorder}. */
export interface NewRecorderOptions {
  /** Identifies this instance of the controller (default `<reportingController>-<hostname>`). */
  reportingInstance?: string;
}

/** {@link EventBroadcaster.startRecordingToSink} was called a second time. */
export class SinkAlreadyStartedError extends KubeloomError {
  constructor() {
    super('ERR_SINK_ALREADY_STARTED', 'EventBroadcaster is already recording to a sink');
  }
}

interface CacheEntry {
  event: Event;
  /** When the event (first occurrence) happened, ms. */
  eventTime: number;
}

type Handler = (event: Event) => void;

/** The identity of an event for series purposes (events.getKey). */
function seriesKey(event: Event): string {
  return JSON.stringify([
    event.type ?? '',
    event.action ?? '',
    event.reason ?? '',
    event.reportingController ?? '',
    event.reportingInstance ?? '',
    referenceKey(event.regarding),
    referenceKey(event.related),
  ]);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * Distributes events from its recorders to watchers and (once started) to a sink.
 *
 * @example
 * const broadcaster = new EventBroadcaster();
 * broadcaster.startRecordingToSink(sink);
 * const recorder = broadcaster.newRecorder('kubeloom.dev/podset-controller');
 * recorder.eventf(podSet, pod, 'Normal', 'SuccessfulCreate', 'Create', `Created pod: ${pod.metadata?.name}`);
 * // on exit
 * await broadcaster.shutdown();
 */
export class EventBroadcaster {
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #logger: Logger;
  readonly #maxQueued: number;
  readonly #maxTries: number;
  readonly #retrySleepMs: number;
  readonly #refreshMs: number;
  readonly #finishMs: number;
  readonly #nanos = new UniqueNanos();

  /** Events accepted from recorders, not yet handed to watchers. */
  #queue: Event[] = [];
  #drainScheduled = false;
  readonly #watchers = new Set<Handler>();
  /** Writes in progress (including their retry waits). Queue plus these is bounded by maxQueued. */
  readonly #inflight = new Set<Promise<void>>();
  /** Aborted by shutdown (and by the signal given to startRecordingToSink): ends loops and retry waits. */
  readonly #stop = new AbortController();
  #sink: EventSink | undefined;
  /** Series state by {@link seriesKey}. */
  readonly #cache = new Map<string, CacheEntry>();
  #loops: Promise<void>[] = [];
  #shutDown = false;

  constructor(options: EventBroadcasterOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? defaultLogger;
    this.#maxQueued = options.maxQueuedEvents ?? MAX_QUEUED_EVENTS;
    this.#maxTries = options.maxTriesPerEvent ?? MAX_TRIES_PER_EVENT;
    this.#retrySleepMs = options.retrySleepMs ?? DEFAULT_RETRY_SLEEP_MS;
    this.#refreshMs = options.seriesRefreshMs ?? SERIES_REFRESH_MS;
    this.#finishMs = options.seriesFinishMs ?? SERIES_FINISH_MS;
  }

  /** A recorder whose events carry `reportingController` and its instance. */
  newRecorder(reportingController: string, options: NewRecorderOptions = {}): EventRecorder {
    return new RecorderImpl({
      reportingController,
      reportingInstance: options.reportingInstance ?? `${reportingController}-${hostname()}`,
      emitter: { emit: (event) => this.#emit(event) },
      clock: this.#clock,
      nanos: this.#nanos,
      logger: this.#logger,
    });
  }

  /**
   * Starts writing events to `sink`, and the series refresh and finish loops. May be called once
   * ({@link SinkAlreadyStartedError} otherwise); the loops end when `signal` aborts or on
   * {@link EventBroadcaster.shutdown}.
   */
  startRecordingToSink(sink: EventSink, options: { signal?: AbortSignal } = {}): void {
    if (this.#sink !== undefined) throw new SinkAlreadyStartedError();
    this.#sink = sink;
    options.signal?.addEventListener('abort', () => this.#stop.abort(options.signal?.reason), { once: true });
    this.#watchers.add((event) => this.#recordToSink(event));
    this.#loops = [this.#every(this.#refreshMs, () => this.#refreshExistingEventSeries()), this.#every(this.#finishMs, () => this.#finishSeries())];
  }

  /** Passes every event to `handler` (a copy per watcher). Returns a function that stops it. */
  startEventWatcher(handler: (event: Event) => void): () => void {
    const watcher: Handler = (event) => handler(event);
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** Logs every event at info level through `logger`. Returns a function that stops it. */
  startLogging(logger: Logger): () => void {
    return this.startEventWatcher((e) =>
      logger.info('event occurred', {
        object: `${e.regarding?.namespace ?? ''}/${e.regarding?.name ?? ''}`,
        kind: e.regarding?.kind,
        apiVersion: e.regarding?.apiVersion,
        type: e.type,
        reason: e.reason,
        action: e.action,
        note: e.note,
      }),
    );
  }

  /**
   * Stops accepting events and stops the loops. Events already accepted are handed to the sink; writes
   * in progress make their current attempt but are not retried. Resolves when all of that is done.
   */
  async shutdown(): Promise<void> {
    this.#shutDown = true;
    this.#drain();
    this.#stop.abort(new Error('event broadcaster shut down'));
    await Promise.allSettled([...this.#inflight, ...this.#loops]);
  }

  /** Number of events accepted and not yet fully written (queued or being written). */
  pending(): number {
    return this.#queue.length + this.#inflight.size;
  }

  #emit(event: Event): boolean {
    if (this.#shutDown) {
      this.#logger.error('unable to record event: broadcaster is shut down (will not retry!)', { event: event.metadata?.name });
      return false;
    }
    if (this.pending() >= this.#maxQueued) {
      this.#logger.error('unable to record event: too many queued events, dropped event', { event: event.metadata?.name, reason: event.reason, note: event.note });
      return false;
    }
    this.#queue.push(event);
    if (!this.#drainScheduled) {
      this.#drainScheduled = true;
      queueMicrotask(() => this.#drain());
    }
    return true;
  }

  #drain(): void {
    this.#drainScheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    for (const event of batch) {
      for (const watcher of this.#watchers) {
        try {
          watcher(clone(event));
        } catch (err) {
          this.#logger.error('event watcher failed', { err });
        }
      }
    }
  }

  /** Series bookkeeping for one event, then a background write if one is due (recordToSink). */
  #recordToSink(event: Event): void {
    const key = seriesKey(event);
    const now = this.#clock.now();
    const isomorphic = this.#cache.get(key);
    let toRecord: Event;
    if (isomorphic !== undefined) {
      if (isomorphic.event.series !== undefined) {
        isomorphic.event.series.count++;
        isomorphic.event.series.lastObservedTime = formatMicroTime(now);
        return;
      }
      isomorphic.event.series = { count: 2, lastObservedTime: formatMicroTime(now) };
      toRecord = clone(isomorphic.event);
    } else {
      this.#cache.set(key, { event, eventTime: parseTime(event.eventTime) ?? now });
      toRecord = clone(event);
    }
    // The server's answer never replaces the cached event: server-side changes must not disturb series.
    this.#track(this.#attemptRecording(toRecord));
  }

  #track(write: Promise<void>): void {
    const tracked: Promise<void> = write
      .catch((err: unknown) => this.#logger.error('unable to write event', { err }))
      .finally(() => this.#inflight.delete(tracked));
    this.#inflight.add(tracked);
  }

  async #attemptRecording(event: Event): Promise<void> {
    let tries = 0;
    for (;;) {
      if ((await this.#recordEvent(event)).retry === false) return;
      tries++;
      if (tries >= this.#maxTries) {
        this.#logger.error('unable to write event (retry limit exceeded!)', { event: event.metadata?.name });
        return;
      }
      try {
        await this.#clock.sleep(jitter(this.#retrySleepMs, 0.25, this.#random), this.#stop.signal);
      } catch {
        this.#logger.error('unable to write event (broadcaster is shut down)', { event: event.metadata?.name });
        return;
      }
    }
  }

  /**
   * One write (recordEvent): a series is patched, falling back to a create when the event is gone; a
   * new event is created. A rejection with a Status means the server refused the event: it is dropped,
   * except an AlreadyExists for a series (a create racing the first write), which is retried. Anything
   * else (network) is retried.
   */
  async #recordEvent(event: Event): Promise<{ recorded?: Event; retry: boolean }> {
    const sink = this.#sink!;
    const isSeries = event.series !== undefined;
    let error: unknown;
    let recorded: Event | undefined;
    let failed = false;
    if (isSeries) {
      try {
        recorded = await sink.patch(event, { series: { count: event.series!.count, lastObservedTime: event.series!.lastObservedTime } });
      } catch (err) {
        failed = true;
        error = err;
      }
    }
    if (!isSeries || (failed && isNotFound(error))) {
      if (event.metadata?.resourceVersion !== undefined) {
        const { resourceVersion: _rv, ...metadata } = event.metadata;
        event.metadata = metadata;
      }
      try {
        recorded = await sink.create(event);
        failed = false;
      } catch (err) {
        failed = true;
        error = err;
      }
    }
    if (!failed) return { recorded: recorded!, retry: false };
    const status = statusOf(error);
    if (status !== undefined) {
      // One line, and at debug level for an event into a namespace being deleted (event_broadcaster.go
      // recordEvent: AlreadyExists or a NamespaceTerminating cause is V(5) Info, anything else Error).
      const terminating = status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') ?? false;
      if (isAlreadyExists(error)) {
        if (isSeries) return { retry: true };
        this.#logger.debug('server rejected event (will not retry!)', { event: event.metadata?.name, err: errorText(error) });
      } else if (terminating) {
        this.#logger.debug('server rejected event (will not retry!)', { event: event.metadata?.name, err: errorText(error) });
      } else {
        this.#logger.error('server rejected event (will not retry!)', { event: event.metadata?.name, err: errorText(error) });
      }
      return { retry: false };
    }
    this.#logger.error('unable to write event (may retry after sleeping)', { event: event.metadata?.name, err: errorText(error) });
    return { retry: true };
  }

  /** Writes every ongoing series (refreshExistingEventSeries). */
  async #refreshExistingEventSeries(): Promise<void> {
    for (const entry of [...this.#cache.values()]) {
      if (entry.event.series === undefined) continue;
      await this.#recordEvent(clone(entry.event));
    }
  }

  /** Finishes series idle for the finish time and forgets old singleton events (finishSeries). */
  async #finishSeries(): Promise<void> {
    for (const [key, entry] of [...this.#cache]) {
      const series = entry.event.series;
      const cutoff = this.#clock.now() - this.#finishMs;
      if (series !== undefined) {
        if ((parseTime(series.lastObservedTime) ?? 0) < cutoff) {
          const snapshot = clone(entry.event);
          const { retry } = await this.#recordEvent(snapshot);
          // Keep the series if it was observed again while being written: that count is not on the server.
          if (!retry && this.#cache.get(key) === entry && entry.event.series?.count === snapshot.series?.count) this.#cache.delete(key);
        }
      } else if (entry.eventTime < cutoff) {
        this.#cache.delete(key);
      }
    }
  }

  /** Runs `fn` now and then `periodMs` after each run ends (wait.UntilWithContext), until stopped. */
  async #every(periodMs: number, fn: () => Promise<void>): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        await fn();
      } catch (err) {
        this.#logger.error('event series maintenance failed', { err });
      }
      try {
        await this.#clock.sleep(periodMs, signal);
      } catch {
        return;
      }
    }
  }
}
