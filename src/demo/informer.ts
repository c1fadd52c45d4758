/**
 * The small informer the demo runs on: a Reflector writing into an Indexer and notifying handlers as
 * it does (the shape of cache.SharedIndexInformer, restricted to what the PodSet controller uses).
 */
import type { KubeObject } from '../apimachinery/object.ts';
import type { ResourceEventHandler } from '../controller/event-handler.ts';
import { DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKeyFunc, metaNamespaceIndexFunc, NamespaceIndex } from '../tools/cache/key-functions.ts';
import type { ListerWatcher } from '../tools/cache/listwatch.ts';
import type { Indexer, Indexers } from '../tools/cache/indexer.ts';
import { Reflector } from '../tools/cache/reflector.ts';
import { newIndexer } from '../tools/cache/store.ts';
import type { ReflectorStore } from '../tools/cache/delta.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';

/** What the demo controller needs from an informer. */
export interface DemoInformer<T> {
  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandler<T>;
  removeEventHandler(handler: ResourceEventHandler<T>): void;
  getIndexer(): Indexer<T>;
  hasSynced(): boolean;
  run(options: { signal: AbortSignal }): Promise<void>;
}

/** Options of {@link ReflectedInformer}. */
export interface ReflectedInformerOptions<T> {
  /** Extra indexes; the namespace index is always present. */
  indexers?: Indexers<T>;
  /** Names the reflector in logs. */
  name?: string;
  clock?: Clock;
}

/**
 * An informer without the DeltaFIFO: the reflector's store operations update the indexer and notify
 * the handlers synchronously, in order. A handler that throws is logged and does not stop the others.
 * Objects handed out are the cache's own; handlers must not mutate them.
 */
export class ReflectedInformer<T extends KubeObject> implements DemoInformer<T>, ReflectorStore<T> {
  readonly #indexer: Indexer<T>;
  readonly #handlers = new Set<ResourceEventHandler<T>>();
  readonly #reflector: Reflector<T>;
  readonly #name: string;
  #synced = false;

  constructor(lw: ListerWatcher<T>, options: ReflectedInformerOptions<T> = {}) {
    this.#name = options.name ?? 'informer';
    this.#indexer = newIndexer<T>(deletionHandlingMetaNamespaceKeyFunc, { [NamespaceIndex]: metaNamespaceIndexFunc, ...options.indexers });
    this.#reflector = new Reflector<T>(lw, this, { name: this.#name, clock: options.clock ?? realClock });
  }

  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandler<T> {
    this.#handlers.add(handler);
    // A late handler first hears about everything already cached, as a shared informer does.
    for (const obj of this.#indexer.list()) this.#call(() => handler.onAdd(obj, true));
    return handler;
  }

  removeEventHandler(handler: ResourceEventHandler<T>): void {
    this.#handlers.delete(handler);
  }

  getIndexer(): Indexer<T> {
    return this.#indexer;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  run({ signal }: { signal: AbortSignal }): Promise<void> {
    return this.#reflector.run({ signal });
  }

  add(obj: T): void {
    this.update(obj);
  }

  update(obj: T): void {
    const old = this.#indexer.get(obj);
    this.#indexer.update(obj);
    if (old === undefined) this.#notify((h) => h.onAdd(obj, false));
    else this.#notify((h) => h.onUpdate(old, obj));
  }

  delete(obj: T): void {
    const old = this.#indexer.get(obj);
    this.#indexer.delete(obj);
    this.#notify((h) => h.onDelete(old ?? obj));
  }

  replace(list: readonly T[], _resourceVersion: string): void {
    const initial = !this.#synced;
    const keep = new Set<string>();
    for (const obj of list) keep.add(deletionHandlingMetaNamespaceKeyFunc(obj));
    // Objects gone while the watch was down: a tombstone with the last state the cache knew.
    for (const key of this.#indexer.listKeys()) {
      if (keep.has(key)) continue;
      const last = this.#indexer.getByKey(key);
      this.#indexer.delete(new DeletedFinalStateUnknown<T>(key, last));
      this.#notify((h) => h.onDelete(new DeletedFinalStateUnknown<T>(key, last)));
    }
    for (const obj of list) {
      const old = this.#indexer.get(obj);
      this.#indexer.update(obj);
      if (old === undefined) this.#notify((h) => h.onAdd(obj, initial));
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.#notify((h) => h.onUpdate(old, obj));
    }
    this.#synced = true;
  }

  resync(): void {}

  #notify(fn: (h: ResourceEventHandler<T>) => void): void {
    for (const h of this.#handlers) this.#call(() => fn(h));
  }

  #call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      console.error(`${this.#name}: event handler failed:`, err);
    }
  }
}
