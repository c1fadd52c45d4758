/**
 * The core/v1 event recorder and broadcaster (client-go tools/record/event.go), for clusters or tools
 * that read core/v1 Events. Events pass through an {@link EventCorrelator} (aggregation, counting, spam
 * filter) and are written one at a time per sink, with retries.
 */
import { hostname } from 'node:os';
import type { Event as CoreEvent, EventSource, ObjectReference } from '../../../api/core/v1.ts';
import { isAlreadyExists, isNotFound, statusOf } from '../../../apimachinery/errors.ts';
import type { RequestOptions } from '../../../apimachinery/options.ts';
import type { RandomSource } from '../../../util/backoff/backoff.ts';
import { realClock, type Clock } from '../../../util/clock/clock.ts';
import { defaultLogger, type Logger } from '../logger.ts';
import { formatTime } from '../meta-time.ts';
import { UniqueNanos, generateEventName, getReference, validateEventType, type EventSubject } from '../util.ts';
import { EventCorrelator, type CorrelatorOptions } from './events-cache.ts';

/** Attempts per event before giving up (record.maxTriesPerEvent). */
export const MAX_TRIES_PER_EVENT = 12;
/** Wait between attempts; the first wait is a random fraction of it (record.defaultSleepDuration). */
export const DEFAULT_RETRY_SLEEP_MS = 10_000;
/** Events queued per sink beyond which new ones are dropped (record.maxQueuedEvents). */
export const MAX_QUEUED_EVENTS = 1000;

/**
 * Where core/v1 Events are written (record.EventSink). A rejection with a Status is a refusal (the event
 * is dropped); anything else is retried.
 */
export interface EventSink {
  /** Creates an Event. */
  create(event: CoreEvent, options?: RequestOptions): Promise<CoreEvent>;
  /** Replaces an Event. */
  update(event: CoreEvent, options?: RequestOptions): Promise<CoreEvent>;
  /** Applies a strategic merge patch to the event named `event.metadata.name` in its namespace. */
  patch(event: CoreEvent, patch: Record<string, unknown>, options?: RequestOptions): Promise<CoreEvent>;
}

/** Records core/v1 events on behalf of one source (record.EventRecorder). Never blocks, never throws. */
export interface EventRecorder {
  /**
   * Records an event about `object` in the object's namespace ('default' for cluster-scoped objects).
   *
   * @param eventType 'Normal' or 'Warning'; anything else is logged and dropped.
   * @param reason Short UpperCamelCase reason, e.g. 'SuccessfulCreate'.
   * @param message Human-readable message.
   */
  event(object: EventSubject, eventType: string, reason: string, message: string): void;
  /** Same as {@link EventRecorder.event} (format the message with a template literal). */
  eventf(object: EventSubject, eventType: string, reason: string, message: string): void;
  /** {@link EventRecorder.event} with annotations on the event object. */
  annotatedEventf(object: EventSubject, annotations: Record<string, string>, eventType: string, reason: string, message: string): void;
}

/** Options of an {@link EventBroadcaster}. */
export interface EventBroadcasterOptions {
  /** Time source (default: the real clock). */
  clock?: Clock;
  /** Random source in [0, 1) for the first retry wait (default Math.random). */
  random?: RandomSource;
  /** Where failures are logged (default: errors to stderr). */
  logger?: Logger;
  /** Options of the correlator each sink gets (upstream defaults when unset). */
  correlatorOptions?: CorrelatorOptions;
  /** Per-sink queue bound (default 1000). */
  maxQueuedEvents?: number;
  /** Attempts per event (default 12). */
  maxTriesPerEvent?: number;
  /** Wait between attempts (default 10 000 ms). */
  retrySleepMs?: number;
}

/** One consumer of the broadcast: its own bounded queue, drained one event at a time. */
class QueueWatcher {
  readonly #queue: CoreEvent[] = [];
  readonly #max: number;
  readonly #handler: (event: CoreEvent) => void | Promise<void>;
  readonly #logger: Logger;
  #pump: Promise<void> | undefined;
  stopped = false;

  constructor(max: number, handler: (event: CoreEvent) => void | Promise<void>, logger: Logger) {
    this.#max = max;
    this.#handler = handler;
    this.#logger = logger;
  }

