/**
 * SharedInformerFactory (client-go informers/factory.go): one informer per resource per factory,
 * shared by everyone asking for it, started and awaited together. It is generic over where
 * ListerWatchers come from, so it needs no REST code; typed factories (`coreV1().pods()`), the
 * dynamic factory and the metadata-only factory are thin layers over {@link SharedInformerFactory.forResource}.
 */
import { apiVersionOf, type GroupVersionResource } from '../../apimachinery/object.ts';
import type { KubeObject } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';
import type { Clock } from '../../util/clock/clock.ts';
import type { TransformFunc } from './delta.ts';
import { Lister } from './lister.ts';
import { ListWatch, type ListerWatcher } from './listwatch.ts';
import { SharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.ts';
import { waitForCacheSync } from './wait-for-cache-sync.ts';

/** The factory's key for a resource: `group/version/resource` ("/v1/pods" for the core group). */
export function gvrKey(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}/${gvr.resource}`;
}

/** What {@link SharedInformerFactory.informerFor}'s constructor callback receives. */
export interface InformerContext<T> {
  /** The resource the informer is for. */
  gvr: GroupVersionResource;
  /** The factory's namespace ('' = all). */
  namespace: string;
  /** A ListerWatcher with the factory's tweakListOptions applied. */
  listerWatcher: ListerWatcher<T>;
  /** The resync period for this resource (customResync, else defaultResyncMs). */
  resyncMs: number;
  /** The informer options the factory would use. */
  informerOptions: SharedIndexInformerOptions<T>;
}

/** Options of a {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions {
  /**
   * Makes the ListerWatcher for a resource in a namespace ('' = all namespaces). Any ListerWatcher fits (a
   * dynamic client's yields Unstructured): `forResource<T>` states the object type.
   */
  listerWatcherFor: (gvr: GroupVersionResource, namespace: string) => ListerWatcher<unknown>;
  /** Restricts every informer to one namespace (default '' = all). */
  namespace?: string;
  /** Adjusts the options of every list and watch (e.g. a label selector). */
  tweakListOptions?: (options: ListOptions) => void;
  /** Default handler resync period of the informers (default 0 = none). */
  defaultResyncMs?: number;
  /** Per-resource resync periods keyed by {@link gvrKey} (or "apiVersion/resource", e.g. "v1/pods"). */
  customResync?: ReadonlyMap<string, number>;
  /** Time source for every informer (default: the real clock). */
  clock?: Clock;
  /**
   * Transform set on every informer (e.g. stripManagedFields). It receives the objects of every
   * resource, so it is typed on KubeObject; a generic function such as stripManagedFields fits.
   */
  transform?: TransformFunc<KubeObject>;
  /** Further options for every informer (freezing, reflector tuning, handler error reporting). */
  informerOptions?: Omit<SharedIndexInformerOptions<unknown>, 'clock' | 'defaultEventHandlerResyncPeriodMs' | 'indexers'>;
}

/** An informer and a lister for one resource (informers.GenericInformer). */
export interface GenericInformer<T extends KubeObject> {
  /** The shared informer. */
  informer(): SharedIndexInformer<T>;
  /** A lister reading the informer's cache. */
  lister(): Lister<T>;
}

/**
 * Shares informers among the parts of a program (informers.SharedInformerFactory).
 *
 * Extension point for typed factories: subclass (or wrap) and map accessors to
 * {@link SharedInformerFactory.forResource}, e.g.
 * `coreV1() { return { pods: () => this.forResource<Pod>({ group: '', version: 'v1', resource: 'pods' }) }; }`.
 * Use {@link SharedInformerFactory.informerFor} with a constructor callback for informers needing
 * special construction (extra indexers, a metadata-only ListerWatcher).
 *
 * @example
 * const factory = new SharedInformerFactory({ listerWatcherFor: (gvr, ns) => newListWatchFromClient(dynamic.resource(gvr).namespace(ns)) });
 * const pods = factory.forResource<Pod>({ group: '', version: 'v1', resource: 'pods' });
 * pods.informer().addEventHandler({ onAdd: (p) => console.log(p.metadata?.name) });
 * factory.start({ signal });
 * await factory.waitForCacheSync({ signal });
 * pods.lister().namespace('default').list();
 */
export class SharedInformerFactory {
  readonly #options: SharedInformerFactoryOptions;
  readonly #namespace: string;
  readonly #informers = new Map<string, SharedIndexInformer<unknown>>();
  /** Informers started, with the promise of their run. */
  readonly #running = new Map<string, Promise<void>>();
  readonly #shutdown = new AbortController();
  #shuttingDown = false;

  constructor(options: SharedInformerFactoryOptions) {
    this.#options = options;
    this.#namespace = options.namespace ?? '';
  }

  /** The factory's namespace ('' = all). */
  get namespace(): string {
    return this.#namespace;
  }

  /**
   * The informer for `gvr`, created on first request (InformerFor). `newInformer` builds it when
   * given; the default is a {@link SharedIndexInformer} over the factory's ListerWatcher.
   */
  informerFor<T>(gvr: GroupVersionResource, newInformer?: (ctx: InformerContext<T>) => SharedIndexInformer<T>): SharedIndexInformer<T> {
    const key = gvrKey(gvr);
    const existing = this.#informers.get(key);
    if (existing !== undefined) return existing as SharedIndexInformer<T>;
    const ctx = this.#context<T>(gvr);
    const informer = newInformer !== undefined ? newInformer(ctx) : new SharedIndexInformer<T>(ctx.listerWatcher, ctx.informerOptions);
    if (this.#options.transform !== undefined && !informer.hasStarted()) informer.setTransform(this.#options.transform as unknown as TransformFunc<T>);
    this.#informers.set(key, informer as SharedIndexInformer<unknown>);
    return informer;
  }

  /** An informer and a lister for any resource (ForResource). */
  forResource<T extends KubeObject>(gvr: GroupVersionResource): GenericInformer<T> {
    const resource = { group: gvr.group, resource: gvr.resource };
    return {
      informer: () => this.informerFor<T>(gvr),
      lister: () => new Lister<T>(this.informerFor<T>(gvr).getIndexer(), resource),
    };
  }

  /**
   * Starts every informer not started yet (Start); idempotent. Informers run until `signal` aborts
   * or {@link SharedInformerFactory.shutdown}. Does nothing once shutting down.
   */
  start({ signal }: { signal?: AbortSignal } = {}): void {
    if (this.#shuttingDown) return;
    const stop = signal === undefined ? this.#shutdown.signal : AbortSignal.any([signal, this.#shutdown.signal]);
    for (const [key, informer] of this.#informers) {
      if (this.#running.has(key)) continue;
      this.#running.set(key, informer.run({ signal: stop }));
    }
  }

  /**
   * Waits until every started informer synced or `signal` aborts (WaitForCacheSync); maps each
   * started resource's {@link gvrKey} to whether it synced.
   */
  async waitForCacheSync({ signal, clock }: { signal?: AbortSignal; clock?: Clock } = {}): Promise<Map<string, boolean>> {
    const started = [...this.#running.keys()].map((key) => [key, this.#informers.get(key)!] as const);
    const result = new Map<string, boolean>();
    const waitClock = clock ?? this.#options.clock;
    for (const [key, informer] of started) {
      const opts: { signal?: AbortSignal; clock?: Clock } = {};
      if (signal !== undefined) opts.signal = signal;
      if (waitClock !== undefined) opts.clock = waitClock;
      result.set(key, await waitForCacheSync(opts, () => informer.hasSynced()));
    }
    return result;
  }

  /**
   * Stops every informer and resolves once all exited (Shutdown): reflectors, queues, and event
   * handlers still running (an async handler's promise is awaited). Afterwards `start` does nothing.
   * Upstream's Shutdown only waits for informers stopped through Start's stop channel; this one
   * also stops them.
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    this.#shutdown.abort();
    await Promise.all(this.#running.values());
  }

  #context<T>(gvr: GroupVersionResource): InformerContext<T> {
    // The caller's type argument of forResource<T> says what the objects of `gvr` are.
    const base = this.#options.listerWatcherFor(gvr, this.#namespace) as ListerWatcher<T>;
    const tweak = this.#options.tweakListOptions;
    const listerWatcher: ListerWatcher<T> =
      tweak === undefined
        ? base
        : new ListWatch<T>({
            list: (o) => {
              const copy = { ...o };
              tweak(copy);
              return base.list(copy);
            },
            watch: (o) => {
              const copy = { ...o };
              tweak(copy);
              return base.watch(copy);
            },
            watchListSemanticsUnsupported: base.isWatchListSemanticsUnsupported?.() === true,
          });
    const custom = this.#options.customResync;
    const resyncMs = custom?.get(gvrKey(gvr)) ?? custom?.get(`${apiVersionOf(gvr)}/${gvr.resource}`) ?? this.#options.defaultResyncMs ?? 0;
    const informerOptions: SharedIndexInformerOptions<T> = {
      ...(this.#options.informerOptions as SharedIndexInformerOptions<T> | undefined),
      defaultEventHandlerResyncPeriodMs: resyncMs,
      objectDescription: gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`,
    };
    if (this.#options.clock !== undefined) informerOptions.clock = this.#options.clock;
    return { gvr, namespace: this.#namespace, listerWatcher, resyncMs, informerOptions };
  }
}
