/**
 * SharedIndexInformer (client-go tools/cache shared_informer.go and controller.go): one reflector
 * and one indexed cache shared by any number of event handlers, each fed through its own buffer.
 * It runs on an atomic {@link RealFIFO}, as upstream does now: every change is applied to the cache
 * and notified in arrival order, and a relist swaps the whole cache at once.
 */
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { KubeObject } from '../../apimachinery/object.ts';
import { realClock, type Clock } from '../../util/clock/clock.ts';
import { deepFreeze, freezeReusing } from './deep-freeze.ts';
import { DeltaType, FIFOClosedError, type Delta, type ReplacedAllInfo, type TransformFunc } from './delta.ts';
import type { ResourceEventHandler } from './event-handlers.ts';
import type { Indexer, Indexers } from './indexer.ts';
import { DeletedFinalStateUnknown, NamespaceIndex, deletionHandlingMetaNamespaceKeyFunc, metaNamespaceIndexFunc } from './key-functions.ts';
import type { ListerWatcher } from './listwatch.ts';
import { ProcessorListener, determineResyncPeriod, minimumResyncPeriodMs, type HandlerErrorReporter, type Notification } from './processor-listener.ts';
import { RealFIFO } from './real-fifo.ts';
import { Reflector, defaultWatchErrorHandler, type ReflectorOptions, type ReflectorStats, type WatchErrorHandler } from './reflector.ts';
import { RingBuffer } from './ring-buffer.ts';
import { Cache } from './store.ts';
import { ShardedListWatch } from './sharded-listwatch.ts';
import type { ShardSelector } from '../../apimachinery/sharding/selector.ts';

export type { Notification } from './processor-listener.ts';

/** Thrown when configuring an informer after it started, or adding a handler after it stopped. */
export class InformerStateError extends KubeloomError {
  constructor(message: string) {
    super('ERR_INFORMER_STATE', message);
  }
}

/** removeEventHandler was given something no informer's addEventHandler returned. */
export class InvalidRegistrationError extends KubeloomError {
  constructor(registration: unknown) {
    super('ERR_INFORMER_INVALID_REGISTRATION', `invalid event handler registration: ${typeof registration === 'object' && registration !== null ? (registration.constructor?.name ?? 'object') : typeof registration} was not returned by addEventHandler`);
  }
}

/** Options of a {@link SharedIndexInformer} (cache.SharedIndexInformerOptions). */
export interface SharedIndexInformerOptions<T> {
  /** Default resync period of handlers added without one (0 = no resync, the default). */
  defaultEventHandlerResyncPeriodMs?: number;
  /** Extra indexes; the namespace index ({@link NamespaceIndex}) is always present. */
  indexers?: Indexers<T>;
  /** For messages, e.g. "pods" or "apps/v1, Resource=deployments". */
  objectDescription?: string;
  /** Time source for the reflector and resync bookkeeping (default: the real clock). */
  clock?: Clock;
  /**
   * Where failures go (default: console.error): a throwing or rejecting handler (with the
   * notification it failed on) or a delta that could not be applied (without one). The informer
   * continues either way.
   */
  onHandlerError?: (err: unknown, notification: Notification<T> | undefined) => void;
  /**
   * Deep-freeze objects when they enter the cache (default true). Handlers then get the cache's own
   * objects without copies, and a handler mutating one throws instead of corrupting the cache.
   */
  freezeObjects?: boolean;
  /**
   * Only the objects of one shard (KEP-5866): the selector goes to the server with every list and
   * watch, and objects are filtered here when the server does not echo it (see
   * {@link ShardedListWatch}). Change it with {@link SharedIndexInformer.setShardSelector}.
   */
  shardSelector?: ShardSelector;
  /** A client-only shard key (e.g. the controller owner's uid); see {@link ShardedListWatch}. */
  shardKey?: (obj: T) => string;
  /** Passed to the reflector (watch-list, page size, timeouts, backoff, randomness). */
  reflector?: Pick<ReflectorOptions, 'useWatchList' | 'watchListPageSize' | 'minWatchTimeoutMs' | 'watchIdleTimeoutMs' | 'backoffManager' | 'random' | 'maxInternalErrorRetryDurationMs'>;
}