  /** Queues a copy of `event`; false when the queue is full (DropIfChannelFull). */
  offer(event: CoreEvent): boolean {
    if (this.stopped) return true;
    if (this.#queue.length >= this.#max) return false;
    this.#queue.push(structuredClone(event));
    this.#pump ??= this.#run();
    return true;
  }

  /** Resolves when the queue is empty and the handler idle. */
  idle(): Promise<void> {
    return this.#pump ?? Promise.resolve();
  }

  async #run(): Promise<void> {
    // Start on a later microtask: the recorder's caller never runs handlers.
    await Promise.resolve();
    try {
      for (let next = this.#queue.shift(); next !== undefined && !this.stopped; next = this.#queue.shift()) {
        try {
          await this.#handler(next);
        } catch (err) {
          this.#logger.error('event handler failed', { err });
        }
      }
    } finally {
      this.#pump = undefined;
    }
  }
}

/**
 * Receives core/v1 events from recorders and sends them to sinks, watchers or a logger
 * (record.EventBroadcaster).
 *
 * @example
 * const broadcaster = new EventBroadcaster();
 * broadcaster.startRecordingToSink(sink);
 * const recorder = broadcaster.newRecorder({ component: 'podset-controller' });
 * recorder.event(podSet, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`);
 */
export class EventBroadcaster {
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #logger: Logger;
  readonly #correlatorOptions: CorrelatorOptions;
  readonly #maxQueued: number;
  readonly #maxTries: number;
  readonly #retrySleepMs: number;
  readonly #nanos = new UniqueNanos();
  readonly #watchers = new Set<QueueWatcher>();
  /** Aborted on shutdown: retry waits end and each event gets no further attempt. */
  readonly #stop = new AbortController();
  #shutDown = false;

  constructor(options: EventBroadcasterOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? defaultLogger;
    this.#correlatorOptions = options.correlatorOptions ?? {};
    this.#maxQueued = options.maxQueuedEvents ?? MAX_QUEUED_EVENTS;
    this.#maxTries = options.maxTriesPerEvent ?? MAX_TRIES_PER_EVENT;
    this.#retrySleepMs = options.retrySleepMs ?? DEFAULT_RETRY_SLEEP_MS;
  }

  /** A recorder for `source` (component and host; host defaults to this machine's hostname). */
  newRecorder(source: EventSource): EventRecorder {
    const full: EventSource = { component: source.component ?? '', host: source.host ?? hostname() };
    const generate = (object: EventSubject, annotations: Record<string, string> | undefined, eventType: string, reason: string, message: string): void =>
      this.#generateEvent(full, object, annotations, eventType, reason, message);
    return {
      event: (object, eventType, reason, message) => generate(object, undefined, eventType, reason, message),
      eventf: (object, eventType, reason, message) => generate(object, undefined, eventType, reason, message),
      annotatedEventf: (object, annotations, eventType, reason, message) => generate(object, annotations, eventType, reason, message),
    };
  }

