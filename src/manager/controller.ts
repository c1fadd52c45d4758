/**
 * The controller a manager runs (controller-runtime pkg/controller/controller.go and
 * pkg/internal/controller/controller.go): sources fill a priority work queue of requests, and up to
 * `maxConcurrentReconciles` workers reconcile them. It is a manager {@link Runnable} that needs
 * leadership unless told otherwise.
 *
 * Result handling is upstream's reconcileHandler: success forgets the request's backoff; `{ requeueAfterMs }`
 * forgets it and adds the request back after the delay; an error requeues with the rate limiter at the
 * same priority, except a {@link TerminalError}, which is only counted; every error counts in
 * `reconcile_errors_total`. A thrown programming error (TypeError, ReferenceError, RangeError,
 * SyntaxError, or a thrown non-Error) is what a Go panic is here: counted in `reconcile_panics_total`
 * too, then handled as an error (RecoverPanic's default). The queue never hands one request to two
 * workers at once. Failures are logged with their stack, the controller, object and reconcile ID
 * (src/manager/reconcile-error.ts); a write to a frozen cached object is rethrown as a FrozenObjectError
 * that says to copy the object first.
 *
 * On stop, reconciles in flight see their signal abort at once, as upstream, whose reconcile context
 * derives from the one given to Controller.Start (controller.go: `<-ctx.Done()`, then `wg.Wait()`); the
 * manager's graceful shutdown period only bounds how long it waits for them to return. `shutdownGracePeriodMs`
 * opts into letting them keep their signal for a while. Where kubeloom differs: `reconcileEveryMs`
 * re-reconciles each object periodically after a success (kopf's timers), which upstream leaves to a
 * hand-written RequeueAfter.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { KubeloomError } from '../apimachinery/errors.ts';
import { isTerminalError, requestFromKey, type ReconcileContext, type ReconcileFunc, type Request, type Result } from '../reconcile/reconcile.ts';
import type { ControllerQueue, Source } from '../source/source.ts';
import type { EventRecorder } from '../tools/events/interfaces.ts';
import type { Logger, LogFields } from '../tools/events/logger.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { defaultControllerRateLimiter } from '../util/workqueue/default-rate-limiters.ts';
import { ItemExponentialFailureRateLimiter } from '../util/workqueue/item-exponential-failure-rate-limiter.ts';
import type { MetricsProvider } from '../util/workqueue/metrics.ts';
import { LowPriority, PriorityQueue } from '../util/workqueue/priority-queue.ts';
import type { RateLimiter } from '../util/workqueue/rate-limiter.ts';
import { RateLimitingQueue } from '../util/workqueue/rate-limiting-queue.ts';
import { isPanic, logReconcileError, withFrozenObjectHint } from './reconcile-error.ts';
import { noopControllerMetrics, ReconcileResultLabel, type ControllerMetrics } from './metrics.ts';
import type { Runnable } from './runnable.ts';
import { CauseTracker, CauseType, errorMessage, formatCause, registerCauseTracker } from '../reconcile/causes.ts';
import { startReconcileSpan } from '../tracing/reconcile-span.ts';
import { tracingEnabled } from '../tracing/tracing.ts';
import { ReconcileHistory, type ReconcileRecord } from './reconcile-record.ts';
import type { ControllerIntrospection } from './introspection.ts';

/** Options of a controller (controller.TypedOptions); the manager fills what is marked so. */
export interface ControllerOptions<C = unknown> {
  /** Unique within the manager; labels metrics and logs. */
  name: string;
  /** Reconciles a request. */
  reconcile: ReconcileFunc<C>;
  /** Workers reconciling at once (MaxConcurrentReconciles). Default 1. */
  maxConcurrentReconciles?: number;
  /**
   * Chooses retry delays (RateLimiter). Default: per-item exponential backoff 5 ms → 1000 s with the
   * priority queue, client-go's default controller rate limiter (that plus a 10 qps bucket) without.
   */
  rateLimiter?: RateLimiter<string>;
  /** Each reconcile's signal aborts after this long (ReconciliationTimeout). Default: none. */
  reconcileTimeoutMs?: number;
  /** Fail the start if the sources have not synced after this long (CacheSyncTimeout). Default 120,000 ms. */
  cacheSyncTimeoutMs?: number;
  /** Run only on the leader (NeedLeaderElection). Default true. */
  needLeaderElection?: boolean;
  /** Use the priority queue (UsePriorityQueue; the default since controller-runtime 0.23). Default true. */
  usePriorityQueue?: boolean;
  /** Count thrown programming errors as panics (RecoverPanic). Default true; false lets them crash the manager. */
  recoverPanic?: boolean;
  /**
   * Reconcile each object again this long after its last successful reconcile, at low priority, without a
   * hand-written requeue (kopf's timers). A function gives each object its own period (undefined or ≤ 0:
   * none for that object); it runs after every successful reconcile, so it may read the cache. Upstream
   * has only the cache-global SyncPeriod (a resync of every object, by default every 10 h) and a
   * `Result{RequeueAfter}` the reconciler returns itself. Default: off.
   */
  reconcileEveryMs?: number | ((request: Request) => number | undefined);
  /** Where logs go (the manager's, with `controller` fields). */
  logger?: Logger;
  /**
   * The kind the controller reconciles (the builder's `for`): its logs then carry `controllerGroup` and
   * `controllerKind`, as controller-runtime's builder adds them.
   */
  forKind?: {
    /** The API group, '' for the core group. */
    group: string;
    /** The kind. */
    kind: string;
  };
  /** The client given to reconciles (the manager's). */
  client?: C;
  /** The recorder given to reconciles (the manager makes one per controller). */
  recorder?: EventRecorder;
  /** Controller metrics (the manager's registry). Default: none. */
  metrics?: ControllerMetrics;
  /** Workqueue metrics provider (the manager's registry). Default: the global provider. */
  queueMetricsProvider?: MetricsProvider;
  /**
   * After stop, how long in-flight reconciles keep their signal. Default 0: it aborts at once, as
   * controller-runtime cancels the reconcile context when the controller stops.
   */
  shutdownGracePeriodMs?: number;
  /** Time source. Default: the real clock. */
  clock?: Clock;
}