/** Options of {@link SharedIndexInformer.addEventHandler}. */
export interface AddEventHandlerOptions {
  /** This handler's resync period (default: the informer's default); at least 1 s when set. */
  resyncPeriodMs?: number;
}

/** The handle returned by {@link SharedIndexInformer.addEventHandler} (cache.ResourceEventHandlerRegistration). */
export interface ResourceEventHandlerRegistration {
  /** True once the informer synced and this handler processed all the initial-list adds it was given. */
  hasSynced(): boolean;
}

class Registration<T> implements ResourceEventHandlerRegistration {
  readonly listener: ProcessorListener<T>;
  readonly #informer: { hasStarted(): boolean; readonly objectDescription: string };
  constructor(listener: ProcessorListener<T>, informer: { hasStarted(): boolean; readonly objectDescription: string }) {
    this.listener = listener;
    this.#informer = informer;
  }
  hasSynced(): boolean {
    return this.listener.hasSynced();
  }
  /** Whether the informer this handler is registered with was started (for "never started" messages). */
  hasStarted(): boolean {
    return this.#informer.hasStarted();
  }
  /** The informer's object description, e.g. "pods". */
  get objectDescription(): string {
    return this.#informer.objectDescription;
  }
}

/** Fans notifications out to the listeners (sharedProcessor). */
class SharedProcessor<T> {
  /** listener → whether it takes part in the resync being delivered. */
  readonly listeners = new Map<ProcessorListener<T>, boolean>();
  #started = false;
  readonly #clock: Clock;
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  addListener(l: ProcessorListener<T>): void {
    this.listeners.set(l, true);
    if (this.#started) l.run();
  }

  removeListener(l: ProcessorListener<T>): void {
    if (!this.listeners.delete(l)) return;
    l.stop();
  }

  /** Queues `n` on every listener; resync notifications only on those whose resync is due. */
  distribute(n: Notification<T>, sync: boolean): void {
    for (const [l, syncing] of this.listeners) if (!sync || syncing) l.add(n);
  }

  run(): void {
    this.#started = true;
    for (const l of this.listeners.keys()) l.run();
  }

  /** Stops every listener; resolves once none of their handlers runs any more. */
  async stop(): Promise<void> {
    for (const l of this.listeners.keys()) l.stop();
    await Promise.all([...this.listeners.keys()].map((l) => l.stopped()));
  }

  /** Marks the listeners whose resync is due; true if any is (sharedProcessor.shouldResync). */
  shouldResync(): boolean {
    let needed = false;
    const now = this.#clock.now();
    for (const l of this.listeners.keys()) {
      const due = l.shouldResync(now);
      this.listeners.set(l, due);
      if (due) {
        needed = true;
        l.determineNextResync(now);
      }
    }
    return needed;
  }

  resyncCheckPeriodChanged(checkMs: number): void {
    for (const l of this.listeners.keys()) l.setResyncPeriod(determineResyncPeriod(l.requestedResyncPeriodMs, checkMs));
  }
}

/**
 * The ListerWatcher asking for managedFields fieldsV1 values shared between objects (DecodeOptions):
 * harmless when objects are frozen anyway, and it saves most of managedFields' memory and decoding.
 */
function internManagedFields<T>(lw: ListerWatcher<T>): ListerWatcher<T> {
  const wrapped: ListerWatcher<T> = {
    list: (o) => lw.list({ ...o, internManagedFields: true }),
    watch: (o) => lw.watch({ ...o, internManagedFields: true }),
  };
  if (lw.listStream !== undefined) wrapped.listStream = (o, onItems) => lw.listStream!({ ...o, internManagedFields: true }, onItems);
  if (lw.isWatchListSemanticsUnsupported !== undefined) wrapped.isWatchListSemanticsUnsupported = () => lw.isWatchListSemanticsUnsupported!();
  return wrapped;
}

/** The object's resourceVersion, '' when it has none (as meta.Accessor's GetResourceVersion). */
function resourceVersionOf(obj: unknown): string {
  return (obj as KubeObject | undefined)?.metadata?.resourceVersion ?? '';
}

/**
 * An informer for one collection: a reflector filling an indexed cache and notifying handlers
 * (cache.SharedIndexInformer).
 *
 * @example
 * const informer = new SharedIndexInformer<Pod>(newListWatchFromClient(pods));
 * informer.addEventHandler({ onAdd: (pod) => queue.add(objectKey(pod)) });
 * const done = informer.run({ signal });
 * await waitForCacheSync(signal, () => informer.hasSynced());
 */
export class SharedIndexInformer<T> {
  readonly #lw: ListerWatcher<T>;
  readonly #sharded: ShardedListWatch<T> | undefined;
  readonly #indexer: Cache<T>;
  // What lastStoreSyncResourceVersion returns: advanced as deltas are applied, bookmarks included.
  #storeResourceVersion = '';
  readonly #clock: Clock;
  readonly #processor: SharedProcessor<T>;
  readonly #description: string;
  readonly #freeze: boolean;
  readonly #reflectorOptions: SharedIndexInformerOptions<T>['reflector'];
  readonly #report: HandlerErrorReporter;
  readonly #defaultResyncMs: number;
  /** How often the reflector asks whether any handler needs a resync. */
  #resyncCheckPeriodMs: number;
  #transform: TransformFunc<T> | undefined;
  #watchErrorHandler: WatchErrorHandler = defaultWatchErrorHandler;
  #fifo: RealFIFO<T> | undefined;
  #reflector: Reflector<T> | undefined;
  #started = false;
  #stopped = false;
  /** Wakes notification iterators when the informer stops. */
  readonly #onStop = new Set<() => void>();

