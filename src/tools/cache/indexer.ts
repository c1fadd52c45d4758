/**
 * Indexes over a store (client-go tools/cache index.go): named index functions that map an object
 * to zero or more index values, and the {@link Indexer} interface that queries them.
 */
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { KeyFunc } from './key-functions.ts';
import type { Store } from './store.ts';

/** Maps an object to its index values; it may return several (or none). Must be pure and fast. */
export type IndexFunc<T> = (obj: T) => readonly string[];

/**
 * A key function made of an index function whose values are unique per object
 * (cache.IndexFuncToKeyFuncAdapter, index.go): the object's one index value is its key. Throws when
 * the index function returns several values (`too many keys: [a b]`) or none (`unexpected empty
 * indexKeys`). Prefer proper key and index functions.
 */
export function indexFuncToKeyFuncAdapter<T>(indexFunc: IndexFunc<T>): KeyFunc<T> {
  return (obj) => {
    // As upstream, a tombstone goes to the index function too (which then usually throws).
    const keys = indexFunc(obj as T);
    if (keys.length > 1) throw new KubeloomError('ERR_CACHE_KEY', `too many keys: [${keys.join(' ')}]`);
    if (keys.length === 0) throw new KubeloomError('ERR_CACHE_KEY', 'unexpected empty indexKeys');
    return keys[0]!;
  };
}

/** Index functions by index name (cache.Indexers). */
export type Indexers<T> = Readonly<Record<string, IndexFunc<T>>>;

/** Thrown when querying an index that was never registered (message as upstream's). */
export class UnknownIndexError extends KubeloomError {
  /** The index that does not exist. */
  readonly indexName: string;
  constructor(indexName: string) {
    super('ERR_CACHE_UNKNOWN_INDEX', `Index with name ${indexName} does not exist`);
    this.indexName = indexName;
  }
}

/** Thrown by `addIndexers` when an index name is already registered. */
export class IndexConflictError extends KubeloomError {
  /** The indexes that already exist. */
  readonly indexNames: readonly string[];
  constructor(indexNames: readonly string[]) {
    super('ERR_CACHE_INDEX_CONFLICT', `indexer conflict: ${indexNames.join(', ')}`);
    this.indexNames = indexNames;
  }
}

/** Thrown when an index function fails for an object; the store is left unchanged. */
export class IndexFuncError extends KubeloomError {
  /** The index whose function failed. */
  readonly indexName: string;
  constructor(indexName: string, key: string, cause: unknown) {
    super('ERR_CACHE_INDEX_FUNC', `unable to calculate index ${indexName} for key ${JSON.stringify(key)}: ${String(cause)}`, { cause });
    this.indexName = indexName;
  }
}

/**
 * A {@link Store} that also maintains named indexes (cache.Indexer). `index`, `indexKeys` and
 * `byIndex` throw {@link UnknownIndexError} for an index name that was never registered;
 * `listIndexFuncValues` returns no values for it, as upstream's (which has no error result).
 */
export interface Indexer<T> extends Store<T> {
  /** Objects sharing at least one index value with `obj` under index `indexName`. */
  index(indexName: string, obj: T): T[];
  /** Keys of the objects whose index `indexName` contains `indexedValue`. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value index `indexName` currently holds ([] for an unknown index, as upstream). */
  listIndexFuncValues(indexName: string): string[];
  /** Objects whose index `indexName` contains `indexedValue`. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** The registered index functions. */
  getIndexers(): Indexers<T>;
  /**
   * Registers more index functions and indexes the objects already stored with them. Throws
   * {@link IndexConflictError} (registering nothing) if a name is taken.
   */
  addIndexers(newIndexers: Indexers<T>): void;
}
