/**
 * The keyed object map behind every store and indexer (client-go tools/cache thread_safe_store.go).
 * JavaScript runs one task at a time, so "thread-safe" here means: every method leaves items and
 * indexes consistent before it returns, and no method ever observes a half-applied update.
 */
import { IndexConflictError, IndexFuncError, UnknownIndexError, type IndexFunc, type Indexers } from './indexer.ts';
import { DeletedFinalStateUnknown } from './key-functions.ts';

/** A map of key → object with indexes (cache.ThreadSafeStore). Keys are computed by the caller. */
export interface ThreadSafeStore<T> {
  /** Inserts or replaces the object at `key`, updating every index; records the object's resourceVersion. */
  add(key: string, obj: T): void;
  /** Same as {@link ThreadSafeStore.add}. */
  update(key: string, obj: T): void;
  /**
   * Removes `key` (no-op when absent). With `obj` (the deleted object), records its resourceVersion
   * (DeleteWithObject).
   */
  delete(key: string, obj?: unknown): void;
  /** The object stored under `key`. */
  get(key: string): T | undefined;
  /** Every stored object. */
  list(): T[];
  /** Every key. */
  listKeys(): string[];
  /** Replaces the whole content and rebuilds the indexes; takes ownership of `items`. */
  replace(items: ReadonlyMap<string, T>, resourceVersion: string): void;
  /** Objects sharing an indexed value with `obj` in the named index. */
  index(indexName: string, obj: T): T[];
  /** Keys of the objects indexed under `indexedValue`. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value present in the named index. */
  listIndexFuncValues(indexName: string): string[];
  /** Objects indexed under `indexedValue`. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** The index functions by name. */
  getIndexers(): Indexers<T>;
  /** Adds indexes, indexing what is already stored. */
  addIndexers(newIndexers: Indexers<T>): void;
  /**
   * The resourceVersion the store is at: that of the last replace, bookmark, or object added,
   * updated or deleted (LastStoreSyncResourceVersion).
   */
  lastResourceVersion(): string;
  /** Records the resourceVersion of a watch bookmark. */
  bookmark(resourceVersion: string): void;
}

/**
 * The resourceVersion of an object, or undefined when it is not an object with metadata access (a
 * tombstone, a primitive): upstream's rvFromObject fails for those and records nothing.
 */
function resourceVersionOf(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null || obj instanceof DeletedFinalStateUnknown) return undefined;
  const meta = (obj as { metadata?: { resourceVersion?: unknown } }).metadata;
  const rv = typeof meta === 'object' && meta !== null ? meta.resourceVersion : undefined;
  return typeof rv === 'string' ? rv : '';
}

const none: readonly string[] = Object.freeze([]);

/**
 * The default {@link ThreadSafeStore}. Invariant: for every index, `indices[name][value]` holds key
 * `k` if and only if `items` has `k` and the index function returns `value` for `items[k]`; empty
 * value sets are removed, so memory does not grow with values that no longer occur.
 */
export class ThreadSafeMap<T> implements ThreadSafeStore<T> {
  #items = new Map<string, T>();
  #indexers: Record<string, IndexFunc<T>> = {};
  /** index name → index value → keys. */
  #indices = new Map<string, Map<string, Set<string>>>();
  #indexNames: string[] = [];
  #rv = '';

  constructor(indexers: Indexers<T> = {}) {
    for (const [name, fn] of Object.entries(indexers)) {
      this.#indexers[name] = fn;
      this.#indices.set(name, new Map());
      this.#indexNames.push(name);
    }
  }

  add(key: string, obj: T): void {
    this.update(key, obj);
  }

  update(key: string, obj: T): void {
    const old = this.#items.get(key);
    const rv = resourceVersionOf(obj);
    if (this.#indexNames.length === 0) {
      this.#items.set(key, obj);
      if (rv !== undefined) this.#rv = rv;
      return;
    }
    // Compute every new index value before mutating anything, so a throwing index function leaves
    // the store exactly as it was.
    const newValues = this.#computeValues(key, obj);
    const oldValues = old === undefined ? undefined : this.#computeValuesLenient(old);
    this.#items.set(key, obj);
    for (let i = 0; i < this.#indexNames.length; i++) {
      this.#updateIndex(this.#indexNames[i]!, key, oldValues === undefined ? none : oldValues[i], newValues[i]!);
    }
    if (rv !== undefined) this.#rv = rv;
  }