  constructor(lw: ListerWatcher<T>, options: SharedIndexInformerOptions<T> = {}) {
    if (options.shardSelector !== undefined) {
      this.#sharded = new ShardedListWatch<T>(lw, { selector: options.shardSelector, ...(options.shardKey === undefined ? {} : { shardKey: options.shardKey }) });
    }
    this.#lw = this.#sharded ?? lw;
    this.#clock = options.clock ?? realClock;
    const indexers: Record<string, (obj: T) => readonly string[]> = { [NamespaceIndex]: metaNamespaceIndexFunc, ...options.indexers };
    this.#indexer = new Cache<T>(deletionHandlingMetaNamespaceKeyFunc, indexers);
    this.#processor = new SharedProcessor<T>(this.#clock);
    this.#description = options.objectDescription ?? 'objects';
    this.#freeze = options.freezeObjects ?? true;
    this.#reflectorOptions = options.reflector;
    this.#defaultResyncMs = options.defaultEventHandlerResyncPeriodMs ?? 0;
    this.#resyncCheckPeriodMs = this.#defaultResyncMs;
    const onError = options.onHandlerError;
    this.#report =
      onError !== undefined
        ? (err, n) => onError(err, n as Notification<T> | undefined)
        : (err) => console.error(`informer for ${this.#description}: event handler failed:`, err);
  }

  /** The informer's cache. Read it freely; never write to it. */
  getIndexer(): Indexer<T> {
    return this.#indexer;
  }

  /** Same as {@link SharedIndexInformer.getIndexer} (SharedInformer.GetStore). */
  getStore(): Indexer<T> {
    return this.#indexer;
  }

