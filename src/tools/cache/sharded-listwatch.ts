/**
 * A ListerWatcher restricted to a shard (client-go tools/cache sharded_listwatch.go,
 * NewShardedListWatch, KEP-5866): it puts the shard selector on every LIST and WATCH and, when the
 * server did not echo `metadata.shardInfo` (every server before Kubernetes 1.36, or with the
 * ShardedListAndWatch gate off), filters the objects itself by the same hash, so a sharded informer
 * works on any cluster.
 *
 * Beyond upstream: the selector may change while the informer runs (a shard ring moving ranges; the
 * informer then relists), and the shard key may be a client-only function (e.g. the uid of the
 * object's controller, so owned objects follow their owner). Such a key cannot be sent to the
 * server; the selection is then entirely client-side. Because a client-only key can change with
 * the object, a MODIFIED event that takes a cached object out of the shard becomes a DELETED event,
 * and one that brings an object in is passed on (the informer treats it as an add).
 */
import type { KubeList, KubeObject } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';
import type { Watch, WatchEvent, WatchEventBatchIterator } from '../../apimachinery/watch.ts';
import { isWatchEventBatchIterator } from '../../apimachinery/watch.ts';
import { fnv1a64Into, type Hash64 } from '../../apimachinery/sharding/hash.ts';
import { shardInfoOf, type ShardSelector } from '../../apimachinery/sharding/selector.ts';
import { metaNamespaceKeyFunc } from './key-functions.ts';
import type { ListPageMeta } from './list-pager.ts';
import type { ListerWatcher } from './listwatch.ts';

/** Options of a {@link ShardedListWatch}. */
export interface ShardedListWatchOptions<T> {
  /** The shard: read at every LIST and WATCH, so it may change (see {@link ShardedListWatch.setSelector}). */
  selector: ShardSelector;
  /**
   * A client-only shard key: the string hashed for an object instead of the selector's field (e.g.
   * the uid of its controller owner). When set, no selector is sent to the server and every object
   * is filtered here. Default: the selector's own field (uid or namespace), sent to the server.
   */
  shardKey?: (obj: T) => string;
}

const scratch: Hash64 = { hi: 0, lo: 0 };

/**
 * Wraps a {@link ListerWatcher} so that only one shard's objects come out of it.
 *
 * @example
 * const lw = new ShardedListWatch(newListWatchFromClient(pods), { selector: evenShardSelector(0, 3) });
 * const informer = new SharedIndexInformer(lw);
 */
export class ShardedListWatch<T> implements ListerWatcher<T> {
  readonly #lw: ListerWatcher<T>;
  readonly #shardKey: ((obj: T) => string) | undefined;
  #selector: ShardSelector;
  /** Whether the last LIST came back with shardInfo echoing the selector sent. */
  #serverSharded = false;
  /** Keys passed on (only tracked while filtering here): what the consumer's store may hold. */
  readonly #passed = new Set<string>();
  readonly listStream: ListerWatcher<T>['listStream'];

