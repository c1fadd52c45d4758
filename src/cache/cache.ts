/**
 * The manager's cache (controller-runtime pkg/cache: cache.go, informer_cache.go, multi_namespace_cache.go,
 * internal/informers.go, internal/cache_reader.go): one shared informer per kind, built on kubeloom's
 * {@link SharedIndexInformer}, created when first asked for (or declared up front), started with the
 * manager, and read like a client: `get` and `list` with label selectors and field selectors on indexed
 * fields. Typed kinds, custom resources and metadata-only kinds ({@link metadataOnly}) are cached alike.
 *
 * Options follow cache.Options: default namespaces (one informer per namespace, as the multi-namespace
 * cache), label/field selectors and transforms, per-kind overrides in `byObject`, the resync period,
 * `readerFailOnMissingInformer`. Besides, each kind's cache can wait until it holds an object at least as
 * new as a given resourceVersion ({@link InformerCache.waitForVersion}), which the client's
 * read-your-writes is built on; controller-runtime has no such thing.
 */
import { isNotFound, KubeloomError, newNotFound } from '../apimachinery/errors.ts';
import { parseFieldSelector, type FieldSelector } from '../apimachinery/fields.ts';
import { parseSelector, type LabelSelector } from '../apimachinery/labels.ts';
import type { KubeObject, PartialObjectMetadata } from '../apimachinery/object.ts';
import type { ListOptions } from '../apimachinery/options.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { partialObjectMetadataAccept, partialObjectMetadataListAccept } from '../metadata/metadata-client.ts';
import type { RestClient } from '../rest/client.ts';
import type { ShardSelector } from '../apimachinery/sharding/selector.ts';
import type { TransformFunc } from '../tools/cache/delta.ts';
import type { ResourceEventHandler } from '../tools/cache/event-handlers.ts';
import type { Indexer, Indexers } from '../tools/cache/indexer.ts';
import type { ListerWatcher } from '../tools/cache/listwatch.ts';
import { defaultWatchErrorHandler } from '../tools/cache/reflector.ts';
import { deletionHandlingMetaNamespaceKeyFunc, type DeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import { SharedIndexInformer, type ResourceEventHandlerRegistration } from '../tools/cache/shared-informer.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { kindKey, type ResourceKind } from '../client/kinds.ts';
import { compareResourceVersions } from './resource-version.ts';

/** A metadata-only view of a kind: its cache holds PartialObjectMetadata (see {@link metadataOnly}). */
export type MetadataKind = ResourceKind<PartialObjectMetadata> & {
  /** Marks the metadata-only view. */
  readonly metadataOnly: true;
};

/**
 * The metadata-only variant of `kind` (controller-runtime's `builder.OnlyMetadata` and reading into a
 * PartialObjectMetadata): its informer lists and watches `as=PartialObjectMetadata`, so a cache of large
 * objects (Secrets, ConfigMaps) costs only their metadata.
 */
export function metadataOnly(kind: ResourceKind<unknown, unknown>): MetadataKind {
  return Object.freeze({ group: kind.group, version: kind.version, resource: kind.resource, kind: kind.kind, namespaced: kind.namespaced, subresources: kind.subresources, metadataOnly: true as const });
}

/** Whether `kind` is a {@link metadataOnly} view. */
export function isMetadataKind(kind: ResourceKind<unknown, unknown>): kind is MetadataKind {
  return (kind as Partial<MetadataKind>).metadataOnly === true;
}

/** Selects and transforms what a kind's informer caches (cache.ByObject / cache.Config). */
export interface ObjectSelectorOptions {
  /** Namespaces to cache ('' or unset: every namespace); ignored for cluster-scoped kinds. */
  namespaces?: readonly string[];
  /** Only objects whose labels match (sent to the server). */
  labelSelector?: string;
  /** Only objects whose fields match (sent to the server). */
  fieldSelector?: string;
  /** Applied to each object before it is cached (e.g. stripManagedFields). */
  transform?: TransformFunc<KubeObject>;
  /**
   * Only the objects of one shard (KEP-5866; see the informer's `shardSelector`); the Manager's
   * `sharding` option sets it, with `shardKey`, on the kinds of its sharded controllers.
   */
  shardSelector?: ShardSelector;
  /** A client-only shard key (e.g. `controllerShardKey` for owned objects). */
  shardKey?: (obj: KubeObject) => string;
}

/** Options of an {@link InformerCache} (cache.Options). */
export interface CacheOptions {
  /** The REST client informers list and watch through. */
  rest: RestClient;
  /** Namespaces cached for namespaced kinds without a `byObject` entry (default: all namespaces). */
  defaultNamespaces?: readonly string[];
  /** Label selector of every informer without a `byObject` one. */
  defaultLabelSelector?: string;
  /** Field selector of every informer without a `byObject` one. */
  defaultFieldSelector?: string;
  /** Transform of every informer without a `byObject` one. */
  defaultTransform?: TransformFunc<KubeObject>;
  /** Per-kind overrides (cache.Options.ByObject). */
  byObject?: ReadonlyArray<readonly [ResourceKind<unknown, unknown>, ObjectSelectorOptions]>;
  /**
   * Resync period of every informer (cache.Options.SyncPeriod). Default 10 hours as upstream; unchanged
   * objects are then delivered again (at low priority in controllers).
   */
  syncPeriodMs?: number;
  /**
   * Reads of a kind without an informer fail with {@link ResourceNotCachedError} instead of starting one
   * (cache.Options.ReaderFailOnMissingInformer). Default false.
   */
  readerFailOnMissingInformer?: boolean;
  /** Time source. Default: the real clock. */
  clock?: Clock;
  /** Called after each LIST and WATCH request an informer makes, with the method (GET), HTTP code (or '<error>') and verb
   * ('list' for a LIST and for a watch-list, which streams the initial state; 'watch' for a plain watch). */
  onRequest?: (method: string, code: string, verb: 'list' | 'watch') => void;
  /**
   * Called when an informer's LIST or WATCH fails (a refused connection, a kind the server does not
   * serve), once per attempt: the reflector's backoff (800 ms → 30 s) spaces the calls. The Manager
   * logs them; the last error of each kind is kept for {@link InformerCache.syncStatus}.
   */
  onListWatchError?: (kind: ResourceKind<unknown, unknown>, objectDescription: string, err: unknown) => void;
}

/** One kind's informers as seen by {@link InformerCache.syncStatus}. */
export interface KindSyncStatus {
  /** The kind. */
  readonly kind: ResourceKind<unknown, unknown>;
  /** E.g. "example.com/v1, Resource=websites". */
  readonly objectDescription: string;
  /** Whether every namespace's informer has synced. */
  readonly synced: boolean;
  /** The error of the last LIST or WATCH, when the last one failed; cleared by the next success. */
  readonly lastError: unknown;
}

/** Options of {@link InformerCache.getInformer}. */
export interface GetInformerOptions {
  /** Wait until the informer synced (cache.BlockUntilSynced). Default true. */
  blockUntilSynced?: boolean;
  /** Aborts the wait. */
  signal?: AbortSignal;
}

/** The informer of one kind across the namespaces the cache covers (cache.Informer). */
export interface Informer<T> {
  /** Registers a handler on every namespace's informer; the registration syncs when all did. */
  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration;
  /** Unregisters a handler registered here. */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void;
  /** Adds indexes to every namespace's informer. */
  addIndexers(indexers: Indexers<T>): void;
  /**
   * The cache of the informer: its own indexer when one informer covers the kind (all namespaces, or
   * a single one), else a read-only view across the namespaces' indexers (writes throw
   * {@link ReadOnlyIndexerError}).
   */
  getIndexer(): Indexer<T>;
  /** True once every namespace's informer has synced. */
  hasSynced(): boolean;
  /** True once the informer was started. */
  hasStarted(): boolean;
  /** For messages, e.g. "apps/v1, Resource=deployments". */
  readonly objectDescription: string;
}

/** What `get`/`list` accept. */
export interface CacheListOptions {
  /** Only this namespace ('' or unset: all). */
  namespace?: string;
  /** Label selector. */
  labelSelector?: string | LabelSelector;
  /**
   * Field selector; every term must be `field=value` on a field indexed with
   * {@link InformerCache.indexField} (or `metadata.name` / `metadata.namespace`), as controller-runtime's cache requires.
   */
  fieldSelector?: string | FieldSelector;
}

/** The cache was read before it started (cache.ErrCacheNotStarted). */
export class CacheNotStartedError extends KubeloomError {
  constructor() {
    super('ERR_CACHE_NOT_STARTED', 'the cache is not started, can not read objects');
  }
}

/** A read of a kind without an informer, with readerFailOnMissingInformer (cache.ErrResourceNotCached). */
export class ResourceNotCachedError extends KubeloomError {
  constructor(kind: ResourceKind<unknown, unknown>) {
    super('ERR_RESOURCE_NOT_CACHED', `${kind.kind} is not cached`);
  }
}

/**
 * A read of a kind the server does not serve: its informer's LIST answered 404, as for a custom
 * resource whose CRD is not installed (meta.NoKindMatchError, which controller-runtime's cache
 * returns at once from its RESTMapper). The informer keeps retrying: once the CRD is installed, reads
 * work.
 */
export class NoKindMatchError extends KubeloomError {
  constructor(kind: ResourceKind<unknown, unknown>, cause?: unknown) {
    super('ERR_NO_KIND_MATCH', noKindMatchMessage(kind), cause !== undefined ? { cause } : undefined);
  }
}

/** meta.NoKindMatchError's text: `no matches for kind "Website" in version "example.com/v1"`. */
export function noKindMatchMessage(kind: ResourceKind<unknown, unknown>): string {
  return `no matches for kind ${JSON.stringify(kind.kind)} in version ${JSON.stringify(kind.group === '' ? kind.version : `${kind.group}/${kind.version}`)}`;
}

/** A kind was sharded after its informers were created without a shard selector. */
export class CacheShardingError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CACHE_SHARDING', message);
  }
}