  /**
   * Sends events to `sink` through a new {@link EventCorrelator}, one at a time, retrying failures.
   * Returns a function that stops it.
   */
  startRecordingToSink(sink: EventSink): () => void {
    const correlator = new EventCorrelator({ clock: this.#clock, ...this.#correlatorOptions });
    return this.startEventWatcher((event) => this.#recordToSink(sink, event, correlator));
  }

  /** Passes each event (a copy) to `handler`, one at a time. Returns a function that stops it. */
  startEventWatcher(handler: (event: CoreEvent) => void | Promise<void>): () => void {
    const watcher = new QueueWatcher(this.#maxQueued, handler, this.#logger);
    this.#watchers.add(watcher);
    return () => {
      watcher.stopped = true;
      this.#watchers.delete(watcher);
    };
  }

  /** Logs every event at info level through `logger`. Returns a function that stops it. */
  startLogging(logger: Logger): () => void {
    return this.startEventWatcher((e) =>
      logger.info('event occurred', {
        object: `${e.involvedObject.namespace ?? ''}/${e.involvedObject.name ?? ''}`,
        kind: e.involvedObject.kind,
        type: e.type,
        reason: e.reason,
        message: e.message,
      }),
    );
  }

  /**
   * Stops accepting events. Events already queued are still processed, with a single attempt each;
   * resolves when every queue is drained.
   */
  async shutdown(): Promise<void> {
    this.#shutDown = true;
    this.#stop.abort(new Error('event broadcaster shut down'));
    await Promise.all([...this.#watchers].map((w) => w.idle()));
  }

  #generateEvent(source: EventSource, object: EventSubject, annotations: Record<string, string> | undefined, eventType: string, reason: string, message: string): void {
    let ref: ObjectReference;
    try {
      ref = getReference(object);
    } catch (err) {
      this.#logger.error('could not construct reference, will not report event', { eventType, reason, message, err });
      return;
    }
    if (!validateEventType(eventType)) {
      this.#logger.error('unsupported event type', { eventType });
      return;
    }
    const now = this.#clock.now();
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: generateEventName(ref.name ?? '', this.#nanos.next(now)), namespace: ref.namespace || 'default' },
      involvedObject: ref,
      reason,
      message,
      firstTimestamp: formatTime(now),
      lastTimestamp: formatTime(now),
      count: 1,
      type: eventType,
      source,
      reportingComponent: source.component ?? '',
      reportingInstance: source.host ?? '',
    };
    if (annotations !== undefined) event.metadata.annotations = { ...annotations };
    if (this.#shutDown) {
      this.#logger.error('unable to record event: broadcaster is shut down (will not retry!)', { reason, message });
      return;
    }
    let dropped = false;
    for (const watcher of this.#watchers) if (!watcher.offer(event)) dropped = true;
    if (dropped) this.#logger.error('unable to record event: too many queued events, dropped event', { reason, message });
  }

  async #recordToSink(sink: EventSink, event: CoreEvent, correlator: EventCorrelator): Promise<void> {
    const result = correlator.eventCorrelate(event);
    if (result.skip) return;
    const toWrite = result.event;
    const update = (toWrite.count ?? 0) > 1;
    let tries = 0;
    for (;;) {
      if (await this.#recordEvent(sink, toWrite, result.patch, update, correlator)) return;
      tries++;
      if (tries >= this.#maxTries) {
        this.#logger.error('unable to write event (retry limit exceeded!)', { event: toWrite.metadata.name });
        return;
      }
      // A random first wait keeps clients from retrying in lockstep after an API server outage.
      const delay = tries === 1 ? this.#retrySleepMs * this.#random() : this.#retrySleepMs;
      try {
        await this.#clock.sleep(delay, this.#stop.signal);
      } catch {
        this.#logger.error('unable to write event (broadcaster is shut down)', { event: toWrite.metadata.name });
        return;
      }
    }
  }

  /** One attempt (recordEvent); true when the event is written or must be abandoned, false to retry. */
  async #recordEvent(sink: EventSink, event: CoreEvent, patch: Record<string, unknown> | undefined, update: boolean, correlator: EventCorrelator): Promise<boolean> {
    let written: CoreEvent | undefined;
    let error: unknown;
    let failed = false;
    if (update) {
      try {
        written = await sink.patch(event, patch ?? {});
      } catch (err) {
        failed = true;
        error = err;
      }
    }
    // The patch fails when the event was deleted meanwhile: create it again.
    if (!update || (failed && isNotFound(error))) {
      const { resourceVersion: _rv, ...metadata } = event.metadata;
      event.metadata = metadata;
      try {
        written = await sink.create(event);
        failed = false;
      } catch (err) {
        failed = true;
        error = err;
      }
    }
    if (!failed) {
      correlator.updateState(written!);
      return true;
    }
    const status = statusOf(error);
    if (status !== undefined) {
      const terminating = status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') ?? false;
      // One line: the message, not the stack (record/event.go logs the error's text).
      const err = error instanceof Error ? error.message : String(error);
      if (isAlreadyExists(error) || terminating) this.#logger.debug('server rejected event (will not retry!)', { event: event.metadata.name, err });
      else this.#logger.error('server rejected event (will not retry!)', { event: event.metadata.name, err });
      return true;
    }
    this.#logger.error('unable to write event (may retry after sleeping)', { event: event.metadata.name, err: error });
    return false;
  }
}