  constructor(lw: ListerWatcher<T>, options: ShardedListWatchOptions<T>) {
    this.#lw = lw;
    this.#selector = options.selector;
    this.#shardKey = options.shardKey;
    if (lw.listStream !== undefined) {
      this.listStream = async (o, onItems) => {
        const opts = this.#prepare(o);
        if (o.continue === undefined || o.continue === '') this.#passed.clear();
        // The list's metadata (and its shardInfo) arrives after the items: filter them all here.
        const meta: ListPageMeta = await lw.listStream!(opts, (items) => onItems(this.#keep(items)));
        this.#serverSharded = opts.shardSelector !== undefined && shardInfoOf(meta)?.selector === opts.shardSelector;
        return meta;
      };
    }
  }

  /** The current selector. */
  selector(): ShardSelector {
    return this.#selector;
  }

  /** Replaces the selector; the next LIST and WATCH use it (relist the consumer to apply it). */
  setSelector(selector: ShardSelector): void {
    this.#selector = selector;
  }

  /** True when the last LIST was filtered by the server (it echoed the selector in shardInfo). */
  serverSharded(): boolean {
    return this.#serverSharded;
  }

  async list(options: ListOptions): Promise<KubeList<T>> {
    const opts = this.#prepare(options);
    const list = await this.#lw.list(opts);
    if (options.continue === undefined || options.continue === '') this.#passed.clear();
    this.#serverSharded = opts.shardSelector !== undefined && shardInfoOf(list)?.selector === opts.shardSelector;
    if (this.#serverSharded && !this.#selector.isNone()) return list;
    return { ...list, items: this.#keep(list.items ?? []) };
  }

  async watch(options: ListOptions): Promise<Watch<T>> {
    const opts = this.#prepare(options);
    const w = await this.#lw.watch(opts);
    if (options.sendInitialEvents === true) this.#passed.clear();
    // A watch-list carries no list metadata: only a preceding LIST tells whether the server filters.
    if (this.#serverSharded && options.sendInitialEvents !== true && !this.#selector.isNone()) return w;
    return { [Symbol.asyncIterator]: () => this.#filtered(w[Symbol.asyncIterator]()) };
  }

  isWatchListSemanticsUnsupported(): boolean {
    return this.#lw.isWatchListSemanticsUnsupported?.() === true;
  }

  #prepare(options: ListOptions): ListOptions {
    const opts: ListOptions = { ...options };
    if (this.#shardKey === undefined) opts.shardSelector = this.#selector.toString();
    else delete opts.shardSelector;
    return opts;
  }

  #matches(obj: T): boolean {
    if (this.#shardKey === undefined) return this.#selector.matches(obj as KubeObject);
    return this.#selector.matchesHash(fnv1a64Into(this.#shardKey(obj), scratch));
  }

  #keep(items: T[]): T[] {
    const out: T[] = [];
    for (let i = 0; i < items.length; i++) {
      const obj = items[i]!;
      if (!this.#matches(obj)) continue;
      out.push(obj);
      this.#passed.add(metaNamespaceKeyFunc(obj));
    }
    return out;
  }

  /** Maps one event: undefined drops it. */
  #map(e: WatchEvent<T>): WatchEvent<T> | undefined {
    if (e.type === 'BOOKMARK' || e.type === 'ERROR') return e;
    const obj = e.object;
    const key = metaNamespaceKeyFunc(obj);
    const inShard = this.#matches(obj);
    switch (e.type) {
      case 'ADDED':
        if (!inShard) return undefined;
        this.#passed.add(key);
        return e;
      case 'MODIFIED':
        if (inShard) {
          this.#passed.add(key);
          return e;
        }
        // Left the shard: for the consumer's cache, it is gone.
        if (this.#passed.delete(key)) return { type: 'DELETED', object: obj };
        return undefined;
      case 'DELETED':
        if (this.#passed.delete(key) || inShard) return e;
        return undefined;
      default:
        return e;
    }
  }

  #filtered(source: AsyncIterator<WatchEvent<T>>): AsyncIterator<WatchEvent<T>> {
    const batches = isWatchEventBatchIterator(source) ? source : undefined;
    const it: WatchEventBatchIterator<T> = {
      next: async () => {
        for (;;) {
          const step = await source.next();
          if (step.done === true) return step;
          const mapped = this.#map(step.value);
          if (mapped !== undefined) return { done: false, value: mapped };
        }
      },
      nextBatch: async () => {
        for (;;) {
          let batch: ReadonlyArray<WatchEvent<T>> | undefined;
          if (batches !== undefined) batch = await batches.nextBatch();
          else {
            const step = await source.next();
            batch = step.done === true ? undefined : [step.value];
          }
          if (batch === undefined) return undefined;
          const out: WatchEvent<T>[] = [];
          for (const e of batch) {
            const mapped = this.#map(e);
            if (mapped !== undefined) out.push(mapped);
          }
          if (out.length > 0) return out;
        }
      },
      return: async (value?: unknown) => (source.return !== undefined ? source.return(value) : { done: true, value: undefined }),
    };
    return it;
  }
}