/**
 * One indexer was asked of a kind cached per namespace in several namespaces. No longer thrown:
 * `getIndexer()` answers with a read-only view across namespaces; kept for programs that catch it.
 */
export class MultipleNamespacesError extends KubeloomError {
  constructor(description: string) {
    super('ERR_CACHE_MULTIPLE_NAMESPACES', `${description} is cached in several namespaces: read it through the cache, not one indexer`);
  }
}

/** A field selector the cache cannot answer (not `field=value`, or not indexed). */
export class UnsupportedFieldSelectorError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CACHE_FIELD_SELECTOR', message);
  }
}

/** Index names of field indexes, as controller-runtime's `field:<name>`. */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

// controller-runtime's allNamespacesNamespace: index values are stored per namespace and once for all.
const allNamespaces = '__all_namespaces';

type RequestHook = (method: string, code: string, verb: 'list' | 'watch') => void;

function counted<R>(onRequest: RequestHook | undefined, verb: 'list' | 'watch', p: Promise<R>): Promise<R> {
  if (onRequest === undefined) return p;
  return p.then(
    (r) => {
      onRequest('GET', '200', verb);
      return r;
    },
    (err: unknown) => {
      const code = (err as { status?: { code?: number } } | undefined)?.status?.code;
      onRequest('GET', code !== undefined ? String(code) : '<error>', verb);
      throw err;
    },
  );
}

