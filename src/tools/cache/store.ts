/**
 * The generic object store (client-go tools/cache store.go): a {@link ThreadSafeStore} plus a key
 * function, so callers pass objects rather than keys.
 */
import { type DeletedFinalStateUnknown, type KeyFunc, deletionHandlingMetaNamespaceKeyFunc } from './key-functions.ts';
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

/** A {@link Store} and {@link Indexer} over a {@link ThreadSafeStore} (client-go's `cache` type). */
export class Cache<T> implements Indexer<T> {
  readonly #storage: ThreadSafeStore<T>;
  readonly #keyFunc: KeyFunc<T>;

  constructor(keyFunc: KeyFunc<T>, indexers: Indexers<T> = {}) {
    this.#keyFunc = keyFunc;
    this.#storage = new ThreadSafeMap<T>(indexers);
  }

  add(obj: T): void {
    this.#storage.add(this.#keyFunc(obj), obj);
  }

  update(obj: T): void {
    this.#storage.update(this.#keyFunc(obj), obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.#storage.delete(this.#keyFunc(obj));
  }

  list(): T[] {
    return this.#storage.list();
  }

  listKeys(): string[] {
    return this.#storage.listKeys();
  }

  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.#storage.get(this.#keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.#storage.get(key);
  }

  replace(list: readonly T[], resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(this.#keyFunc(obj), obj);
    this.#storage.replace(items, resourceVersion);
  }

  /** Like {@link Cache.replace} with keys already computed (saves a key computation per object). */
  replaceByKey(items: ReadonlyMap<string, T>, resourceVersion: string): void {
    this.#storage.replace(items, resourceVersion);
  }

  /** The key function of this cache. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return this.#keyFunc(obj);
  }

  resync(): void {}

  /** The resourceVersion of the last {@link Cache.replace}. */
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
