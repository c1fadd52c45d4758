/**
 * A fixed-size least-recently-used cache (github.com/golang/groupcache/lru, which tools/record uses):
 * `get` and `add` mark an entry as most recent; adding beyond the size evicts the least recent.
 */
export class LruCache<V> {
  readonly #maxEntries: number;
  // A Map iterates in insertion order: re-inserting on access keeps the least recent first.
  readonly #entries = new Map<string, V>();

  /** @param maxEntries capacity; 0 means unbounded, as upstream. */
  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** The value under `key` (marking it most recently used). */
  get(key: string): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Stores `value`, evicting the least recently used entry when full. */
  add(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#maxEntries > 0 && this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }
}
