/**
 * The source of a reflector (client-go tools/cache listwatch.go): something that can list and watch
 * one kind of object, and adapters building one from a resource client.
 */
import type { KubeList } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';
import type { Watch } from '../../apimachinery/watch.ts';
import type { ListPageMeta } from './list-pager.ts';

/**
 * Lists and watches one collection (cache.ListerWatcher).
 *
 * - `list` rejects with a StatusError on API errors.
 * - `watch` resolves once the server accepted the watch; the iterable then yields events, an ERROR
 *   event carrying the server's Status as `{ type: 'ERROR', object: Status }`. Breaking out of the
 *   iteration or aborting `options.signal` ends the stream.
 */
export interface ListerWatcher<T> {
  /** Lists the collection (one page when `options.limit` is set). */
  list(options: ListOptions): Promise<KubeList<T>>;
  /** Opens a watch from `options.resourceVersion`. */
  watch(options: ListOptions): Promise<Watch<T>>;
  /**
   * Optional: one LIST request whose items go to `onItems` in batches as they are decoded, resolving
   * with the list's metadata (a resource client's `listStream`). With it the reflector prepares the
   * items (transform, freezing) while the rest of the response is still arriving.
   */
  listStream?(options: ListOptions, onItems: (items: T[]) => void): Promise<ListPageMeta>;
  /**
   * True when the source cannot serve watch-list streams (sendInitialEvents), so the reflector
   * goes straight to LIST (cache.IsWatchListSemanticsUnSupported). Optional; absent means supported.
   */
  isWatchListSemanticsUnsupported?(): boolean;
}

/** A resource client whose list and watch have the {@link ListerWatcher} signatures (e.g. `clientset.coreV1().pods('ns')`). */
export interface ListWatchClient<T> {
  /** Lists the collection. */
  list(options: ListOptions): Promise<KubeList<T>>;
  /** Opens a watch. */
  watch(options: ListOptions): Promise<Watch<T>>;
  /** Used by the reflector when present (see {@link ListerWatcher.listStream}). */
  listStream?(options: ListOptions, onItems: (items: T[]) => void): Promise<ListPageMeta>;
}

/** Functions making a {@link ListWatch}. */
export interface ListWatchFuncs<T> {
  /** Lists the collection. */
  list: (options: ListOptions) => Promise<KubeList<T>>;
  /** Opens a watch. */
  watch: (options: ListOptions) => Promise<Watch<T>>;
  /** Optional streaming LIST (see {@link ListerWatcher.listStream}). */
  listStream?: (options: ListOptions, onItems: (items: T[]) => void) => Promise<ListPageMeta>;
  /** Declare that the source cannot serve watch-list streams. */
  watchListSemanticsUnsupported?: boolean;
}

/** A {@link ListerWatcher} made of two functions (cache.ListWatch), and optionally a streaming LIST. */
export class ListWatch<T> implements ListerWatcher<T> {
  readonly #funcs: ListWatchFuncs<T>;
  readonly listStream: ListerWatcher<T>['listStream'];

  constructor(funcs: ListWatchFuncs<T>) {
    this.#funcs = funcs;
    const stream = funcs.listStream;
    if (stream !== undefined) this.listStream = (options, onItems) => stream(options, onItems);
  }

  /** Calls the `list` function. */
  list(options: ListOptions): Promise<KubeList<T>> {
    return this.#funcs.list(options);
  }

  /** Calls the `watch` function. */
  watch(options: ListOptions): Promise<Watch<T>> {
    return this.#funcs.watch(options);
  }

  isWatchListSemanticsUnsupported(): boolean {
    return this.#funcs.watchListSemanticsUnsupported === true;
  }
}

/** Selectors and tweaks applied to every list and watch (cache.NewFilteredListWatchFromClient). */
export interface ListWatchFromClientOptions {
  /** Only objects whose fields match. */
  fieldSelector?: string;
  /** Only objects whose labels match. */
  labelSelector?: string;
  /** Adjusts the options of every call, after the selectors are set. */
  tweakListOptions?: (options: ListOptions) => void;
}

/**
 * A {@link ListerWatcher} over a namespaced (or cluster-wide) resource client, applying selectors
 * and `tweakListOptions` to every call (cache.NewListWatchFromClient / NewFilteredListWatchFromClient).
 *
 * @example
 * const lw = newListWatchFromClient(clientset.coreV1().pods('default'), { labelSelector: 'app=web' });
 */
export function newListWatchFromClient<T>(client: ListWatchClient<T>, options: ListWatchFromClientOptions = {}): ListWatch<T> {
  const { fieldSelector, labelSelector, tweakListOptions } = options;
  const prepare = (o: ListOptions): ListOptions => {
    const out: ListOptions = { ...o };
    if (fieldSelector !== undefined) out.fieldSelector = fieldSelector;
    if (labelSelector !== undefined) out.labelSelector = labelSelector;
    tweakListOptions?.(out);
    return out;
  };
  const funcs: ListWatchFuncs<T> = {
    list: (o) => client.list(prepare(o)),
    watch: (o) => client.watch(prepare(o)),
  };
  if (client.listStream !== undefined) funcs.listStream = (o, onItems) => client.listStream!(prepare(o), onItems);
  return new ListWatch<T>(funcs);
}