  /**
   * Adds indexes, indexing what is already cached. Throws {@link InformerStateError} once the
   * informer stopped, as upstream's AddIndexers.
   */
  addIndexers(indexers: Indexers<T>): void {
    if (this.#stopped) throw new InformerStateError('indexer was not added because it has stopped already');
    this.#indexer.addIndexers(indexers);
  }

  /**
   * Registers a handler (AddEventHandlerWithOptions). Before the informer starts it simply joins;
   * afterwards it first receives an add, with isInInitialList true, for every cached object.
   * Throws {@link InformerStateError} once the informer stopped.
   */
  addEventHandler(handler: ResourceEventHandler<T>, options: AddEventHandlerOptions = {}): ResourceEventHandlerRegistration {
    if (this.#stopped) throw new InformerStateError(`handler was not added to the informer for ${this.#description} because it has stopped already`);
    let resyncPeriodMs = options.resyncPeriodMs ?? this.#defaultResyncMs;
    if (resyncPeriodMs > 0) {
      if (resyncPeriodMs < minimumResyncPeriodMs) resyncPeriodMs = minimumResyncPeriodMs;
      if (resyncPeriodMs < this.#resyncCheckPeriodMs) {
        if (this.#started) {
          // The reflector's timer is already running; this handler resyncs at the check period.
          resyncPeriodMs = this.#resyncCheckPeriodMs;
        } else {
          this.#resyncCheckPeriodMs = resyncPeriodMs;
          this.#processor.resyncCheckPeriodChanged(resyncPeriodMs);
        }
      }
    }
    const listener = new ProcessorListener<T>(
      handler,
      resyncPeriodMs,
      determineResyncPeriod(resyncPeriodMs, this.#resyncCheckPeriodMs),
      this.#clock.now(),
      () => this.hasSynced(),
      this.#report,
    );
    this.#processor.addListener(listener);
    if (this.#started) {
      // Deltas are applied synchronously, so nothing can slip in between the snapshot and the join.
      for (const item of this.#indexer.list()) listener.add({ type: 'add', object: item, isInInitialList: true });
    }
    return new Registration(listener, this);
  }

  /**
   * Unregisters a handler; its pending notifications are dropped. A registration already removed
   * (or issued by another informer) is ignored; anything that is not a registration an informer
   * issued throws {@link InvalidRegistrationError} (sharedProcessor.removeListener's "invalid key type").
   */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    if (!(registration instanceof Registration)) throw new InvalidRegistrationError(registration);
    this.#processor.removeListener(registration.listener as ProcessorListener<T>);
  }

  /**
   * Sets a transform applied exactly once to every object arriving from the server, before it is
   * cached (and frozen). Throws {@link InformerStateError} after start.
   */
  setTransform(transform: TransformFunc<T>): void {
    if (this.#started) throw new InformerStateError('informer has already started');
    this.#transform = transform;
  }

  /** Sets the handler for failed list/watch attempts. Throws {@link InformerStateError} after start. */
  setWatchErrorHandler(handler: WatchErrorHandler): void {
    if (this.#started) throw new InformerStateError('informer has already started');
    this.#watchErrorHandler = handler;
  }

  /**
   * Moves the informer to another shard: it relists with the new selector, and the objects that
   * left the shard are notified as deletes. Only for informers created with a `shardSelector`.
   */
  setShardSelector(selector: ShardSelector): void {
    if (this.#sharded === undefined) throw new InformerStateError(`the informer for ${this.#description} was not created with a shardSelector`);
    if (this.#sharded.selector().equals(selector)) return;
    this.#sharded.setSelector(selector);
    this.#reflector?.relist();
  }

  /** The shard selector in use, for informers created with one. */
  shardSelector(): ShardSelector | undefined {
    return this.#sharded?.selector();
  }

  /** True once the first list was applied to the cache. */
  hasSynced(): boolean {
    return this.#fifo?.hasSynced() ?? false;
  }

  /** The resourceVersion of the last list or event seen ('' before the first list). */
  lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion() ?? '';
  }

  /**
   * The resourceVersion the cache has caught up with (client-go 1.36's Store.LastStoreSyncResourceVersion):
   * that of the last list, event or watch bookmark applied to the cache, '' before the first list.
   * Unlike {@link SharedIndexInformer.lastSyncResourceVersion} (what the reflector has read), it
   * advances only once the queued changes before it are in the cache, so a controller comparing it with
   * the resourceVersion of its own write knows whether its reads can see that write (KEP-5647).
   */
  lastStoreSyncResourceVersion(): string {
    return this.#storeResourceVersion;
  }

  /** Its reflector's counters (lists, watches, last event); undefined before {@link SharedIndexInformer.run}. */
  reflectorStats(): ReflectorStats | undefined {
    return this.#reflector?.stats();
  }

  /** Ends the current watch and lists again at once (kubeloom: the stalled-watch detector's remedy). */
  relist(): void {
    this.#reflector?.relist();
  }

  /** What the informer caches, for messages (the `objectDescription` option; default "objects"). */
  get objectDescription(): string {
    return this.#description;
  }

  /** True once {@link SharedIndexInformer.run} was called (configuration is then frozen). */
  hasStarted(): boolean {
    return this.#started;
  }

  /** True once {@link SharedIndexInformer.run} returned after its signal aborted. */
  isStopped(): boolean {
    return this.#stopped;
  }

  /**
   * Runs the informer until `signal` aborts; resolves once the reflector and the processing loop
   * stopped and handlers were detached. A second call resolves at once.
   */
  async run({ signal }: { signal: AbortSignal }): Promise<void> {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    // Objects are prepared as they arrive from the reflector, while the rest of a LIST or of a watch
    // chunk is still being decoded: transformed, then frozen reusing the cached version's unchanged
    // parts (a version queued but not applied yet may be newer; sharing only deep-equal parts, any
    // frozen version will do).
    const fifo = new RealFIFO<T>({ keyFunction: deletionHandlingMetaNamespaceKeyFunc, transformer: this.#prepareFunc() });
    this.#fifo = fifo;
    const reflector = new Reflector<T>(this.#freeze ? internManagedFields(this.#lw) : this.#lw, fifo, {
      ...this.#reflectorOptions,
      name: `informer ${this.#description}`,
      typeDescription: this.#description,
      clock: this.#clock,
      resyncPeriodMs: this.#resyncCheckPeriodMs,
      shouldResync: () => this.#processor.shouldResync(),
      watchErrorHandler: this.#watchErrorHandler,
    });
    this.#reflector = reflector;
    this.#processor.run();
    const onAbort = (): void => fifo.close();
    if (signal.aborted) fifo.close();
    else signal.addEventListener('abort', onAbort, { once: true });
    const reflecting = reflector.run({ signal });
    const process = (deltas: Delta<T>[], isInInitialList: boolean): void => this.#handleDeltas(deltas, isInInitialList);
    try {
      for (;;) {
        // As upstream's processLoop: once stopped, deltas still queued are left unapplied.
        if (signal.aborted) break;
        try {
          await fifo.popBatch(process);
        } catch (err) {
          if (err instanceof FIFOClosedError) break;
          // A delta that cannot be applied (e.g. a failing index function) is reported and skipped.
          this.#report(err, undefined);
        }
      }
      await reflecting;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#stopped = true;
      // run() resolves only once no event handler is running (an async one is awaited).
      await this.#processor.stop();
      for (const fn of this.#onStop) fn();
    }
  }

  /**
   * Every notification as an async iterable, through a handler of its own; ends when `signal`
   * aborts or the loop breaks. Registered like any handler, so it first yields the cached objects
   * when the informer already runs.
   *
   * @example
   * for await (const n of informer.notifications({ signal })) if (n.type === 'delete') forget(n.object);
   */
  notifications({ signal }: { signal?: AbortSignal } = {}): AsyncIterable<Notification<T>> {
    return {
      [Symbol.asyncIterator]: (): AsyncIterator<Notification<T>> => {
        const buffer = new RingBuffer<Notification<T>>();
        let wake: (() => void) | undefined;
        let done = false;
        const push = (n: Notification<T>): void => {
          buffer.push(n);
          const w = wake;
          wake = undefined;
          w?.();
        };
        const registration = this.addEventHandler({
          onAdd: (object, isInInitialList) => push({ type: 'add', object, isInInitialList }),
          onUpdate: (oldObject, object) => push({ type: 'update', oldObject, object }),
          onDelete: (object) => push({ type: 'delete', object }),
        });
        const finish = (): void => {
          if (done) return;
          done = true;
          this.removeEventHandler(registration);
          signal?.removeEventListener('abort', finish);
          this.#onStop.delete(finish);
          const w = wake;
          wake = undefined;
          w?.();
        };
        if (signal?.aborted) finish();
        else signal?.addEventListener('abort', finish, { once: true });
        if (!done) this.#onStop.add(finish);
        return {
          next: async (): Promise<IteratorResult<Notification<T>>> => {
            for (;;) {
              if (done || this.#stopped) {
                finish();
                return { done: true, value: undefined };
              }
              const n = buffer.shift();
              if (n !== undefined) return { done: false, value: n };
              await new Promise<void>((resolve) => (wake = resolve));
            }
          },
          return: async (): Promise<IteratorResult<Notification<T>>> => {
            finish();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  /** The queue's transformer: the user's transform, then freezing (when on). */
  #prepareFunc(): TransformFunc<T> | undefined {
    const transform = this.#transform;
    if (!this.#freeze) return transform;
    const indexer = this.#indexer;
    return (obj) => {
      const next = transform === undefined ? obj : transform(obj);
      let previous: T | undefined;
      try {
        previous = indexer.get(next);
      } catch {
        // No key (a transform dropped it): nothing to reuse; applying the delta reports the object.
      }
      return freezeReusing(next, previous);
    };
  }

  /** Applies popped deltas to the cache and distributes the notifications (HandleDeltas / processDeltas). */
  #handleDeltas(deltas: Delta<T>[], isInInitialList: boolean): void {
    for (let i = 0; i < deltas.length; i++) {
      try {
        this.#handleDelta(deltas[i]!, isInInitialList);
      } catch (err) {
        // As upstream's batch processing: one delta that cannot be applied does not lose the others.
        this.#report(err, undefined);
      }
    }
  }

  #handleDelta(d: Delta<T>, isInInitialList: boolean): void {
    const indexer = this.#indexer;
    {
      switch (d.type) {
        case DeltaType.ReplacedAll:
          this.#replaceAll(d.object, isInInitialList);
          this.#storeResourceVersion = d.object.resourceVersion;
          break;
        case DeltaType.Bookmark:
          this.#storeResourceVersion = d.object.resourceVersion;
          break;
        case DeltaType.SyncAll:
          for (const obj of indexer.list()) this.#processor.distribute({ type: 'update', oldObject: obj, object: obj }, true);
          break;
        case DeltaType.Deleted: {
          const obj = this.#freeze ? deepFreeze(d.object) : d.object;
          indexer.delete(obj);
          this.#processor.distribute({ type: 'delete', object: obj }, false);
          this.#advanceResourceVersion(obj);
          break;
        }
        default: {
          // Already frozen by #prepareFunc when freezing is on.
          const obj = d.object as T;
          const old = indexer.get(obj);
          if (old !== undefined) {
            indexer.update(obj);
            this.#onUpdate(old, obj);
          } else {
            indexer.add(obj);
            this.#processor.distribute({ type: 'add', object: obj, isInInitialList }, false);
          }
          // A relist's items (Replaced, non-atomic queues) carry their own older versions: only events count.
          if (d.type === DeltaType.Added || d.type === DeltaType.Updated) this.#advanceResourceVersion(obj);
        }
      }
    }
  }

  /** A watch event's object carries the resourceVersion the cache now reflects (a tombstone carries none). */
  #advanceResourceVersion(obj: unknown): void {
    const rv = resourceVersionOf(obj);
    if (rv !== '') this.#storeResourceVersion = rv;
  }

  /**
   * An update whose resourceVersion did not change is a resync (relists re-deliver unchanged
   * objects); like upstream's OnUpdate, two objects without a resourceVersion compare equal.
   */
  #onUpdate(oldObj: T, newObj: T): void {
    const isSync = resourceVersionOf(newObj) === resourceVersionOf(oldObj);
    this.#processor.distribute({ type: 'update', oldObject: oldObj, object: newObj }, isSync);
  }

  /**
   * Applies a relist atomically (processReplacedAllInfo): swap the cache, then notify a delete
   * (tombstone with the last cached object) for every vanished key, then an add or update per
   * listed object in list order.
   */
  #replaceAll(info: ReplacedAllInfo<T>, isInInitialList: boolean): void {
    const indexer = this.#indexer;
    const objects = info.objects;
    const items = new Map<string, T>();
    const olds = new Array<T | undefined>(objects.length);
    for (let i = 0; i < objects.length; i++) {
      const obj = objects[i]!;
      const key = indexer.keyOf(obj);
      olds[i] = indexer.getByKey(key);
      items.set(key, obj);
    }
    const deletions: DeletedFinalStateUnknown<T>[] = [];
    for (const key of indexer.listKeys()) {
      if (!items.has(key)) deletions.push(new DeletedFinalStateUnknown<T>(key, indexer.getByKey(key)));
    }
    indexer.replaceByKey(items, info.resourceVersion);
    for (const tomb of deletions) this.#processor.distribute({ type: 'delete', object: tomb }, false);
    for (let i = 0; i < objects.length; i++) {
      const old = olds[i];
      if (old !== undefined) this.#onUpdate(old, objects[i]!);
      else this.#processor.distribute({ type: 'add', object: objects[i]!, isInInitialList }, false);
    }
  }
}