  delete(key: string, obj?: unknown): void {
    const rv = obj === undefined ? undefined : resourceVersionOf(obj);
    if (rv !== undefined) this.#rv = rv;
    const old = this.#items.get(key);
    if (old === undefined) return;
    if (this.#indexNames.length > 0) {
      const oldValues = this.#computeValuesLenient(old);
      for (let i = 0; i < this.#indexNames.length; i++) this.#updateIndex(this.#indexNames[i]!, key, oldValues[i], none);
    }
    this.#items.delete(key);
  }

  /** The object stored under `key`. */
  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** Every stored object. */
  list(): T[] {
    return Array.from(this.#items.values());
  }

  /** Every key. */
  listKeys(): string[] {
    return Array.from(this.#items.keys());
  }

  replace(items: ReadonlyMap<string, T>, resourceVersion: string): void {
    // Build the new indexes aside first: a throwing index function must not leave a half-built store.
    const indices = new Map<string, Map<string, Set<string>>>();
    for (const name of this.#indexNames) indices.set(name, new Map());
    // The store takes ownership of the map, as upstream takes ownership of the list.
    const next = items instanceof Map ? (items as Map<string, T>) : new Map(items);
    for (const [key, obj] of next) {
      for (const name of this.#indexNames) {
        const values = this.#callIndexFunc(name, key, obj);
        const index = indices.get(name)!;
        for (const v of values) addKey(index, v, key);
      }
    }
    this.#items = next;
    this.#indices = indices;
    this.#rv = resourceVersion;
  }

  /** Objects sharing an indexed value with `obj` in the named index. */
  index(indexName: string, obj: T): T[] {
    const fn = this.#indexers[indexName];
    if (fn === undefined) throw new UnknownIndexError(indexName);
    const index = this.#indices.get(indexName)!;
    const values = fn(obj);
    if (values.length === 1) return this.#itemsOf(index.get(values[0]!));
    const keys = new Set<string>();
    for (const v of values) {
      const set = index.get(v);
      if (set !== undefined) for (const k of set) keys.add(k);
    }
    return this.#itemsOf(keys);
  }

  /** Keys of the objects indexed under `indexedValue`. */
  indexKeys(indexName: string, indexedValue: string): string[] {
    const index = this.#indexOrThrow(indexName);
    const set = index.get(indexedValue);
    // Sorted, as upstream returns sets.List (deterministic order for callers and tests).
    return set === undefined ? [] : Array.from(set).sort();
  }

  /** Every value present in the named index. */
  listIndexFuncValues(indexName: string): string[] {
    const index = this.#indices.get(indexName);
    return index === undefined ? [] : Array.from(index.keys());
  }

  /** Objects indexed under `indexedValue`. */
  byIndex(indexName: string, indexedValue: string): T[] {
    return this.#itemsOf(this.#indexOrThrow(indexName).get(indexedValue));
  }

  /** The index functions by name. */
  getIndexers(): Indexers<T> {
    return { ...this.#indexers };
  }

  /** Adds indexes, indexing what is already stored. */
  addIndexers(newIndexers: Indexers<T>): void {
    const names = Object.keys(newIndexers);
    const conflicts = names.filter((n) => Object.hasOwn(this.#indexers, n));
    if (conflicts.length > 0) throw new IndexConflictError(conflicts);
    // Index the existing items first, so a throwing function registers nothing.
    const built = new Map<string, Map<string, Set<string>>>();
    for (const name of names) {
      const fn = newIndexers[name]!;
      const index = new Map<string, Set<string>>();
      for (const [key, obj] of this.#items) {
        let values: readonly string[];
        try {
          values = fn(obj);
        } catch (err) {
          throw new IndexFuncError(name, key, err);
        }
        for (const v of values) addKey(index, v, key);
      }
      built.set(name, index);
    }
    for (const name of names) {
      this.#indexers[name] = newIndexers[name]!;
      this.#indices.set(name, built.get(name)!);
      this.#indexNames.push(name);
    }
  }

  lastResourceVersion(): string {
    return this.#rv;
  }

  bookmark(resourceVersion: string): void {
    this.#rv = resourceVersion;
  }

  #indexOrThrow(indexName: string): Map<string, Set<string>> {
    const index = this.#indices.get(indexName);
    if (index === undefined) throw new UnknownIndexError(indexName);
    return index;
  }

  #itemsOf(keys: Iterable<string> | undefined): T[] {
    const out: T[] = [];
    if (keys === undefined) return out;
    for (const k of keys) {
      const item = this.#items.get(k);
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  #callIndexFunc(name: string, key: string, obj: T): readonly string[] {
    try {
      return this.#indexers[name]!(obj);
    } catch (err) {
      throw new IndexFuncError(name, key, err);
    }
  }

  #computeValues(key: string, obj: T): (readonly string[])[] {
    const out: (readonly string[])[] = new Array<readonly string[]>(this.#indexNames.length);
    for (let i = 0; i < this.#indexNames.length; i++) out[i] = this.#callIndexFunc(this.#indexNames[i]!, key, obj);
    return out;
  }

  /**
   * The stored object's values were computable when it went in; if the function now throws for it,
   * `undefined` makes {@link ThreadSafeMap.#updateIndex} scan the index instead.
   */
  #computeValuesLenient(obj: T): (readonly string[] | undefined)[] {
    const out: (readonly string[] | undefined)[] = new Array<readonly string[] | undefined>(this.#indexNames.length);
    for (let i = 0; i < this.#indexNames.length; i++) {
      try {
        out[i] = this.#indexers[this.#indexNames[i]!]!(obj);
      } catch {
        out[i] = undefined;
      }
    }
    return out;
  }

  /** Touches only the index values that changed between `oldValues` and `newValues`. */
  #updateIndex(name: string, key: string, oldValues: readonly string[] | undefined, newValues: readonly string[]): void {
    const index = this.#indices.get(name)!;
    if (oldValues === undefined) {
      for (const [v, set] of index) if (set.has(key) && !newValues.includes(v)) deleteKey(index, v, key);
      for (const v of newValues) addKey(index, v, key);
      return;
    }
    if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) return;
    for (const v of oldValues) {
      if (!newValues.includes(v)) deleteKey(index, v, key);
    }
    for (const v of newValues) {
      if (!oldValues.includes(v)) addKey(index, v, key);
    }
  }
}

function addKey(index: Map<string, Set<string>>, value: string, key: string): void {
  let set = index.get(value);
  if (set === undefined) {
    set = new Set();
    index.set(value, set);
  }
  set.add(key);
}

function deleteKey(index: Map<string, Set<string>>, value: string, key: string): void {
  const set = index.get(value);
  if (set === undefined) return;
  set.delete(key);
  // Drop empty sets so values that no longer occur do not leak memory.
  if (set.size === 0) index.delete(value);
}
