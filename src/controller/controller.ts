/**
 * The controller loop written once: informers feed keys into a rate-limited work queue, and N workers
 * reconcile them (the pattern of client-go's sample-controller and the ReplicaSet controller, with
 * controller-runtime's result handling).
 */
import type { Counter, Histogram } from 'prom-client';
import { KubeloomError } from '../apimachinery/errors.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { defaultControllerRateLimiter } from '../util/workqueue/default-rate-limiters.ts';
import { newPrometheusMetricsProvider } from '../util/workqueue/prometheus-metrics.ts';
import { asPromRegistry, promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { RateLimiter } from '../util/workqueue/rate-limiter.ts';
import { RateLimitingQueue, type RateLimitingInterface } from '../util/workqueue/rate-limiting-queue.ts';
import type { HasSynced, KeySink } from './event-handler.ts';
import type { Logger } from '../tools/events/logger.ts';

/** What a reconcile asks for: nothing (done) or another pass after a delay. */
export type ReconcileResult =
  | {
      /** Reconcile the key again after this many milliseconds. */
      requeueAfterMs: number;
    }
  | undefined;

/** Passed to every reconcile. */
export interface ReconcileContext {
  /**
   * Aborts when the controller gives up on in-flight work: after its stop signal fired and the
   * shutdown grace period ran out. Pass it to API calls.
   */
  signal: AbortSignal;
}

/**
 * Brings the object named by `key` (`namespace/name`) to its desired state. Return nothing when
 * done, `{ requeueAfterMs }` to look again later, or throw to be retried with the rate limiter.
 */
export type ReconcileFunc = (key: string, context: ReconcileContext) => Promise<ReconcileResult | void>;

/** Options of {@link Controller}. */
export interface ControllerOptions {
  /** Names the queue and labels the metrics. */
  name: string;
  /**
   * Caches that must have synced before workers start: informers, or the registrations their
   * `addEventHandler` returned (which also wait for the handler to have seen the initial list).
   * Default: none.
   */
  informers?: readonly HasSynced[];
  /** The reconcile function. */
  reconcile: ReconcileFunc;
  /** Concurrent workers; a positive integer. Default 1 (upstream controllers usually run 1–5). */
  workers?: number;
  /** Chooses retry delays. Default: {@link defaultControllerRateLimiter} on `clock`. */
  rateLimiter?: RateLimiter<string>;
  /** Time source for the queue, durations and the shutdown grace. Default: {@link realClock}. */
  clock?: Clock;
  /**
   * Registers the controller's and its queue's metrics in this prom-client `Registry` (prom-client,
   * a dependency of kubeloom, is loaded then). Default: none recorded, prom-client not loaded.
   */
  metrics?: PrometheusRegistry;
  /** Reports reconcile errors. Default: one `console.error` line per failure. */
  onError?: (error: unknown, key: string) => void;
  /** How often to poll informers while waiting for them to sync (upstream WaitForCacheSync: 100 ms). */
  cacheSyncPollMs?: number;
  /**
   * If the caches have not synced this long after `run`, log it once, naming the informers that were
   * never started (the usual cause: a factory's `start()` or an informer's `run()` was not called)
   * and those still syncing. Default 10,000 ms; a first LIST of 100k objects can take about as long.
   * Workers start as soon as the caches sync either way.
   */
  cacheSyncWarningMs?: number;
  /** Where the controller logs (the cache-sync message). Default: `console.error`. */
  logger?: Logger;
  /**
   * After the stop signal, how long in-flight reconciles may run before their signal aborts.
   * Default 30,000 ms.
   */
  shutdownGracePeriodMs?: number;
}

/** Counts kept for status lines and summaries (the same figures the metrics report). */
export interface ControllerStats {
  /** Finished reconciles by result: success, requeue_after, error. */
  readonly success: number;
  /** Reconciles that asked to be requeued after a delay. */
  readonly requeueAfter: number;
  /** Reconciles that threw (retried with the rate limiter). */
  readonly error: number;
  /** Reconciles running now. */
  readonly inFlight: number;
  /** Keys waiting in the queue. */
  readonly queueDepth: number;
}

/** Thrown by {@link Controller.run} when it is started twice, or with a bad worker count. */
export class ControllerError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CONTROLLER', message);
  }
}

/** Reconcile result labels, as controller-runtime's `controller_runtime_reconcile_total`. */
const Result = { Success: 'success', RequeueAfter: 'requeue_after', Error: 'error' } as const;

// Upstream controller-runtime reconcile_time_seconds buckets, trimmed to what a reconcile takes.
const reconcileBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface ControllerMetrics {
  total: Counter<'controller' | 'result'>;
  errors: Counter<'controller'>;
  duration: Histogram<'controller'>;
}

