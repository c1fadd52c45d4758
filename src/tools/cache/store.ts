/**
 * The generic object store (client-go tools/cache store.go): a {@link ThreadSafeStore} plus a key
 * function, so callers pass objects rather than keys.
 */
import { type DeletedFinalStateUnknown, type KeyFunc, deletionHandlingMetaNamespaceKeyFunc, keyOrKeyError } from './key-functions.ts';
import type { Indexer, Indexers } from './indexer.ts';
import { ThreadSafeMap, type ThreadSafeStore } from './thread-safe-store.ts';

/**
 * A keyed collection of objects (cache.Store). Methods taking an object compute its key with the
 * store's key function and throw {@link KeyError} when that fails.
 */
export interface Store<T> {
  /** Adds the object (or replaces the one with the same key). */
  add(obj: T): void;
  /** Updates the object (same as add for plain stores). */
  update(obj: T): void;
  /** Removes the object with the same key as `obj` (a tombstone's key for a DeletedFinalStateUnknown). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** Every stored object, in no particular order. */
  list(): T[];
  /** Every key. */
  listKeys(): string[];
  /** The stored object with `obj`'s key. */
  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined;
  /** The stored object with key `key`. */
  getByKey(key: string): T | undefined;
  /** Replaces the whole content with `list`, recorded as of `resourceVersion`. */
  replace(list: readonly T[], resourceVersion: string): void;
  /** Meaningful for queues only; a no-op for plain stores. */
  resync(): void;
}

/** The part of a store a queue needs to detect deletions and resyncs (cache.KeyListerGetter). */
export interface KeyListerGetter<T> {
  /** Every key in the store. */
  listKeys(): string[];
  /** The object stored under `key`. */
  getByKey(key: string): T | undefined;
}

/** Told about a knownObjects lookup that threw (upstream reports it through utilruntime.HandleError). */
export type LookupErrorHandler = (err: unknown, key: string) => void;

/** Logs a failed knownObjects lookup, as upstream's HandleError does. */
export function defaultLookupErrorHandler(err: unknown, key: string): void {
  console.error(`unexpected error during lookup of key ${JSON.stringify(key)}:`, err instanceof Error ? err.message : err);
}

/**
 * `known.getByKey(key)`, with a throwing lookup reported to `onError` and taken as "no object": a
 * queue goes on (placing a tombstone without object, or skipping a resync) instead of failing.
 */
export function lookupKnown<T>(known: KeyListerGetter<T>, key: string, onError: LookupErrorHandler): T | undefined {
  try {
    return known.getByKey(key);
  } catch (err) {
    onError(err, key);
    return undefined;
  }
}

/** A {@link Store} and {@link Indexer} over a {@link ThreadSafeStore} (client-go's `cache` type). */
export class Cache<T> implements Indexer<T> {
  readonly #storage: ThreadSafeStore<T>;
  readonly #keyFunc: KeyFunc<T>;

  /** The key of `obj`; a key function's own error comes out as a KeyError wrapping it. */
  #key(obj: T | DeletedFinalStateUnknown<T>): string {
    return keyOrKeyError(this.#keyFunc, obj);
  }

  constructor(keyFunc: KeyFunc<T>, indexers: Indexers<T> = {}) {
    this.#keyFunc = keyFunc;
    this.#storage = new ThreadSafeMap<T>(indexers);
  }

  add(obj: T): void {
    this.#storage.add(this.#key(obj), obj);
  }

  update(obj: T): void {
    this.#storage.update(this.#key(obj), obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#storage.delete(this.#key(obj), obj);
  }

  list(): T[] {
    return this.#storage.list();
  }

  listKeys(): string[] {
    return this.#storage.listKeys();
  }

  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.#storage.get(this.#key(obj));
  }

  getByKey(key: string): T | undefined {
    return this.#storage.get(key);
  }

  replace(list: readonly T[], resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(this.#key(obj), obj);
    this.#storage.replace(items, resourceVersion);
  }

  /** Like {@link Cache.replace} with keys already computed (saves a key computation per object). */
  replaceByKey(items: ReadonlyMap<string, T>, resourceVersion: string): void {
    this.#storage.replace(items, resourceVersion);
  }

  /** The key function of this cache. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return this.#key(obj);
  }

  resync(): void {}

  /** Records a watch bookmark's resourceVersion (Store.Bookmark). */
  bookmark(resourceVersion: string): void {
    this.#storage.bookmark(resourceVersion);
  }

  /**
   * The resourceVersion the store is at (LastStoreSyncResourceVersion): that of the last replace,
   * bookmark, or object added, updated or deleted.
   */
  lastStoreSyncResourceVersion(): string {
    return this.#storage.lastResourceVersion();
  }

  index(indexName: string, obj: T): T[] {
    return this.#storage.index(indexName, obj);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.#storage.indexKeys(indexName, indexedValue);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.#storage.listIndexFuncValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.#storage.byIndex(indexName, indexedValue);
  }

  getIndexers(): Indexers<T> {
    return this.#storage.getIndexers();
  }

  addIndexers(newIndexers: Indexers<T>): void {
    this.#storage.addIndexers(newIndexers);
  }
}

/** A plain store keyed by `keyFunc` (cache.NewStore); default key: `namespace/name`, tombstone-aware. */
export function newStore<T>(keyFunc: KeyFunc<T> = deletionHandlingMetaNamespaceKeyFunc): Store<T> {
  return new Cache<T>(keyFunc);
}

/** A store with indexes (cache.NewIndexer). */
export function newIndexer<T>(keyFunc: KeyFunc<T>, indexers: Indexers<T>): Indexer<T> {
  return new Cache<T>(keyFunc, indexers);
}
