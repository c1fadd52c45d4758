/**
 * The Reflector (client-go tools/cache reflector.go): keeps a store in step with the server by
 * LISTing (or streaming a watch-list), then WATCHing from the list's resourceVersion, relisting
 * when the watch falls too far behind, backing off while the server is unhealthy, and periodically
 * asking the store to resync.
 */
import { KubeloomError, StatusError, isExpired, isInternalError, isTimeout, isTooManyRequests, someErrorInChain, statusOf } from '../../apimachinery/errors.ts';
import type { KubeObject } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';
import { InitialEventsEndAnnotation, isWatchEventBatchIterator, type Watch, type WatchEvent } from '../../apimachinery/watch.ts';
import { DelayWithReset, type BackoffManager, type RandomSource } from '../../util/backoff/backoff.ts';
import { realClock, type Clock, type Timer } from '../../util/clock/clock.ts';
import { reachabilityOf } from '../../rest/errors.ts';
import { noteWatchEventsReceived } from '../../tracing/watch-receipt.ts';
import type { ReflectorStore, ReplaceTransaction } from './delta.ts';
import { listAllPages, defaultPageSize, type ListPageStream, type PagedListResult } from './list-pager.ts';
import type { ListerWatcher } from './listwatch.ts';
import { Cache } from './store.ts';
import { deletionHandlingMetaNamespaceKeyFunc } from './key-functions.ts';

/**
 * Watch timeouts are random in [min, 2×min) to spread reconnections over time (reflector.go
 * defaultMinWatchTimeout, 5 min); smaller minimums are not honoured, to protect the control plane.
 */
export const defaultMinWatchTimeoutMs = 5 * 60 * 1000;

/** The first delay between failed list/watch attempts (reflector.go defaultBackoffInit). */
export const defaultBackoffInitMs = 800;
/** The longest delay between attempts (defaultBackoffMax). */
export const defaultBackoffMaxMs = 30_000;
/** The backoff starts over this often, counted from its last reset (defaultBackoffReset). */
export const defaultBackoffResetMs = 120_000;

/**
 * Client-side idle timeout added to the requested server timeout: a healthy server ends every
 * watch by its timeoutSeconds, so a stream silent for longer than that plus this grace sits on a
 * half-open connection and is dropped (then resumed from the last resourceVersion, as a cut
 * connection is). Not an upstream constant: client-go relies on TCP keepalives here.
 */
export const defaultWatchIdleGraceMs = 30_000;

/**
 * Called when a list or watch attempt fails (cache.WatchErrorHandler), and with a
 * {@link ReflectorStoreError} when the store rejects a single watch event (which does not end the
 * watch; upstream logs those through utilruntime.HandleError). Should return quickly.
 */
export type WatchErrorHandler = (reflector: Reflector<unknown>, err: unknown) => void;

/** Logs reflector errors as upstream's DefaultWatchErrorHandler: expired watches are routine and stay quiet. */
export function defaultWatchErrorHandler(reflector: Reflector<unknown>, err: unknown): void {
  if (isExpired(err)) return;
  if (err instanceof ReflectorStoreError) {
    console.error(err.message);
    return;
  }
  console.error(`${reflector.name}: failed to watch ${reflector.typeDescription}:`, err instanceof Error ? err.message : err);
}

/** Options of a {@link Reflector} (cache.ReflectorOptions plus the fields client-go sets directly). */
export interface ReflectorOptions {
  /** Name for logs (default "reflector"). */
  name?: string;
  /** What is being reflected, for logs (default "<unspecified>"). */
  typeDescription?: string;
  /** How often to consider a resync (0 = never, the default). */
  resyncPeriodMs?: number;
  /** Asked at every resync period; resync only if it returns true (default: always). */
  shouldResync?: () => boolean;
  /** Minimum server-side watch timeout; values below 5 min are raised to 5 min. */
  minWatchTimeoutMs?: number;
  /** Client-side watch idle timeout (default: requested timeout + {@link defaultWatchIdleGraceMs}). */
  watchIdleTimeoutMs?: number;
  /** LIST page size (0 = upstream's choice: 500, or unpaginated when listing from the watch cache). */
  watchListPageSize?: number;
  /**
   * Stream the initial state with a watch-list (sendInitialEvents) and fall back to LIST when the
   * server refuses (default true, as client-go's WatchListClient gate). Ignored when the
   * ListerWatcher declares the semantics unsupported.
   */
  useWatchList?: boolean;
  /** How long to retry watches failing with internal errors before relisting (default 0: never). */
  maxInternalErrorRetryDurationMs?: number;
  /** Called for failed list/watch attempts (default {@link defaultWatchErrorHandler}). */
  watchErrorHandler?: WatchErrorHandler;
  /** Time source for backoffs, resyncs, watch timeouts and idle checks (default: the real clock). */
  clock?: Clock;
  /** Backoff between attempts (default: 800 ms → 30 s, ×2, jitter 1.0, starting over every 2 min, as upstream's DelayWithReset). */
  backoffManager?: BackoffManager;
  /** Random source for watch timeouts and the default backoff's jitter. */
  random?: RandomSource;
}