/**
 * Sets `apiVersion` and `kind` on listed items that lack them. A LIST answer's items carry no TypeMeta
 * (kube-apiserver omits it for built-in kinds), while watch events do; controller-runtime's cache reader
 * sets the GroupVersionKind on every object it returns (pkg/cache/internal/cache_reader.go), so code
 * that needs the kind of a cached object (an event recorder's reference, an owner reference) finds it
 * whichever way the object reached the cache.
 */
function withTypeMeta<L>(list: L, apiVersion: string, kind: string): L {
  const items = (list as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items)) return list;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Record<string, unknown> | null;
    if (item === null || typeof item !== 'object' || (typeof item.kind === 'string' && item.kind !== '')) continue;
    if (Object.isFrozen(item)) items[i] = { ...item, apiVersion, kind };
    else {
      item.apiVersion = apiVersion;
      item.kind = kind;
    }
  }
  return list;
}

function withSelectors(lw: ListerWatcher<unknown>, label: string | undefined, field: string | undefined): ListerWatcher<unknown> {
  if (label === undefined && field === undefined) return lw;
  const tweak = (o: ListOptions): ListOptions => ({ ...o, ...(label !== undefined ? { labelSelector: label } : {}), ...(field !== undefined ? { fieldSelector: field } : {}) });
  const out: ListerWatcher<unknown> = { list: (o) => lw.list(tweak(o)), watch: (o) => lw.watch(tweak(o)) };
  if (lw.listStream !== undefined) out.listStream = (o, onItems) => lw.listStream!(tweak(o), onItems);
  return out;
}

/** The cache's indexer of a kind cached in several namespaces was asked to write. */
export class ReadOnlyIndexerError extends KubeloomError {
  constructor(description: string, method: string) {
    super('ERR_CACHE_READ_ONLY_INDEXER', `${description}: the indexer of a kind cached in several namespaces is a read-only view (${method})`);
  }
}

/**
 * One read-only view over the indexers of a kind cached per namespace (controller-runtime's
 * multiNamespaceInformer, whose GetIndexer returns nil; here reads are answered across namespaces:
 * lists and index lookups concatenate, key lookups go to the namespace's informer). Writes throw
 * {@link ReadOnlyIndexerError}: only the informers write their stores.
 */
