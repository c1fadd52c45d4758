/**
 * One registered handler of a shared informer (client-go shared_informer.go processorListener):
 * an unbounded buffer of notifications drained in order by the handler, so a slow handler only
 * delays itself — never the informer or the other handlers.
 */
import type { DeletedFinalStateUnknown } from './key-functions.ts';
import type { ResourceEventHandler } from './event-handlers.ts';
import { RingBuffer } from './ring-buffer.ts';

/** One notification, as the informer distributes it and {@link SharedIndexInformer.notifications} yields it. */
export type Notification<T> =
  | {
      /** An object was added. */
      readonly type: 'add';
      /** The object. */
      readonly object: T;
      /** Whether it came with the informer's initial list. */
      readonly isInInitialList: boolean;
    }
  | {
      /** An object changed (or was resynced). */
      readonly type: 'update';
      /** The object before. */
      readonly oldObject: T;
      /** The object now. */
      readonly object: T;
    }
  | {
      /** An object was deleted. */
      readonly type: 'delete';
      /** The last known object, or a tombstone. */
      readonly object: T | DeletedFinalStateUnknown<T>;
    };

/** Reports a failure (of a handler, with its notification, or of applying a delta); the informer goes on. */
export type HandlerErrorReporter = (err: unknown, notification: Notification<unknown> | undefined) => void;

/** Resyncs are never more frequent than this (shared_informer.go minimumResyncPeriod). */
export const minimumResyncPeriodMs = 1000;

/**
 * The resync period a listener actually gets (determineResyncPeriod): none when it asks for none or
 * the informer does not resync at all, otherwise at least the informer's check period.
 */
export function determineResyncPeriod(desiredMs: number, checkMs: number): number {
  if (desiredMs === 0) return 0;
  if (checkMs === 0) return 0;
  return Math.max(desiredMs, checkMs);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * A handler plus its pending notifications (processorListener). Notifications queue in a growable
 * ring buffer and are delivered by a drain loop started on demand; a handler returning a promise
 * holds back its next notification until the promise settles.
 */
export class ProcessorListener<T> {
  /** The handler notifications are delivered to. */
  readonly handler: ResourceEventHandler<T>;
  /** What the handler asked for, before adjustments. */
  readonly requestedResyncPeriodMs: number;
  /** The effective period (0 = no resyncs for this handler). */
  resyncPeriodMs: number;
  /** Earliest time of this handler's next resync. */
  nextResync = 0;
  readonly #buffer = new RingBuffer<Notification<T>>(64);
  readonly #upstreamHasSynced: () => boolean;
  readonly #report: HandlerErrorReporter;
  /** Initial-list adds queued but not yet handled (synctrack.SingleFileTracker). */
  #pendingInitial = 0;
  #started = false;
  #stopped = false;
  #draining = false;
  // The delivery in progress, if any: what stopped() waits for.
  #drainRun: Promise<void> | undefined;
  readonly #drainCallback = (): void => {
    const run = this.#drain();
    this.#drainRun = run;
    void run.finally(() => {
      if (this.#drainRun === run) this.#drainRun = undefined;
    });
  };

  constructor(
    handler: ResourceEventHandler<T>,
    requestedResyncPeriodMs: number,
    resyncPeriodMs: number,
    now: number,
    upstreamHasSynced: () => boolean,
    report: HandlerErrorReporter,
  ) {
    this.handler = handler;
    this.requestedResyncPeriodMs = requestedResyncPeriodMs;
    this.resyncPeriodMs = resyncPeriodMs;
    this.#upstreamHasSynced = upstreamHasSynced;
    this.#report = report;
    this.determineNextResync(now);
  }

  /** Number of notifications waiting for the handler. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** True once the informer synced and this handler processed every initial-list add it was given. */
  hasSynced(): boolean {
    return this.#upstreamHasSynced() && this.#pendingInitial === 0;
  }

  /** Queues a notification (never blocks). */
  add(n: Notification<T>): void {
    if (this.#stopped) return;
    if (n.type === 'add' && n.isInInitialList) this.#pendingInitial++;
    this.#buffer.push(n);
    if (this.#started && !this.#draining) this.#schedule();
  }

  /** Starts delivering (processorListener.run). */
  run(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    if (this.#buffer.length > 0 && !this.#draining) this.#schedule();
  }

  /** Stops delivering; pending notifications are dropped, as upstream. */
  stop(): void {
    this.#stopped = true;
    this.#buffer.clear();
  }

  /**
   * Resolves once the handler call in progress, if any, returned (or its promise settled): after
   * stop(), nothing of this listener runs any more (upstream's listener goroutine finishing its
   * current handler before the informer's Run returns).
   */
  async stopped(): Promise<void> {
    while (this.#drainRun !== undefined || this.#draining) {
      if (this.#drainRun !== undefined) await this.#drainRun;
      else await Promise.resolve();
    }
  }

  /** True when this handler's resync is due (processorListener.shouldResync). */
  shouldResync(now: number): boolean {
    return this.resyncPeriodMs !== 0 && now >= this.nextResync;
  }

  /** Schedules the next resync one period after `now`. */
  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriodMs;
  }

  /** Sets the resync period (0 turns resyncs off). */
  setResyncPeriod(ms: number): void {
    this.resyncPeriodMs = ms;
  }

  #schedule(): void {
    this.#draining = true;
    queueMicrotask(this.#drainCallback);
  }

  async #drain(): Promise<void> {
    try {
      while (!this.#stopped) {
        const n = this.#buffer.shift();
        if (n === undefined) break;
        let result: unknown;
        try {
          result = this.#deliver(n);
        } catch (err) {
          this.#report(err, n);
        }
        if (isThenable(result)) {
          try {
            await result;
          } catch (err) {
            this.#report(err, n);
          }
        }
        if (n.type === 'add' && n.isInInitialList && this.#pendingInitial > 0) this.#pendingInitial--;
      }
    } finally {
      this.#draining = false;
      // Notifications added while an async handler was awaited are picked up here.
      if (!this.#stopped && this.#buffer.length > 0) this.#schedule();
    }
  }

  #deliver(n: Notification<T>): unknown {
    const h = this.handler;
    switch (n.type) {
      case 'add':
        return h.onAdd?.(n.object, n.isInInitialList);
      case 'update':
        return h.onUpdate?.(n.oldObject, n.object);
      case 'delete':
        return h.onDelete?.(n.object);
    }
  }
}