/** Thrown (internally) when a watch ends within a second without any event (cache.VeryShortWatchError). */
export class VeryShortWatchError extends KubeloomError {
  constructor(name: string) {
    super('ERR_VERY_SHORT_WATCH', `very short watch: ${name}: Unexpected watch close - watch lasted less than a second and no items received`);
  }
}

/** The reason a watch is aborted when it stayed silent past its idle timeout. */
export class WatchIdleTimeoutError extends KubeloomError {
  constructor(ms: number) {
    super('ERR_WATCH_IDLE_TIMEOUT', `watch received nothing for ${ms} ms; assuming a broken connection`);
  }
}

/** Wraps a failed LIST; the server's StatusError is the cause, so the error predicates still apply. */
export class ReflectorListError extends KubeloomError {
  constructor(typeDescription: string, cause: unknown) {
    super('ERR_REFLECTOR_LIST', `failed to list ${typeDescription}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * The store rejected one watch event (e.g. an object without a name, or a failing transform). The
 * event is skipped and the watch goes on from its resourceVersion, as upstream's handleAnyWatch.
 */
export class ReflectorStoreError extends KubeloomError {
  /** The watch event type the store rejected: ADDED, MODIFIED or DELETED. */
  readonly eventType: string;
  constructor(name: string, eventType: string, cause: unknown) {
    super('ERR_REFLECTOR_STORE', `${name}: unable to apply ${eventType} watch event to the store: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.eventType = eventType;
  }
}

const stopRequested = Symbol('stop requested');

/**
 * What a reflector has done so far, for introspection and the stalled-watch detector (kubeloom; client-go
 * keeps these only in logs). Times are the reflector's clock's milliseconds.
 */
export interface ReflectorStats {
  /** Completed LISTs and watch-lists: the first sync, then every relist. */
  readonly lists: number;
  /** Watches opened (the first one and every restart). */
  readonly watches: number;
  /** When the last list completed or the last watch event (bookmarks included) arrived; undefined before any. */
  readonly lastProgressTime: number | undefined;
  /** When the last watch event (bookmarks included) arrived; undefined before any. */
  readonly lastEventTime: number | undefined;
  /** The server-side timeout (ms) requested for the watch open now; 0 when none is open. */
  readonly watchTimeoutMs: number;
}

/** True when the error (or a cause) is a refused TCP connection (utilnet.IsConnectionRefused). */
export function isConnectionRefused(err: unknown): boolean {
  return someErrorInChain(err, (e) => (e as { code?: unknown }).code === 'ECONNREFUSED');
}

/** The requested resourceVersion is newer than the server has (reflector.go isTooLargeResourceVersionError). */
export function isTooLargeResourceVersionError(err: unknown): boolean {
  const status = statusOf(err);
  if (status === undefined) return false;
  const causes = status.details?.causes ?? [];
  if (causes.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  if (!isTimeout(err)) return false;
  if (causes.some((c) => c.message === 'Too large resource version')) return true;
  return (status.message ?? '').includes('Too large resource version');
}

/**
 * A meta.k8s.io Table (v1 or v1beta1): what a server sends a client that asked for the
 * human-readable form. The reflector refuses it (reflector.go isUnsupportedTableObject).
 */
function isUnsupportedTable(obj: { apiVersion?: string; kind?: string }): boolean {
  return obj.kind === 'Table' && (obj.apiVersion === 'meta.k8s.io/v1' || obj.apiVersion === 'meta.k8s.io/v1beta1');
}

/** Connection refused and 429 are retried by re-watching after a backoff, without relisting. */
function isWatchErrorRetriable(err: unknown): boolean {
  return isConnectionRefused(err) || isTooManyRequests(err);
}

/** cache.RetryWithDeadline: retry internal errors for a bounded time, resetting after a quiet minute. */
class RetryWithDeadline {
  readonly #max: number;
  readonly #reset = 60_000;
  readonly #clock: Clock;
  #first: number | undefined;
  #last: number | undefined;
  constructor(maxMs: number, clock: Clock) {
    this.#max = maxMs;
    this.#clock = clock;
  }
  after(err: unknown): void {
    if (err === undefined || !isInternalError(err)) return;
    const now = this.#clock.now();
    if (this.#last !== undefined && now - this.#last > this.#reset) this.#first = this.#last = undefined;
    this.#first ??= now;
    this.#last = now;
  }
  shouldRetry(): boolean {
    if (this.#max <= 0) return false;
    if (this.#first !== undefined && this.#clock.now() - this.#first <= this.#max) return true;
    this.#first = this.#last = undefined;
    return false;
  }
}

/** An open watch being consumed: its iterator and the controller that aborts it. */
interface OpenWatch<T> {
  iterator: AsyncIterator<WatchEvent<T>>;
  /** Events taken from the iterator but not handled yet (those after a watch-list's end bookmark). */
  pending: ReadonlyArray<WatchEvent<T>> | undefined;
  abort: AbortController;
  /** Removes the link from the reflector's stop signal. */
  unlink: () => void;
  /**
   * The timeoutSeconds the watch was requested with: the server ends it by then, so its idle guard
   * is this plus {@link defaultWatchIdleGraceMs}, also when a watch-list's stream is kept watching.
   */
  timeoutSeconds: number;
}

/**
 * Reflects one collection into a {@link ReflectorStore} (cache.Reflector).
 *
 * @example
 * const reflector = new Reflector(lw, store, { resyncPeriodMs: 30_000 });
 * await reflector.run({ signal }); // returns once `signal` aborts
 */
export class Reflector<T> {
  /** Names the reflector in messages (default: where it was created). */
  readonly name: string;
  /** What it lists and watches, e.g. "pods", for messages. */
  readonly typeDescription: string;
  readonly #lw: ListerWatcher<T>;
  readonly #store: ReflectorStore<T>;
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #backoff: BackoffManager;
  readonly #resyncPeriodMs: number;
  readonly #minWatchTimeoutMs: number;
  readonly #idleTimeoutMs: number | undefined;
  readonly #maxInternalErrorRetryMs: number;
  readonly #useWatchList: boolean;
  /** Asked at every resync period; undefined means always resync. */
  shouldResync: (() => boolean) | undefined;
  /** LIST page size; see {@link ReflectorOptions.watchListPageSize}. */
  watchListPageSize: number;
  #watchErrorHandler: WatchErrorHandler;
  /** Set when the first LIST (at resourceVersion "0") came back paginated: the server pages, so keep paging. */
  #paginatedResult = false;
  #lastSyncResourceVersion = '';
  /**
   * The last LIST (or watch-list request) at lastSyncResourceVersion failed with Expired/Gone or
   * "too large", so the next one reads at "" (consistent). A plain watch's 410 does not set it: the
   * relist first tries the last revision, which the server may still serve.
   */
  #lastSyncResourceVersionUnavailable = false;
  #running = false;
  /** Set by {@link Reflector.relist}: end the watch and list again, without waiting for the backoff. */
  #relistRequested = false;
  /** The last backoff wait was ended early by the client's {@link Reachability}. */
  #wokenEarly = false;
  /** Aborts the watch being consumed (for {@link Reflector.relist}). */
  #abortWatch: ((reason: unknown) => void) | undefined;
  #stats = { lists: 0, watches: 0, lastProgressTime: undefined as number | undefined, lastEventTime: undefined as number | undefined, watchTimeoutMs: 0 };

  constructor(lw: ListerWatcher<T>, store: ReflectorStore<T>, options: ReflectorOptions = {}) {
    this.#lw = lw;
    this.#store = store;
    this.name = options.name ?? 'reflector';
    this.typeDescription = options.typeDescription ?? '<unspecified>';
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.shouldResync = options.shouldResync;
    this.#minWatchTimeoutMs = Math.max(defaultMinWatchTimeoutMs, options.minWatchTimeoutMs ?? 0);
    this.#idleTimeoutMs = options.watchIdleTimeoutMs;
    this.watchListPageSize = options.watchListPageSize ?? 0;
    this.#maxInternalErrorRetryMs = options.maxInternalErrorRetryDurationMs ?? 0;
    this.#useWatchList = (options.useWatchList ?? true) && lw.isWatchListSemanticsUnsupported?.() !== true;
    this.#watchErrorHandler = options.watchErrorHandler ?? defaultWatchErrorHandler;
    // 800 ms → 30 s, ×2, full jitter, starting over every 2 min: about 98% less traffic than the old
    // 1 s retry loop while the API server is unhealthy (reflector.go defaultBackoff*, DelayWithReset).
    this.#backoff =
      options.backoffManager ??
      new DelayWithReset(
        { durationMs: defaultBackoffInitMs, capMs: defaultBackoffMaxMs, steps: Math.ceil(defaultBackoffMaxMs / defaultBackoffInitMs), factor: 2, jitter: 1.0, random: this.#random },
        defaultBackoffResetMs,
        this.#clock,
      );
  }

  /** Replaces the watch error handler (before {@link Reflector.run}). */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    this.#watchErrorHandler = handler;
  }

  /**
   * Ends the current watch and lists again at once, skipping the backoff (kubeloom; upstream has no
   * counterpart): for a ListerWatcher whose selection changed, such as a shard selector moving with
   * a shard ring. A call during a LIST makes another LIST follow it.
   */
  relist(): void {
    this.#relistRequested = true;
    this.#abortWatch?.(new KubeloomError('ERR_REFLECTOR_RELIST', `${this.name}: relist requested`));
  }

  /** Counters and times of lists, watches and events (see {@link ReflectorStats}). */
  stats(): ReflectorStats {
    return { ...this.#stats };
  }

  /** The resourceVersion of the last list or watch event seen (Reflector.LastSyncResourceVersion). */
  lastSyncResourceVersion(): string {
    return this.#lastSyncResourceVersion;
  }

  /**
   * Runs list-and-watch cycles until `signal` aborts, backing off between cycles
   * (wait.BackoffUntil with sliding backoff). Resolves once stopped; never rejects for API errors.
   */
  async run({ signal }: { signal: AbortSignal }): Promise<void> {
    if (this.#running) throw new KubeloomError('ERR_REFLECTOR_RUNNING', `${this.name}: reflector is already running`);
    this.#running = true;
    try {
      while (!signal.aborted) {
        let failure: unknown;
        try {
          await this.listAndWatch(signal);
        } catch (err) {
          if (signal.aborted) break;
          failure = err;
          this.#watchErrorHandler(this as Reflector<unknown>, err);
        }
        if (signal.aborted) break;
        if (this.#relistRequested) continue;
        try {
          await this.#backoffAfter(failure, signal);
        } catch {
          break;
        }
      }
    } finally {
      this.#running = false;
    }
  }

  /**
   * One cycle: establish the initial state (watch-list, or LIST as fallback), then watch until the
   * watch must be re-established by a relist. Resolves when a relist is needed or `signal` aborted;
   * rejects when the LIST (or starting a watch) failed.
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    let w: OpenWatch<T> | undefined;
    this.#relistRequested = false;
    try {
      let fallbackToList = !this.#useWatchList;
      if (this.#useWatchList) {
        try {
          w = await this.#watchList(signal);
          if (w === undefined) return;
        } catch {
          if (signal.aborted) return;
          // Making progress beats waiting for a server that cannot stream lists.
          fallbackToList = true;
          w = undefined;
        }
      }
      if (fallbackToList) {
        await this.#list(signal);
        if (signal.aborted) return;
      }
      await this.#watchWithResync(signal, w);
      w = undefined;
    } finally {
      if (w !== undefined) closeWatch(w);
    }
  }

  /** relistResourceVersion: "0" first (watch cache), then the last seen, "" after it became unavailable. */
  relistResourceVersion(): string {
    if (this.#lastSyncResourceVersionUnavailable) return '';
    if (this.#lastSyncResourceVersion === '') return '0';
    return this.#lastSyncResourceVersion;
  }

  /** rewatchResourceVersion: where a watch-list starts ("" = consistent read at the newest revision). */
  rewatchResourceVersion(): string {
    return this.#lastSyncResourceVersionUnavailable ? '' : this.#lastSyncResourceVersion;
  }

  async #list(signal: AbortSignal): Promise<void> {
    const options: ListOptions = { resourceVersion: this.relistResourceVersion(), signal };
    const lw = this.#lw;
    // A streaming source hands items over as they are decoded; a plain one a page at a time.
    const pageFn: ListPageStream<T> =
      lw.listStream !== undefined
        ? (o, onItems) => lw.listStream!(o, onItems)
        : async (o, onItems) => {
            const page = await lw.list(o);
            onItems(page.items ?? []);
            return page;
          };
    // Items go into a replace transaction when the store offers one (prepared as they arrive),
    // otherwise into an array replaced at the end. A new LIST starts a new one.
    let tx: ReplaceTransaction<T> | undefined;
    let items: T[] = [];
    // A store refusing an object is not a failed LIST: its error surfaces as replace's would.
    let storeError: unknown;
    const newSink = (): ((batch: T[]) => void) => {
      tx = this.#store.beginReplace?.();
      items = [];
      if (tx !== undefined) {
        const t = tx;
        return (batch) => {
          try {
            t.add(batch);
          } catch (err) {
            storeError = err;
            throw err;
          }
        };
      }
      return (batch) => {
        for (let i = 0; i < batch.length; i++) items.push(batch[i]!);
      };
    };
    let pageSize = defaultPageSize;
    if (this.watchListPageSize !== 0) pageSize = this.watchListPageSize;
    else if (this.#paginatedResult) pageSize = defaultPageSize;
    // A specific resourceVersion can be served from the watch cache only without a limit; listing
    // unpaginated avoids a thundering herd on etcd (e.g. after an API server upgrade).
    else if (options.resourceVersion !== '' && options.resourceVersion !== '0') pageSize = 0;
    let result: PagedListResult;
    try {
      try {
        result = await listAllPages(pageFn, options, pageSize, newSink);
      } catch (err) {
        if (signal.aborted) return;
        if (err === storeError || (!isExpired(err) && !isTooLargeResourceVersionError(err))) throw err;
        this.#lastSyncResourceVersionUnavailable = true;
        // The resourceVersion is gone (or not there yet): list again at the newest revision ("").
        result = await listAllPages(pageFn, { resourceVersion: this.relistResourceVersion(), signal }, pageSize, newSink);
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err === storeError) throw err;
      throw new ReflectorListError(this.typeDescription, err);
    }
    // A list that completes after the stop is not applied, as upstream's list returns on stopCh.
    if (signal.aborted) return;
    if (isUnsupportedTable(result.list)) {
      throw new ReflectorListError(this.typeDescription, new KubeloomError('ERR_REFLECTOR_TABLE', `unsupported list gvk: ${result.list.apiVersion ?? ''}, Kind=Table, type: ${this.typeDescription}`));
    }
    if (options.resourceVersion === '0' && result.paginated) this.#paginatedResult = true;
    this.#lastSyncResourceVersionUnavailable = false;
    const rv = result.list.metadata?.resourceVersion ?? '';
    const committing = tx as ReplaceTransaction<T> | undefined;
    if (committing !== undefined) committing.commit(rv);
    else this.#store.replace(items, rv);
    this.#lastSyncResourceVersion = rv;
    this.#wokenEarly = false;
    this.#stats.lists++;
    this.#stats.lastProgressTime = this.#clock.now();
  }

  /**
   * Streams the initial state (case "consistent": rv "", or "not older than" the last seen rv) into
   * a temporary store until the initial-events-end bookmark, then replaces the store with it and
   * returns the still-open watch. Undefined when stopped. Throws for errors that warrant a LIST.
   */
  async #watchList(signal: AbortSignal): Promise<OpenWatch<T> | undefined> {
    const retriableWithSideEffects = async (err: unknown): Promise<boolean> => {
      if (isWatchErrorRetriable(err)) {
        await this.#backoffAfter(err, signal);
        return true;
      }
      if (isExpired(err) || isTooLargeResourceVersionError(err)) {
        this.#lastSyncResourceVersionUnavailable = true;
        return true;
      }
      return false;
    };
    for (;;) {
      if (signal.aborted) return undefined;
      let resourceVersion = '';
      const temporary = new Cache<T>(deletionHandlingMetaNamespaceKeyFunc);
      const timeoutSeconds = this.#randomTimeoutSeconds();
      const options: ListOptions = {
        resourceVersion: this.rewatchResourceVersion(),
        allowWatchBookmarks: true,
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        timeoutSeconds,
      };
      const start = this.#clock.now();
      let w: OpenWatch<T>;
      try {
        w = await this.#startWatch(options, signal);
      } catch (err) {
        if (signal.aborted) return undefined;
        if (await retriableWithSideEffects(err)) continue;
        throw err;
      }
      // The initial events are synthetic ADDEDs in no resourceVersion order: only a later event
      // (the initial-events-end bookmark at the latest) says where the stream stands.
      const result = await this.#handleWatch(w, temporary, (rv, pastInitialEvents) => {
        if (pastInitialEvents) resourceVersion = rv;
      }, true, start, timeoutSeconds, signal);
      if (result.err !== undefined) {
        closeWatch(w);
        if (result.err === stopRequested) return undefined;
        if (await retriableWithSideEffects(result.err)) continue;
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- errors surface unchanged
        throw result.err;
      }
      if (result.bookmarkReceived) {
        this.#lastSyncResourceVersionUnavailable = false;
        this.#store.replace(temporary.list(), resourceVersion);
        this.#lastSyncResourceVersion = resourceVersion;
        this.#stats.lists++;
        return w;
      }
      closeWatch(w);
    }
  }

  /** Runs the watch loop with the periodic resync alongside it. */
  async #watchWithResync(signal: AbortSignal, w: OpenWatch<T> | undefined): Promise<void> {
    const state: { err: unknown; current: OpenWatch<T> | undefined } = { err: undefined, current: w };
    let timer: Timer | undefined;
    if (this.#resyncPeriodMs > 0) {
      const fire = (): void => {
        if (signal.aborted) return;
        if (this.shouldResync === undefined || this.shouldResync()) {
          try {
            this.#store.resync();
          } catch (err) {
            // A failing resync ends this cycle, as upstream's resync error channel does.
            state.err = err;
            state.current?.abort.abort(err);
            return;
          }
        }
        timer = this.#clock.afterFunc(this.#resyncPeriodMs, fire);
      };
      timer = this.#clock.afterFunc(this.#resyncPeriodMs, fire);
    }
    try {
      await this.#watch(signal, state);
    } finally {
      timer?.stop();
    }
  }

  /** Watches (and re-watches) from the last resourceVersion until a relist is needed. */
  async #watch(signal: AbortSignal, state: { err: unknown; current: OpenWatch<T> | undefined }): Promise<void> {
    const retry = new RetryWithDeadline(this.#maxInternalErrorRetryMs, this.#clock);
    for (;;) {
      if (signal.aborted) return;
      if (state.err !== undefined) return;
      if (this.#relistRequested) return;
      const start = this.#clock.now();
      let timeoutSeconds = 0;
      // A watch handed over by a watch-list is past its synthetic initial events already.
      let propagateFromStart = true;
      if (state.current === undefined) {
        timeoutSeconds = this.#randomTimeoutSeconds();
        const options: ListOptions = { resourceVersion: this.#lastSyncResourceVersion, timeoutSeconds, allowWatchBookmarks: true };
        // From "" or "0" the server starts with synthetic ADDED events in no resourceVersion order;
        // their resourceVersions are not a safe place to resume from.
        if (options.resourceVersion === '' || options.resourceVersion === '0') propagateFromStart = false;
        try {
          state.current = await this.#startWatch(options, signal);
        } catch (err) {
          if (signal.aborted) return;
          if (isWatchErrorRetriable(err)) {
            try {
              await this.#backoffAfter(err, signal);
            } catch {
              return;
            }
            continue;
          }
          throw err;
        }
      }
      const w = state.current;
      // A watch handed over by a watch-list keeps the timeout it was requested with (client-go's
      // watch() reuses the watch-list's watcher, whose server-side timeoutSeconds still stands).
      timeoutSeconds = w.timeoutSeconds;
      const result = await this.#handleWatch(
        w,
        this.#store,
        (rv, pastInitialEvents) => {
          if (propagateFromStart || pastInitialEvents) this.#lastSyncResourceVersion = rv;
        },
        false,
        start,
        timeoutSeconds,
        signal,
        state,
      );
      closeWatch(w);
      state.current = undefined;
      const err = result.err;
      retry.after(err === stopRequested ? undefined : err);
      if (err === undefined) continue;
      if (err === stopRequested) return;
      if (isExpired(err)) return; // relist
      if (isTooManyRequests(err)) {
        try {
          await this.#clock.sleep(this.#backoff.nextDelay(), signal);
        } catch {
          return;
        }
        continue;
      }
      if (isInternalError(err) && retry.shouldRetry()) continue;
      return; // anything else: back off, then relist
    }
  }

  /**
   * Sleeps the next backoff delay (upstream's), but when `err` says the server could not be reached,
   * ends early once the client's other requests or its probe found it again ({@link Reachability}):
   * the reflectors of one client then come back together instead of each after its own backoff.
   * Rejects with `signal.reason` when stopped.
   */
  async #backoffAfter(err: unknown, signal: AbortSignal): Promise<void> {
    const delay = this.#backoff.nextDelay();
    const reachability = err === undefined ? undefined : reachabilityOf(err);
    // An attempt made right after an early wake that failed for want of a connection again (a proxy
    // resetting only this reflector's requests, a flapping server) sits out its whole backoff: early
    // wakes never add requests beyond one per backoff step.
    const wokenBefore = this.#wokenEarly;
    this.#wokenEarly = false;
    if (reachability === undefined || wokenBefore) return this.#clock.sleep(delay, signal);
    const done = new AbortController();
    const either = AbortSignal.any([signal, done.signal]);
    const slept = this.#clock.sleep(delay, either);
    const woken = reachability.whenReachable(either);
    // The loser is rejected by `done` below: nothing awaits it.
    slept.catch(() => undefined);
    woken.catch(() => undefined);
    try {
      this.#wokenEarly = (await Promise.race([slept.then(() => false), woken.then(() => true)])) && !signal.aborted;
    } finally {
      done.abort();
    }
    if (signal.aborted) throw signal.reason;
  }

  /** How long a watch may stay silent (no headers, no event) before it is taken for a broken connection. */
  #watchIdleMs(timeoutSeconds: number): number {
    return this.#idleTimeoutMs ?? (timeoutSeconds > 0 ? timeoutSeconds * 1000 : this.#minWatchTimeoutMs * 2) + defaultWatchIdleGraceMs;
  }

  #randomTimeoutSeconds(): number {
    return Math.floor((this.#minWatchTimeoutMs / 1000) * (this.#random() + 1));
  }

  async #startWatch(options: ListOptions, signal: AbortSignal): Promise<OpenWatch<T>> {
    const abort = new AbortController();
    const onStop = (): void => abort.abort(signal.reason);
    if (signal.aborted) abort.abort(signal.reason);
    else signal.addEventListener('abort', onStop, { once: true });
    const unlink = (): void => {
      signal.removeEventListener('abort', onStop);
      if (this.#abortWatch === abortThis) {
        this.#abortWatch = undefined;
        this.#stats.watchTimeoutMs = 0;
      }
    };
    const abortThis = (reason: unknown): void => abort.abort(reason);
    this.#abortWatch = abortThis;
    this.#stats.watches++;
    this.#stats.watchTimeoutMs = (options.timeoutSeconds ?? 0) * 1000;
    // The idle timeout also covers the wait for the response headers: a watch request sent on a
    // connection that went half-open gets no answer, and the stream's own idle timer never starts.
    const idleMs = this.#watchIdleMs(options.timeoutSeconds ?? 0);
    const headersTimer = this.#clock.afterFunc(idleMs, () => abort.abort(new WatchIdleTimeoutError(idleMs)));
    let watch: Watch<T>;
    try {
      watch = await this.#lw.watch({ ...options, signal: abort.signal });
    } catch (err) {
      unlink();
      throw err;
    } finally {
      headersTimer.stop();
    }
    // The server answered: the next failure may be woken early again.
    this.#wokenEarly = false;
    return { iterator: watch[Symbol.asyncIterator](), pending: undefined, abort, unlink, timeoutSeconds: options.timeoutSeconds ?? 0 };
  }

  /**
   * Consumes events into `store` until the stream ends (handleAnyWatch). Returns the error that
   * ended it (`stopRequested` when stopped; a StatusError for ERROR events; undefined for a clean or
   * cut end), and whether the initial-events-end bookmark arrived. With `exitOnBookmark` it returns
   * right after that bookmark, leaving the watch open.
   */
  async #handleWatch(
    w: OpenWatch<T>,
    store: ReflectorStore<T>,
    setResourceVersion: (rv: string, pastInitialEvents: boolean) => void,
    exitOnBookmark: boolean,
    start: number,
    timeoutSeconds: number,
    signal: AbortSignal,
    state?: { err: unknown },
  ): Promise<{ err: unknown; bookmarkReceived: boolean }> {
    let bookmarkReceived = false;
    /** Set by the first MODIFIED, DELETED or BOOKMARK: the synthetic initial ADDED events are over. */
    let eventReceivedBesidesAdded = false;
    let eventCount = 0;
    const idleMs = this.#watchIdleMs(timeoutSeconds);
    let lastEvent = this.#clock.now();
    // One timer per watch, not per event: it re-arms itself for the remaining idle time.
    const check = (): void => {
      const idle = this.#clock.since(lastEvent);
      if (idle >= idleMs) w.abort.abort(new WatchIdleTimeoutError(idleMs));
      else idleTimer = this.#clock.afterFunc(idleMs - idle, check);
    };
    let idleTimer = this.#clock.afterFunc(idleMs, check);
    // The events of a network chunk are taken together and handled in one synchronous loop: no
    // promise hop per event between the decoder and the store.
    const batches = isWatchEventBatchIterator(w.iterator) ? w.iterator : undefined;
    try {
      for (;;) {
        // Checked before every read too: a source may not notice a signal aborted before it looked.
        if (signal.aborted) return { err: stopRequested, bookmarkReceived };
        let events: ReadonlyArray<WatchEvent<T>>;
        if (w.pending !== undefined) {
          events = w.pending;
          w.pending = undefined;
        } else {
          try {
            if (batches !== undefined) {
              const batch = await batches.nextBatch();
              if (batch === undefined) break;
              events = batch;
            } else {
              const step = await w.iterator.next();
              if (step.done === true) break;
              events = [step.value];
            }
          } catch (err) {
            if (signal.aborted) return { err: stopRequested, bookmarkReceived };
            if (state?.err !== undefined) return { err: state.err, bookmarkReceived };
            if (statusOf(err) !== undefined) return { err, bookmarkReceived };
            // A cut or idle connection ends the stream like a close: resume from the last resourceVersion.
            break;
          }
        }
        lastEvent = this.#clock.now();
        this.#stats.lastEventTime = this.#stats.lastProgressTime = lastEvent;
        // The start of each event's trace (a no-op without a tracer provider).
        noteWatchEventsReceived(events, lastEvent);
        for (let i = 0; i < events.length; i++) {
          if (signal.aborted) return { err: stopRequested, bookmarkReceived };
          const event = events[i]!;
          if (event.type === 'ERROR') return { err: new StatusError(event.object), bookmarkReceived };
          const obj = event.object as KubeObject | undefined;
          if (typeof obj !== 'object' || obj === null) continue;
          // Tables are a display form, not the objects the store holds (#132926 upstream).
          if (isUnsupportedTable(obj)) {
            this.#watchErrorHandler(this as Reflector<unknown>, new ReflectorStoreError(this.name, event.type, new KubeloomError('ERR_REFLECTOR_TABLE', `unsupported watch event object gvk ${obj.apiVersion ?? ''}, Kind=Table`)));
            continue;
          }
          const rv = obj.metadata?.resourceVersion ?? '';
          try {
            switch (event.type) {
              case 'ADDED':
                store.add(event.object);
                break;
              case 'MODIFIED':
                eventReceivedBesidesAdded = true;
                store.update(event.object);
                break;
              case 'DELETED':
                eventReceivedBesidesAdded = true;
                store.delete(event.object);
                break;
              case 'BOOKMARK':
                // A bookmark only moves the resourceVersion forward (and the store's, when it keeps one).
                eventReceivedBesidesAdded = true;
                if (obj.metadata?.annotations?.[InitialEventsEndAnnotation] === 'true') bookmarkReceived = true;
                store.bookmark?.(rv);
                break;
              default:
                continue;
            }
          } catch (err) {
            // One event the store cannot take must not cost a relist of everything: report it and go
            // on from its resourceVersion, as upstream does.
            this.#watchErrorHandler(this as Reflector<unknown>, new ReflectorStoreError(this.name, event.type, err));
          }
          setResourceVersion(rv, eventReceivedBesidesAdded);
          eventCount++;
          if (exitOnBookmark && bookmarkReceived) {
            // The watch goes on with the same stream: what followed the bookmark is handled then.
            if (i + 1 < events.length) w.pending = events.slice(i + 1);
            return { err: undefined, bookmarkReceived };
          }
        }
      }
    } finally {
      idleTimer.stop();
    }
    // A stream the server ended (its timeout) shows a live server as much as an event does.
    if (!w.abort.signal.aborted) this.#stats.lastProgressTime = this.#clock.now();
    if (signal.aborted) return { err: stopRequested, bookmarkReceived };
    if (this.#clock.since(start) < 1000 && eventCount === 0) return { err: new VeryShortWatchError(this.name), bookmarkReceived };
    return { err: undefined, bookmarkReceived };
  }
}

function closeWatch<T>(w: OpenWatch<T>): void {
  w.unlink();
  if (!w.abort.signal.aborted) w.abort.abort(new KubeloomError('ERR_WATCH_CLOSED', 'watch closed by the reflector'));
  try {
    const r = w.iterator.return?.();
    if (r !== undefined) r.catch(() => {});
  } catch {
    // Closing a stream that already failed.
  }
}