/** The controller failed to start (sources not synced in time, started twice). */
export class ControllerStartError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CONTROLLER_START', message);
  }
}

// Reconciles a worker runs back to back before it lets pending I/O callbacks run.
const yieldEvery = 16;


const noRecorder: EventRecorder = { eventf() {} };
const consoleLogger: Logger = { debug() {}, info: (m, f) => console.error(m, f ?? ''), error: (m, f) => console.error(m, f ?? '') };

function withFields(logger: Logger, fields: LogFields): Logger {
  return {
    debug: (m, f) => logger.debug(m, { ...fields, ...f }),
    info: (m, f) => logger.info(m, { ...fields, ...f }),
    error: (m, f) => logger.error(m, { ...fields, ...f }),
  };
}

/** Reconcile counts, for status lines and tests (the figures the metrics report). */
export interface ManagedControllerStats {
  /** Successful reconciles. */
  readonly success: number;
  /** Reconciles that asked for a requeue after a delay. */
  readonly requeueAfter: number;
  /** Reconciles that threw (terminal ones included). */
  readonly error: number;
  /** Terminal errors. */
  readonly terminal: number;
  /** Panics (programming errors). */
  readonly panics: number;
  /** Reconciles running now. */
  readonly active: number;
  /** Requests ready in the queue. */
  readonly queueDepth: number;
}

/** Stops one source added by {@link ManagedController.watch}. */
export interface WatchHandle {
  /** Stops the source; resolves once it released what it held (its informer, for a dynamic kind source). */
  stop(): Promise<void>;
}

/**
 * A controller run by a manager (controller.Controller). Build it with the builder
 * (`controllerManagedBy(mgr).for(...).complete(...)`) or by hand: `newController` then `watch(source)`.
 */
export class ManagedController<C = unknown> implements Runnable {
  /** The controller's name. */
  readonly name: string;
  /** The work queue of request keys (`namespace/name`). */
  readonly queue: ControllerQueue;
  readonly #o: ControllerOptions<C>;
  readonly #sources: Source[] = [];
  // Each source's own stop (WatchHandle.stop), combined with the controller's signal at start.
  readonly #sourceStops = new Map<Source, AbortController>();
  readonly #clock: Clock;
  readonly #metrics: ControllerMetrics;
  readonly #logger: Logger;
  readonly #workers: number;
  readonly #abortInFlight = new AbortController();
  #started = false;
  #queueSignal: AbortSignal | undefined;
  #counts = { success: 0, requeueAfter: 0, error: 0, terminal: 0, panics: 0, active: 0 };
  // Introspection (kubeloom): why each request is queued, what runs now, what ran lately.
  readonly #causes: CauseTracker;
  readonly #inFlight = new Map<string, number>();
  readonly #history = new ReconcileHistory();
  #retries = 0;
  #lastError: { message: string; key: string; time: number } | undefined;