function controllerMetrics(metrics: PrometheusRegistry): ControllerMetrics {
  const { Counter, Histogram } = promClient();
  const registry = asPromRegistry(metrics);
  // Several controllers share one registry: each metric is registered once and labelled per controller.
  const existing = <M>(name: string): M | undefined => registry.getSingleMetric(name) as M | undefined;
  return {
    total:
      existing<Counter<'controller' | 'result'>>('controller_reconcile_total') ??
      new Counter({ name: 'controller_reconcile_total', help: 'Total number of reconciliations per controller and result.', labelNames: ['controller', 'result'], registers: [registry] }),
    errors:
      existing<Counter<'controller'>>('controller_reconcile_errors_total') ??
      new Counter({ name: 'controller_reconcile_errors_total', help: 'Total number of reconciliation errors per controller.', labelNames: ['controller'], registers: [registry] }),
    duration:
      existing<Histogram<'controller'>>('controller_reconcile_duration_seconds') ??
      new Histogram({
        name: 'controller_reconcile_duration_seconds',
        help: 'Length of time per reconciliation per controller.',
        labelNames: ['controller'],
        buckets: reconcileBuckets,
        registers: [registry],
      }),
  };
}

// The default logger: the cache-sync message is worth seeing without configuration.
const consoleLogger: Logger = {
  debug() {},
  info: (message) => console.error(message),
  error: (message) => console.error(message),
};