class MultiNamespaceIndexer<T> implements Indexer<T> {
  readonly #informers: ReadonlyMap<string, SharedIndexInformer<T>>;
  readonly #description: string;
  constructor(informers: ReadonlyMap<string, SharedIndexInformer<T>>, description: string) {
    this.#informers = informers;
    this.#description = description;
  }
  #all(): Array<Indexer<T>> {
    return [...this.#informers.values()].map((i) => i.getIndexer());
  }
  #for(key: string): Indexer<T> | undefined {
    const slash = key.indexOf('/');
    return slash < 0 ? undefined : this.#informers.get(key.slice(0, slash))?.getIndexer();
  }
  add(): void {
    throw new ReadOnlyIndexerError(this.#description, 'add');
  }
  update(): void {
    throw new ReadOnlyIndexerError(this.#description, 'update');
  }
  delete(): void {
    throw new ReadOnlyIndexerError(this.#description, 'delete');
  }
  replace(): void {
    throw new ReadOnlyIndexerError(this.#description, 'replace');
  }
  resync(): void {
    throw new ReadOnlyIndexerError(this.#description, 'resync');
  }
  list(): T[] {
    return this.#all().flatMap((i) => i.list());
  }
  listKeys(): string[] {
    return this.#all().flatMap((i) => i.listKeys());
  }
  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.getByKey(deletionHandlingMetaNamespaceKeyFunc(obj));
  }
  getByKey(key: string): T | undefined {
    return this.#for(key)?.getByKey(key);
  }
  index(indexName: string, obj: T): T[] {
    return this.#all().flatMap((i) => i.index(indexName, obj));
  }
  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.#all().flatMap((i) => i.indexKeys(indexName, indexedValue));
  }
  listIndexFuncValues(indexName: string): string[] {
    return [...new Set(this.#all().flatMap((i) => i.listIndexFuncValues(indexName)))];
  }
  byIndex(indexName: string, indexedValue: string): T[] {
    return this.#all().flatMap((i) => i.byIndex(indexName, indexedValue));
  }
  getIndexers(): Indexers<T> {
    return this.#all()[0]?.getIndexers() ?? {};
  }
  addIndexers(newIndexers: Indexers<T>): void {
    for (const i of this.#informers.values()) i.addIndexers(newIndexers);
  }
}

/** The informers of one kind: one per cached namespace ('' = all). */
class KindInformers<T extends KubeObject> implements Informer<T> {
  readonly kind: ResourceKind<unknown, unknown>;
  readonly informers = new Map<string, SharedIndexInformer<T>>();
  readonly objectDescription: string;
  /** The last LIST/WATCH error, undefined once a request succeeded again. */
  lastError: unknown;
  readonly #waiters = new Set<() => void>();
  #started = false;
  /** Stops this kind's informers alone (removeInformer), whatever the cache's signal does. */
  readonly #stop = new AbortController();
  #running: Promise<void> = Promise.resolve();
  /** Users holding the informer through {@link InformerCache.acquireInformer}. */
  users = 0;
  /** Used through the non-counted API (getInformer, informerFor, reads, indexes): never released by count. */
  pinned = false;

  constructor(kind: ResourceKind<unknown, unknown>, rest: RestClient, namespaces: readonly string[], sel: ObjectSelectorOptions, resyncMs: number, clock: Clock, onRequest?: RequestHook, onError?: CacheOptions['onListWatchError']) {
    this.kind = kind;
    const meta = isMetadataKind(kind);
    this.objectDescription = `${kind.group === '' ? kind.version : `${kind.group}/${kind.version}`}, Resource=${kind.resource}${meta ? ' (metadata)' : ''}`;
    const nsList = kind.namespaced && namespaces.length > 0 ? namespaces : [''];
    for (const ns of nsList) {
      const client = new ResourceClient<unknown>(rest, {
        group: kind.group,
        version: kind.version,
        resource: kind.resource,
        kind: meta ? 'PartialObjectMetadata' : kind.kind,
        namespaced: kind.namespaced,
        namespace: ns,
        ...(meta ? { accept: { object: partialObjectMetadataAccept, list: partialObjectMetadataListAccept } } : {}),
      });
      const apiVersion = kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
      const list = meta ? (o: ListOptions) => client.list(o) : async (o: ListOptions) => withTypeMeta(await client.list(o), apiVersion, kind.kind);
      const lw = withSelectors({ list: (o) => this.#tracked(counted(onRequest, 'list', list(o)), o.signal, onError), watch: (o) => this.#tracked(counted(onRequest, o.sendInitialEvents === true ? 'list' : 'watch', client.watch(o)), o.signal, onError) }, sel.labelSelector, sel.fieldSelector);
      const informer = new SharedIndexInformer<T>(lw as ListerWatcher<T>, {
        clock,
        defaultEventHandlerResyncPeriodMs: resyncMs,
        objectDescription: this.objectDescription,
        ...(sel.shardSelector !== undefined ? { shardSelector: sel.shardSelector } : {}),
        ...(sel.shardKey !== undefined ? { shardKey: sel.shardKey as (obj: T) => string } : {}),
      });
      if (sel.transform !== undefined) informer.setTransform(sel.transform as unknown as TransformFunc<T>);
      // A failed request was reported through onError already; the reflector's default handler would say it twice.
      if (onError !== undefined) informer.setWatchErrorHandler((r, err) => {
        for (let e: unknown = err; e !== undefined; e = e instanceof Error ? e.cause : undefined) if (e === this.lastError) return;
        defaultWatchErrorHandler(r, err);
      });
      // Wakes read-your-writes waiters whenever the cache changes (the store is updated before handlers run).
      const wake = (): void => {
        for (const w of [...this.#waiters]) w();
      };
      informer.addEventHandler({ onAdd: wake, onUpdate: wake, onDelete: wake });
      this.informers.set(ns, informer);
    }
  }

  // Keeps the last request error for syncStatus and reports it; an aborted request (stop) is no error.
  #tracked<R>(p: Promise<R>, signal: AbortSignal | undefined, onError: CacheOptions['onListWatchError']): Promise<R> {
    return p.then(
      (r) => {
        this.lastError = undefined;
        return r;
      },
      (err: unknown) => {
        if (signal?.aborted !== true) {
          this.lastError = err;
          onError?.(this.kind, this.objectDescription, err);
        }
        throw err;
      },
    );
  }

  run(signal: AbortSignal): Promise<void> {
    if (this.#stop.signal.aborted) return Promise.resolve();
    this.#started = true;
    const both = AbortSignal.any([signal, this.#stop.signal]);
    this.#running = Promise.all([...this.informers.values()].map((i) => i.run({ signal: both }))).then(() => undefined);
    return this.#running;
  }

  /** Stops the informers (their watches end) and empties their stores, so nothing is held any more. */
  async stop(): Promise<void> {
    this.#stop.abort();
    // The informers stopped first, so no write of theirs lands after the stores are emptied.
    await this.#running;
    for (const i of this.informers.values()) i.getIndexer().replace([], '');
    for (const w of [...this.#waiters]) w();
  }

  hasStarted(): boolean {
    return this.#started;
  }

  hasSynced(): boolean {
    for (const i of this.informers.values()) if (!i.hasSynced()) return false;
    return true;
  }

  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration {
    const regs = [...this.informers.values()].map((i) => [i, i.addEventHandler(handler)] as const);
    return new MultiRegistration(regs, this);
  }

  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    if (!(registration instanceof MultiRegistration)) return;
    for (const [i, r] of registration.regs) i.removeEventHandler(r);
  }

  addIndexers(indexers: Indexers<T>): void {
    for (const i of this.informers.values()) i.addIndexers(indexers);
  }

  getIndexer(): Indexer<T> {
    if (this.informers.size === 1) return [...this.informers.values()][0]!.getIndexer();
    return new MultiNamespaceIndexer<T>(this.informers, this.objectDescription);
  }

  /** The informer holding `namespace`'s objects, or undefined when the cache does not cover it. */
  informerFor(namespace: string): SharedIndexInformer<T> | undefined {
    return this.informers.get('') ?? this.informers.get(namespace);
  }

  get(namespace: string, name: string): T | undefined {
    const key = this.kind.namespaced ? `${namespace}/${name}` : name;
    return this.informerFor(this.kind.namespaced ? namespace : '')?.getIndexer().getByKey(key);
  }

  /** Resolves true once `cond()` holds, false if `timeoutMs` passes first (or `signal` aborts). */
  async waitUntil(cond: () => boolean, timeoutMs: number, clock: Clock, signal?: AbortSignal): Promise<boolean> {
    if (cond()) return true;
    if (timeoutMs <= 0) return false;
    return new Promise<boolean>((resolve) => {
      const finish = (value: boolean): void => {
        this.#waiters.delete(check);
        timer.stop();
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const check = (): void => {
        if (cond()) finish(true);
      };
      const onAbort = (): void => finish(false);
      const timer = clock.afterFunc(timeoutMs, () => finish(cond()));
      this.#waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }
}

interface Unregister {
  removeEventHandler(registration: ResourceEventHandlerRegistration): void;
}

class MultiRegistration implements ResourceEventHandlerRegistration {
  readonly regs: ReadonlyArray<readonly [Unregister, ResourceEventHandlerRegistration]>;
  readonly #owner: { hasStarted(): boolean; readonly objectDescription: string };
  constructor(regs: ReadonlyArray<readonly [Unregister, ResourceEventHandlerRegistration]>, owner: { hasStarted(): boolean; readonly objectDescription: string }) {
    this.regs = regs;
    this.#owner = owner;
  }
  hasSynced(): boolean {
    return this.regs.every(([, r]) => r.hasSynced());
  }
  hasStarted(): boolean {
    return this.#owner.hasStarted();
  }
  get objectDescription(): string {
    return this.#owner.objectDescription;
  }
}

/** One informer of an {@link InformerCache}, as {@link InformerCache.informerEntries} lists it. */
export interface InformerEntry {
  /** The kind it caches. */
  readonly kind: ResourceKind<unknown, unknown>;
  /** The kind for messages: `apps/v1, Resource=deployments`. */
  readonly description: string;
  /** The namespace it caches ('' = all). */
  readonly namespace: string;
  /** The informer. */
  readonly informer: SharedIndexInformer<KubeObject>;
}

/**
 * The manager's shared cache (cache.Cache): informers by kind, reads from them, field indexes.
 *
 * @example
 * const cache = new InformerCache({ rest, defaultNamespaces: ['team-a'] });
 * await cache.indexField(kinds.coreV1.pods, 'spec.nodeName', (pod) => [pod.spec?.nodeName ?? '']);
 * void cache.start(signal);
 * await cache.waitForCacheSync(signal);
 * const onNode = await cache.list(kinds.coreV1.pods, { fieldSelector: 'spec.nodeName=node-1' });
 */
export class InformerCache {
  readonly #options: CacheOptions;
  readonly #clock: Clock;
  readonly #kinds = new Map<string, KindInformers<KubeObject>>();
  readonly #byObject = new Map<string, ObjectSelectorOptions>();
  readonly #running: Promise<void>[] = [];
  #signal: AbortSignal | undefined;
  #started = false;

  constructor(options: CacheOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    for (const [kind, sel] of options.byObject ?? []) this.#byObject.set(kindKey(kind), sel);
  }

  #key(kind: ResourceKind<unknown, unknown>): string {
    return `${isMetadataKind(kind) ? 'meta:' : ''}${kindKey(kind)}`;
  }

  #entry<T extends KubeObject>(kind: ResourceKind<unknown, unknown>, create: boolean, pin = true): KindInformers<T> | undefined {
    const key = this.#key(kind);
    let entry = this.#kinds.get(key);
    if (entry !== undefined && create && pin) entry.pinned = true;
    if (entry === undefined && create) {
      const o = this.#options;
      const by = this.#byObject.get(kindKey(kind));
      const sel: ObjectSelectorOptions = {
        namespaces: by?.namespaces ?? o.defaultNamespaces ?? [],
        ...(by?.labelSelector ?? o.defaultLabelSelector) !== undefined ? { labelSelector: (by?.labelSelector ?? o.defaultLabelSelector)! } : {},
        ...(by?.fieldSelector ?? o.defaultFieldSelector) !== undefined ? { fieldSelector: (by?.fieldSelector ?? o.defaultFieldSelector)! } : {},
        ...(by?.transform ?? o.defaultTransform) !== undefined ? { transform: (by?.transform ?? o.defaultTransform)! } : {},
        ...(by?.shardSelector !== undefined ? { shardSelector: by.shardSelector } : {}),
        ...(by?.shardKey !== undefined ? { shardKey: by.shardKey } : {}),
      };
      entry = new KindInformers<KubeObject>(kind, o.rest, (sel.namespaces ?? []).filter((n) => n !== ''), sel, o.syncPeriodMs ?? 10 * 3600_000, this.#clock, o.onRequest, o.onListWatchError);
      entry.pinned = pin;
      this.#kinds.set(key, entry);
      if (this.#started && this.#signal !== undefined) this.#running.push(entry.run(this.#signal));
    }
    return entry as KindInformers<T> | undefined;
  }

  /**
   * Stops `kind`'s informer and forgets it, its store emptied (cache.Informers.RemoveInformer of
   * controller-runtime pkg/cache/informer_cache.go: unconditional, whoever else uses it). Event handlers
   * registered on it receive nothing more; a later use creates a new informer that lists again. Resolves
   * once the informers stopped; false when the cache had no informer for `kind`.
   */
  async removeInformer(kind: ResourceKind<unknown, unknown>): Promise<boolean> {
    const key = this.#key(kind);
    const entry = this.#kinds.get(key);
    if (entry === undefined) return false;
    this.#kinds.delete(key);
    await entry.stop();
    return true;
  }

  /**
   * The informer of `kind`, counted as one more user (kubeloom's reference-counted form of dynamic
   * watches, as proposed in controller-runtime #2983 and kube-rs #1630): created and started if
   * needed, not waited for (see {@link InformerCache.getInformer} for that). Each call must be matched
   * by one {@link InformerCache.releaseInformer}; the informer is removed when the last user releases it,
   * unless something used it through the non-counted API (getInformer, informerFor, reads, field
   * indexes), which keeps it for the cache's lifetime as upstream.
   */
  acquireInformer<T extends KubeObject>(kind: ResourceKind<T, unknown>): Informer<T> {
    const entry = this.#entry<T>(kind, true, false)!;
    entry.users++;
    return entry;
  }

  /**
   * Gives back one use of `kind`'s informer taken by {@link InformerCache.acquireInformer}; the last one
   * stops and removes it (see {@link InformerCache.removeInformer}). Resolves true when it was removed.
   */
  async releaseInformer(kind: ResourceKind<unknown, unknown>): Promise<boolean> {
    const entry = this.#kinds.get(this.#key(kind));
    if (entry === undefined || entry.users === 0) return false;
    entry.users--;
    if (entry.users > 0 || entry.pinned) return false;
    return this.removeInformer(kind);
  }

  /** How many users hold `kind`'s informer through {@link InformerCache.acquireInformer} (0 when it has none). */
  informerUsers(kind: ResourceKind<unknown, unknown>): number {
    return this.#kinds.get(this.#key(kind))?.users ?? 0;
  }

  /**
   * The informer of `kind`, created (and started, if the cache runs) on first use (cache.GetInformer).
   * Waits for it to sync when the cache runs, unless `blockUntilSynced` is false.
   */
  async getInformer<T extends KubeObject>(kind: ResourceKind<T, unknown>, options: GetInformerOptions = {}): Promise<Informer<T>> {
    const entry = this.#entry<T>(kind, true)!;
    if (this.#started && options.blockUntilSynced !== false) await this.#waitSynced(entry, options.signal);
    return entry;
  }

  /** The informer of `kind`, created if needed, without waiting (for wiring event handlers before start). */
  informerFor<T extends KubeObject>(kind: ResourceKind<T, unknown>): Informer<T> {
    return this.#entry<T>(kind, true)!;
  }

  /**
   * Creates `kind`'s informers with a shard selector (and shard key), as a `byObject` entry would;
   * used by the Manager's `sharding` option. Throws {@link CacheShardingError} when the kind already
   * has informers created without one.
   */
  shardKind(kind: ResourceKind<unknown, unknown>, options: Pick<ObjectSelectorOptions, 'shardSelector' | 'shardKey'>): void {
    const existing = this.#kinds.get(this.#key(kind));
    if (existing !== undefined) {
      if ([...existing.informers.values()].every((i) => i.shardSelector() !== undefined)) return;
      throw new CacheShardingError(`the informer for ${existing.objectDescription} was created before it was sharded`);
    }
    const k = kindKey(kind);
    this.#byObject.set(k, { ...this.#byObject.get(k), ...options });
  }

  /** The informers of `kind`, one per cached namespace, created if needed (for the sharding hooks). */
  namespaceInformers<T extends KubeObject>(kind: ResourceKind<T, unknown>): Array<SharedIndexInformer<T>> {
    return [...this.#entry<T>(kind, true)!.informers.values()];
  }

  /** Whether an informer for `kind` exists. */
  hasInformer(kind: ResourceKind<unknown, unknown>): boolean {
    return this.#kinds.has(this.#key(kind));
  }

  /**
   * Every informer of the cache with the kind it caches and its namespace ('' = all), for introspection
   * (kubeloom: /debug/controllers, the stalled-watch detector).
   */
  informerEntries(): InformerEntry[] {
    return [...this.#kinds.values()].flatMap((k) => [...k.informers].map(([namespace, informer]) => ({ kind: k.kind, description: k.objectDescription, namespace, informer })));
  }

  /** The kinds with informers (for health checks and messages). */
  informerDescriptions(): string[] {
    return [...this.#kinds.values()].map((k) => k.objectDescription);
  }

  /**
   * Indexes `kind`'s objects by the values `extract` returns, so `list` can select on `field=value`
   * (client.FieldIndexer.IndexField). Values are indexed per namespace and across namespaces.
   */
  indexField<T extends KubeObject>(kind: ResourceKind<T, unknown>, field: string, extract: (obj: T) => readonly string[]): void {
    const entry = this.#entry<T>(kind, true)!;
    entry.addIndexers({
      [fieldIndexName(field)]: (obj: T) => {
        const values = extract(obj);
        const ns = obj.metadata?.namespace ?? '';
        const out: string[] = [];
        for (const v of values) {
          out.push(`${allNamespaces}/${v}`);
          if (ns !== '') out.push(`${ns}/${v}`);
        }
        return out;
      },
    });
  }

  /**
   * Makes `kind` readable: throws before start (or for a missing informer with
   * readerFailOnMissingInformer), otherwise creates its informer if needed and waits for it to sync.
   */
  async ensureReadable(kind: ResourceKind<KubeObject, unknown>, signal?: AbortSignal): Promise<void> {
    await this.#readable(kind, signal);
  }

  async #readable<T extends KubeObject>(kind: ResourceKind<T, unknown>, signal?: AbortSignal): Promise<KindInformers<T>> {
    if (!this.#started) throw new CacheNotStartedError();
    const existing = this.#entry<T>(kind, false);
    if (existing === undefined && this.#options.readerFailOnMissingInformer === true) throw new ResourceNotCachedError(kind);
    const entry = existing ?? this.#entry<T>(kind, true)!;
    await this.#waitSynced(entry, signal);
    return entry;
  }

  async #waitSynced(entry: { hasSynced(): boolean; readonly kind?: ResourceKind<unknown, unknown>; readonly lastError?: unknown }, signal?: AbortSignal): Promise<void> {
    while (!entry.hasSynced()) {
      if (signal?.aborted === true || this.#signal?.aborted === true) throw signal?.reason ?? this.#signal?.reason;
      // A kind the server does not serve would never sync: say so at once, as upstream's RESTMapper does.
      if (entry.kind !== undefined && entry.lastError !== undefined && isNotFound(entry.lastError)) throw new NoKindMatchError(entry.kind, entry.lastError);
      await this.#clock.sleep(10, signal);
    }
  }

  /**
   * The cached object (cache_reader Get); a NotFound StatusError when the cache has none. Returns the
   * cache's own frozen object: copy it (structuredClone) before changing it.
   */
  async get<T extends KubeObject>(kind: ResourceKind<T, unknown>, key: { namespace?: string; name: string }, options: { signal?: AbortSignal } = {}): Promise<T> {
    const entry = await this.#readable(kind, options.signal);
    const obj = entry.get(key.namespace ?? '', key.name);
    if (obj === undefined) throw newNotFound(kind.group, kind.resource, key.name);
    return obj;
  }

  /** The cached object or undefined, without waiting or creating an informer (for read-your-writes). */
  peek<T extends KubeObject>(kind: ResourceKind<T, unknown>, namespace: string, name: string): T | undefined {
    return this.#entry<T>(kind, false)?.get(namespace, name);
  }

  /** Cached objects matching the options (cache_reader List). Objects are the cache's own, frozen. */
  async list<T extends KubeObject>(kind: ResourceKind<T, unknown>, options: CacheListOptions & { signal?: AbortSignal } = {}): Promise<T[]> {
    const entry = await this.#readable(kind, options.signal);
    const namespace = kind.namespaced ? (options.namespace ?? '') : '';
    const labels = typeof options.labelSelector === 'string' ? parseSelector(options.labelSelector) : options.labelSelector;
    const fields = typeof options.fieldSelector === 'string' ? parseFieldSelector(options.fieldSelector) : options.fieldSelector;
    let objects: T[];
    if (fields !== undefined && !fields.empty()) objects = this.#byFields(entry, namespace, fields);
    else if (namespace !== '') objects = entry.informerFor(namespace)?.getIndexer().byIndex('namespace', namespace) ?? [];
    else objects = [...entry.informers.values()].flatMap((i) => i.getIndexer().list());
    if (labels !== undefined && !labels.empty()) objects = objects.filter((o) => labels.matches(o.metadata?.labels));
    return objects;
  }

  #byFields<T extends KubeObject>(entry: KindInformers<T>, namespace: string, fields: FieldSelector): T[] {
    let result: T[] | undefined;
    for (const r of fields.requirements()) {
      if (r.operator !== '=') throw new UnsupportedFieldSelectorError(`field selector ${fields.toString()}: non-exact field matches are not supported by the cache`);
      let matched: T[];
      if (r.field === 'metadata.name' || r.field === 'metadata.namespace') {
        const pool = namespace !== '' ? (entry.informerFor(namespace)?.getIndexer().byIndex('namespace', namespace) ?? []) : [...entry.informers.values()].flatMap((i) => i.getIndexer().list());
        matched = pool.filter((o) => (r.field === 'metadata.name' ? o.metadata?.name : o.metadata?.namespace) === r.value);
      } else {
        const index = fieldIndexName(r.field);
        const value = `${namespace === '' ? allNamespaces : namespace}/${r.value}`;
        matched = [];
        for (const i of namespace !== '' ? [entry.informerFor(namespace)].filter((x) => x !== undefined) : entry.informers.values()) {
          if (!Object.hasOwn(i.getIndexer().getIndexers(), index)) throw new UnsupportedFieldSelectorError(`field selector ${r.field}: no index with name ${index} has been registered (use indexField)`);
          matched.push(...i.getIndexer().byIndex(index, value));
        }
      }
      if (result === undefined) result = matched;
      else {
        const keep = new Set(matched);
        result = result.filter((o) => keep.has(o));
      }
    }
    return result ?? [];
  }

  /**
   * Waits (at most `timeoutMs`) until the cache holds `namespace/name` at a resourceVersion at least
   * `resourceVersion`, or (with `deleted`) no longer holds it at a version older than that. True when it
   * did; false on timeout, for a kind without informer, or when versions are not comparable. The
   * bound is measured on `clock` (default: the cache's).
   */
  async waitForVersion(kind: ResourceKind<unknown, unknown>, namespace: string, name: string, resourceVersion: string, options: { timeoutMs: number; deleted?: boolean; signal?: AbortSignal; clock?: Clock }): Promise<boolean> {
    const entry = this.#entry<KubeObject>(kind, false);
    if (entry === undefined || !this.#started) return false;
    const cond = (): boolean => {
      const obj = entry.get(namespace, name);
      if (obj === undefined) return options.deleted === true;
      const cmp = compareResourceVersions(obj.metadata?.resourceVersion ?? '', resourceVersion);
      if (cmp === undefined) return false;
      return options.deleted === true ? cmp > 0 : cmp >= 0;
    };
    return entry.waitUntil(cond, options.timeoutMs, options.clock ?? this.#clock, options.signal);
  }

  /**
   * Runs every informer, including those created later, until `signal` aborts (a manager runnable);
   * resolves once they all stopped.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new KubeloomError('ERR_CACHE_STARTED', 'the cache was already started');
    this.#started = true;
    this.#signal = signal;
    for (const entry of this.#kinds.values()) this.#running.push(entry.run(signal));
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // Informers created while stopping are in #running too.
    for (let i = 0; i < this.#running.length; i++) await this.#running[i];
  }

  /** True once started and every informer created so far has synced. */
  hasSynced(): boolean {
    if (!this.#started) return false;
    for (const e of this.#kinds.values()) if (!e.hasSynced()) return false;
    return true;
  }

  /** Waits until {@link InformerCache.hasSynced}; false if `signal` aborts first (cache.WaitForCacheSync). */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    while (!this.hasSynced()) {
      if (signal?.aborted === true) return false;
      try {
        await this.#clock.sleep(10, signal);
      } catch {
        return false;
      }
    }
    return true;
  }

  /** Each kind's sync state and last LIST/WATCH error, for readiness checks and sync-timeout messages. */
  syncStatus(): KindSyncStatus[] {
    return [...this.#kinds.values()].map((e) => ({ kind: e.kind, objectDescription: e.objectDescription, synced: e.hasSynced(), lastError: e.lastError }));
  }

  /** Whether the cache was started. */
  hasStarted(): boolean {
    return this.#started;
  }
}