  constructor(options: ControllerOptions<C>) {
    this.name = options.name;
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#metrics = options.metrics ?? noopControllerMetrics;
    this.#logger = withFields(options.logger ?? consoleLogger, { controller: options.name, ...(options.forKind !== undefined ? { controllerGroup: options.forKind.group, controllerKind: options.forKind.kind } : {}) });
    this.#workers = options.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(this.#workers) || this.#workers < 1) throw new ControllerStartError(`maxConcurrentReconciles must be a positive integer, got ${this.#workers}`);
    const provider = options.queueMetricsProvider !== undefined ? { metricsProvider: options.queueMetricsProvider } : {};
    this.queue =
      options.usePriorityQueue === false
        ? new RateLimitingQueue<string>({ name: options.name, clock: this.#clock, rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter<string>({ clock: this.#clock }), ...provider })
        : new PriorityQueue<string>({ name: options.name, clock: this.#clock, rateLimiter: options.rateLimiter ?? new ItemExponentialFailureRateLimiter<string>(5, 1_000_000), ...provider });
    this.#causes = new CauseTracker(() => this.#clock.now());
    registerCauseTracker(this.queue, this.#causes);
  }

  /**
   * Adds a source (controller.Watch). Sources added after start are started at once. The handle stops
   * this source alone (kubeloom: controller-runtime has no way to stop one watch, #935): its events stop
   * reaching the queue and, for a `dynamicKindSource` (kubeloom/source), its informer is released.
   */
  watch(source: Source): WatchHandle {
    const stop = new AbortController();
    this.#sources.push(source);
    this.#sourceStops.set(source, stop);
    if (this.#started && this.#queueSignal !== undefined) source.start(this.queue, AbortSignal.any([this.#queueSignal, stop.signal]));
    return {
      stop: async () => {
        const i = this.#sources.indexOf(source);
        if (i < 0) return;
        this.#sources.splice(i, 1);
        this.#sourceStops.delete(source);
        stop.abort();
        await source.stopped?.();
      },
    };
  }

  /** Whether the controller needs leadership (LeaderElectionRunnable). */
  needLeaderElection(): boolean {
    return this.#o.needLeaderElection ?? true;
  }

  /** Counts so far. */
  stats(): ManagedControllerStats {
    return { ...this.#counts, queueDepth: this.queue.len() };
  }

  /** What the controller is doing, for `/debug/controllers` (kubeloom). */
  introspect(): ControllerIntrospection {
    const now = this.#clock.now();
    let oldest: number | undefined;
    for (const key of this.#causes.keys()) {
      if (this.#inFlight.has(key)) continue;
      const first = this.#causes.peek(key)[0];
      if (first !== undefined && (oldest === undefined || first.time < oldest)) oldest = first.time;
    }
    return {
      name: this.name,
      workers: this.#workers,
      workersBusy: this.#counts.active,
      reconciles: this.#counts.success + this.#counts.requeueAfter + this.#counts.error,
      success: this.#counts.success,
      requeueAfter: this.#counts.requeueAfter,
      errors: this.#counts.error,
      terminalErrors: this.#counts.terminal,
      panics: this.#counts.panics,
      ...(this.#lastError !== undefined ? { lastError: { ...this.#lastError, ageSeconds: (now - this.#lastError.time) / 1000 } } : {}),
      queue: {
        depth: this.queue.len(),
        ...(oldest !== undefined ? { oldestItemAgeSeconds: (now - oldest) / 1000 } : {}),
        inFlight: [...this.#inFlight].map(([key, since]) => ({ key, seconds: (now - since) / 1000 })),
        pending: [...this.#causes.keys()].slice(0, 50).map((key) => ({ key, causes: this.#causes.peek(key).length })),
        retries: this.#retries,
        priority: this.queue.addWithOpts !== undefined,
      },
    };
  }

  /** The newest reconciles (at most 500), oldest first; only those after `afterId` when given. */
  recentReconciles(afterId?: number): ReconcileRecord[] {
    return this.#history.list(afterId);
  }

  /**
   * Starts the sources, waits for them to sync (at most cacheSyncTimeoutMs), then runs the workers until
   * `signal` aborts, which aborts in-flight reconciles' signal (after `shutdownGracePeriodMs`, if set). Rejects
   * with {@link ControllerStartError} if the sources did not sync in time.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new ControllerStartError(`controller ${this.name} was already started`);
    this.#started = true;
    this.#queueSignal = signal;
    let grace: { stop(): boolean } | undefined;
    const onStop = (): void => {
      this.queue.shutDown();
      const graceMs = this.#o.shutdownGracePeriodMs ?? 0;
      if (graceMs <= 0) this.#abortInFlight.abort(signal.reason);
      else grace = this.#clock.afterFunc(graceMs, () => this.#abortInFlight.abort(signal.reason));
    };
    if (signal.aborted) onStop();
    else signal.addEventListener('abort', onStop, { once: true });
    try {
      this.#metrics.init(this.name, this.#workers);
      for (const s of this.#sources) s.start(this.queue, AbortSignal.any([signal, this.#sourceStops.get(s)?.signal ?? signal]));
      this.#logger.info('Starting Controller');
      if (!(await this.#waitForSources(signal))) return;
      this.#logger.info('Starting workers', { workerCount: this.#workers });
      const workers: Promise<void>[] = [];
      for (let i = 0; i < this.#workers; i++) workers.push(this.#worker());
      await Promise.all(workers);
      this.#logger.info('All workers finished');
    } finally {
      signal.removeEventListener('abort', onStop);
      grace?.stop();
      this.queue.shutDown();
    }
  }

  async #waitForSources(signal: AbortSignal): Promise<boolean> {
    const timeoutMs = this.#o.cacheSyncTimeoutMs ?? 120_000;
    const deadline = this.#clock.now() + timeoutMs;
    while (!this.#sources.every((s) => s.hasSynced())) {
      if (signal.aborted) return false;
      if (this.#clock.now() >= deadline) {
        const pending = this.#sources.filter((s) => !s.hasSynced()).map((s) => s.description);
        throw new ControllerStartError(`controller ${this.name}: timed out waiting for cache to be synced for ${pending.join(', ')}`);
      }
      try {
        await this.#clock.sleep(10, signal);
      } catch {
        return false;
      }
    }
    return true;
  }

  async #worker(): Promise<void> {
    let sinceYield = 0;
    for (;;) {
      // A queue that always has work resolves get() at once: without a turn of the event loop now and
      // then, watch events and HTTP responses would wait until the backlog is drained. This is not a
      // time source, only a yield to I/O.
      if (++sinceYield >= yieldEvery) {
        sinceYield = 0;
        await yieldToIo();
      }
      const next = this.queue.addWithOpts !== undefined ? await (this.queue as PriorityQueue<string>).getWithPriority() : { ...(await this.queue.get()), priority: 0 };
      if (next.shutdown) return;
      this.#counts.active++;
      this.#inFlight.set(next.item, this.#clock.now());
      this.#metrics.activeWorkers(this.name, 1);
      try {
        await this.#reconcileHandler(next.item, next.priority);
      } finally {
        this.#inFlight.delete(next.item);
        this.#counts.active--;
        this.#metrics.activeWorkers(this.name, -1);
        this.queue.done(next.item);
      }
    }
  }

  #add(key: string, opts: { afterMs?: number; rateLimited?: boolean; priority: number }, reason: string): void {
    const r = requestFromKey(key);
    this.#causes.record(key, { type: CauseType.Requeue, kind: '', namespace: r.namespace, name: r.name, resourceVersion: '', predicates: [], handler: '', reason, time: this.#clock.now() });
    if (this.queue.addWithOpts !== undefined) this.queue.addWithOpts(opts, key);
    else if (opts.rateLimited === true) this.queue.addRateLimited(key);
    else if ((opts.afterMs ?? 0) > 0) this.queue.addAfter(key, opts.afterMs!);
    else this.queue.add(key);
  }

  async #reconcileHandler(key: string, priority: number): Promise<void> {
    const request: Request = requestFromKey(key);
    const causes = this.#causes.take(key);
    const id = ++reconcileCounter;
    // reconcileID is a UUID, as upstream's (types.UID(uuid.NewUUID())).
    const logger = withFields(this.#logger, { object: key, namespace: request.namespace, name: request.name, reconcileID: randomUUID(), causes: causes.map(formatCause) });
    const timeoutMs = this.#o.reconcileTimeoutMs;
    const timeout = timeoutMs !== undefined && timeoutMs > 0 ? new AbortController() : undefined;
    const timer = timeout !== undefined ? this.#clock.afterFunc(timeoutMs!, () => timeout.abort(new KubeloomError('ERR_RECONCILE_TIMEOUT', `reconcile of ${key} timed out after ${timeoutMs} ms`))) : undefined;
    const signal = timeout !== undefined ? AbortSignal.any([this.#abortInFlight.signal, timeout.signal]) : this.#abortInFlight.signal;
    const context: ReconcileContext<C> = { signal, logger, client: this.#o.client as C, recorder: this.#o.recorder ?? noRecorder, controllerName: this.name, causes };
    const start = this.#clock.now();
    const span = tracingEnabled() ? startReconcileSpan(this.name, key, causes, causes[0]?.time, start) : undefined;
    const record = (result: ReconcileRecord['result'], err?: unknown): void => {
      const durationMs = this.#clock.since(start);
      span?.end(result, err);
      const error = err === undefined ? undefined : errorMessage(err);
      this.#history.push({ id, controller: this.name, key, start, durationMs, result, causes, ...(error !== undefined ? { error } : {}), ...(span !== undefined ? { traceId: span.traceId } : {}) });
      logger.debug('Reconcile done', { result, durationMs, ...(span !== undefined ? { traceID: span.traceId } : {}) });
    };
    let result: Result;
    try {
      result = await (span !== undefined ? span.run(async () => this.#o.reconcile(request, context)) : this.#o.reconcile(request, context));
    } catch (thrown) {
      const err = withFrozenObjectHint(thrown);
      record('error', err);
      this.#lastError = { message: errorMessage(err), key, time: this.#clock.now() };
      this.#metrics.time(this.name, this.#clock.since(start) / 1000);
      if (isPanic(err)) {
        this.#counts.panics++;
        this.#metrics.panic(this.name);
        if (this.#o.recoverPanic === false) {
          logger.info(`Observed a panic in reconciler: ${err instanceof Error ? err.message : String(err)}`);
          throw err;
        }
      }
      const terminal = isTerminalError(err);
      this.#counts.error++;
      if (terminal) this.#counts.terminal++;
      else {
        this.#retries++;
        this.#add(key, { rateLimited: true, priority }, 'error');
      }
      this.#metrics.error(this.name, terminal);
      this.#metrics.result(this.name, ReconcileResultLabel.Error);
      if (typeof (err as { requeueAfterMs?: unknown } | undefined)?.requeueAfterMs === 'number') {
        logger.info('Warning: Reconciler returned both a non-zero result and a non-nil error. The result will always be ignored if the error is non-nil and the non-nil error causes requeuing with exponential backoff.');
      }
      logReconcileError(logger, err, terminal ? { terminal } : {});
      return;
    } finally {
      timer?.stop();
    }
    this.#metrics.time(this.name, this.#clock.since(start) / 1000);
    this.queue.forget(key);
    if (result !== undefined && result !== null && result.requeueAfterMs > 0) {
      record('requeue_after');
      this.#counts.requeueAfter++;
      this.#add(key, { afterMs: result.requeueAfterMs, priority }, 'requeueAfter');
      this.#metrics.result(this.name, ReconcileResultLabel.RequeueAfter);
      return;
    }
    record('success');
    this.#counts.success++;
    this.#metrics.result(this.name, ReconcileResultLabel.Success);
    const option = this.#o.reconcileEveryMs;
    const every = typeof option === 'function' ? option(request) : option;
    if (every !== undefined && every > 0) this.#add(key, { afterMs: every, priority: LowPriority }, 'reconcileEvery');
  }
}


/** Process-wide sequence of reconciles: the id of each entry of a controller's reconcile history (the dashboard's timeline). */
let reconcileCounter = 0;