function defaultOnError(name: string): (error: unknown, key: string) => void {
  return (error, key) => console.error(`${name}: error reconciling ${JSON.stringify(key)}: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * A controller: a rate-limited queue of keys, the informers that fill it, and workers running
 * `reconcile`. Add event handlers (see `enqueueForObject`, `enqueueForOwner`, `enqueueMapped`) that
 * put keys into it, then `run` it.
 *
 * - Workers start once every informer has synced, so reconciles never see a half-filled cache.
 * - A key is never reconciled by two workers at once (the queue guarantees it).
 * - Success forgets the key's failure history; `{ requeueAfterMs }` forgets it too and adds the key
 *   back after the delay; a throw reports the error and requeues with the rate limiter.
 * - Stopping drains: workers take no new keys, in-flight reconciles finish (or see their signal
 *   abort after the grace period), then `run` resolves.
 *
 * @example
 * const controller = new Controller({ name: 'podsets', informers: [podSets, pods], workers: 2, reconcile });
 * podSets.addEventHandler(enqueueForObject(controller));
 * await controller.run({ signal });
 */
export class Controller implements KeySink {
  /** The name given in the options (queue name and metrics label). */
  readonly name: string;
  /** The work queue; exposed for depth and for helpers that need `addAfter`. */
  readonly queue: RateLimitingInterface<string>;
  readonly #informers: readonly HasSynced[];
  readonly #reconcile: ReconcileFunc;
  readonly #workers: number;
  readonly #clock: Clock;
  readonly #metrics: ControllerMetrics | undefined;
  readonly #onError: (error: unknown, key: string) => void;
  readonly #pollMs: number;
  readonly #syncWarningMs: number;
  readonly #logger: Logger;
  readonly #graceMs: number;
  // Aborted when in-flight reconciles must give up (stop + grace period elapsed).
  readonly #reconcileAbort = new AbortController();
  #started = false;
  #synced = false;
  #inFlight = 0;
  #counts = { success: 0, requeueAfter: 0, error: 0 };

  constructor(options: ControllerOptions) {
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1) throw new ControllerError(`workers must be a positive integer, got ${workers}`);
    this.name = options.name;
    this.#informers = options.informers ?? [];
    this.#reconcile = options.reconcile;
    this.#workers = workers;
    this.#clock = options.clock ?? realClock;
    this.#onError = options.onError ?? defaultOnError(options.name);
    this.#pollMs = options.cacheSyncPollMs ?? 100;
    this.#syncWarningMs = options.cacheSyncWarningMs ?? 10_000;
    this.#logger = options.logger ?? consoleLogger;
    this.#graceMs = options.shutdownGracePeriodMs ?? 30_000;
    this.#metrics = options.metrics !== undefined ? controllerMetrics(options.metrics) : undefined;
    this.queue = new RateLimitingQueue<string>({
      name: options.name,
      clock: this.#clock,
      rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter<string>({ clock: this.#clock }),
      ...(options.metrics !== undefined ? { metricsProvider: newPrometheusMetricsProvider(options.metrics) } : {}),
    });
  }

  /** Enqueues `key` (deduplicated with any pending add of the same key). */
  add(key: string): void {
    this.queue.add(key);
  }

  /** Enqueues `key` after `delayMs`. */
  addAfter(key: string, delayMs: number): void {
    this.queue.addAfter(key, delayMs);
  }

  /** True once every informer has synced and workers were started (a readiness signal). */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** Reconcile counts, in-flight work and queue depth. */
  stats(): ControllerStats {
    return { ...this.#counts, inFlight: this.#inFlight, queueDepth: this.queue.len() };
  }

  /**
   * Waits for the informers to sync, runs the workers until `signal` aborts, then drains.
   * Resolves once every worker has exited; resolves at once (without starting workers) if the signal
   * aborts while waiting for the caches.
   */
  async run({ signal }: { signal: AbortSignal }): Promise<void> {
    if (this.#started) throw new ControllerError(`controller ${this.name} was already started`);
    this.#started = true;
    let graceTimer: { stop(): boolean } | undefined;
    const onAbort = (): void => {
      void this.queue.shutDownWithDrain();
      graceTimer = this.#clock.afterFunc(this.#graceMs, () => this.#reconcileAbort.abort(signal.reason));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (!(await this.#waitForCacheSync(signal))) return;
      this.#synced = true;
      const workers: Promise<void>[] = [];
      for (let i = 0; i < this.#workers; i++) workers.push(this.#worker(signal));
      await Promise.all(workers);
      await this.queue.shutDownWithDrain();
    } finally {
      signal.removeEventListener('abort', onAbort);
      graceTimer?.stop();
      this.queue.shutDown();
    }
  }

  async #waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    const warnAt = this.#clock.now() + this.#syncWarningMs;
    let warned = false;
    while (!signal.aborted) {
      if (this.#informers.every((i) => i.hasSynced())) return true;
      if (!warned && this.#clock.now() >= warnAt) {
        warned = true;
        this.#logUnsynced();
      }
      try {
        await this.#clock.sleep(this.#pollMs, signal);
      } catch {
        return false;
      }
    }
    return false;
  }

  /** The one message about caches that have not synced: which were never started, which are still syncing. */
  #logUnsynced(): void {
    const neverStarted: string[] = [];
    const syncing: string[] = [];
    this.#informers.forEach((informer, i) => {
      if (informer.hasSynced()) return;
      const name = informer.objectDescription !== undefined ? `informer for ${informer.objectDescription}` : `informers[${i}]`;
      (informer.hasStarted?.() === false ? neverStarted : syncing).push(name);
    });
    const seconds = Math.round(this.#syncWarningMs / 100) / 10;
    let message = `controller ${this.name}: caches have not synced after ${seconds} s; workers start once they do.`;
    if (neverStarted.length > 0) message += ` Never started: ${neverStarted.join(', ')} (call the informer factory's start() or the informer's run()).`;
    if (syncing.length > 0) message += ` Still syncing: ${syncing.join(', ')}.`;
    const fields = { controller: this.name, neverStarted, syncing };
    if (neverStarted.length > 0) this.#logger.error(message, fields);
    else this.#logger.info(message, fields);
  }

  async #worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      const key = next.item;
      try {
        // A stopping controller hands back what it took without starting it.
        if (signal.aborted) return;
        await this.#process(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  async #process(key: string): Promise<void> {
    const start = this.#clock.now();
    this.#inFlight++;
    let result: ReconcileResult | void;
    try {
      result = await this.#reconcile(key, { signal: this.#reconcileAbort.signal });
    } catch (error) {
      this.#record(Result.Error, start);
      this.#metrics?.errors.inc({ controller: this.name });
      try {
        this.#onError(error, key);
      } catch {
        // A failing reporter must not lose the retry.
      }
      this.queue.addRateLimited(key);
      return;
    } finally {
      this.#inFlight--;
    }
    this.queue.forget(key);
    if (result !== undefined && result !== null && result.requeueAfterMs >= 0) {
      this.#record(Result.RequeueAfter, start);
      this.queue.addAfter(key, result.requeueAfterMs);
    } else {
      this.#record(Result.Success, start);
    }
  }

  #record(result: (typeof Result)[keyof typeof Result], start: number): void {
    if (result === Result.Success) this.#counts.success++;
    else if (result === Result.RequeueAfter) this.#counts.requeueAfter++;
    else this.#counts.error++;
    if (this.#metrics !== undefined) {
      this.#metrics.total.inc({ controller: this.name, result });
      this.#metrics.duration.observe({ controller: this.name }, this.#clock.since(start) / 1000);
    }
  }
}
