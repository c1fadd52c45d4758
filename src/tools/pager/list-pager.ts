/**
 * Paginated listing (tools/pager.ListPager): fetches a collection in pages of `pageSize` using
 * `limit`/`continue`, and — as client-go — falls back to one full list when a continue token expired
 * (the first page's resourceVersion was compacted away while paging). `list` shares its page loop
 * with the reflector's (tools/cache/list-pager.ts).
 *
 * Given a streaming page function (a resource client's `listStream`), {@link ListPager.eachListItem}
 * and {@link ListPager.items} hand every item over as soon as it is decoded, while the rest of its
 * page is still arriving; upstream's EachListItem gets whole pages.
 */
import type { ListMeta } from '../../api/meta/v1.ts';
import { listAllPages, withShardInfo } from '../cache/list-pager.ts';
import type { KubeList } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';
import { ItemIterator } from './item-iterator.ts';
import { KubeloomError } from '../../apimachinery/errors.ts';

/** client-go's default page size (pager.defaultPageSize). */
export const DefaultPageSize = 500;

/** Fetches one page (a resource client's `list`). */
export type ListPageFunc<T> = (options: ListOptions) => Promise<KubeList<T>>;

/**
 * Fetches one page, handing its items to `onItems` in batches as they are decoded (a resource
 * client's `listStream`); resolves with the page's metadata once it ended. `onItems` may return a
 * promise, which the function awaits before reading on.
 */
export type ListPageStreamFunc<T> = (
  options: ListOptions,
  onItems: (items: T[]) => void | PromiseLike<void>,
) => Promise<{
  /** The page's resourceVersion and continue token. */
  metadata?: ListMeta;
}>;

/** Options of {@link ListPager}. */
export interface ListPagerOptions<T> {
  /** Items per page (default 500); 0 or less lists everything in one request. */
  pageSize?: number;
  /** On an expired continue token, list everything in one request instead of failing (default true). */
  fullListIfExpired?: boolean;
  /** Streams a page; when set, eachListItem and items use it instead of `pageFn`. */
  streamPageFn?: ListPageStreamFunc<T>;
  /**
   * How many pages {@link ListPager.eachListItem} may fetch ahead while `fn` works through earlier
   * ones (pager.PageBufferSize, default {@link DefaultPageBufferSize}); 0 fetches the next page only
   * once `fn` went through the previous one. Negative values make eachListItem fail with a
   * {@link PageBufferSizeError}, as upstream. Only pages fetched whole (no `streamPageFn`) are
   * buffered: a streamed page already hands its items over while it arrives, reading paused while
   * `fn` runs.
   */
  pageBufferSize?: number;
}

/** client-go's default number of pages EachListItem buffers (pager.defaultPageBufferSize). */
export const DefaultPageBufferSize = 10;

/** A negative {@link ListPagerOptions.pageBufferSize} (pager.go eachListChunkBuffered's check). */
export class PageBufferSizeError extends KubeloomError {
  /** The refused value. */
  readonly pageBufferSize: number;
  constructor(pageBufferSize: number) {
    super('ERR_PAGER_BUFFER_SIZE', `ListPager.PageBufferSize must be >= 0, got ${pageBufferSize}`);
    this.pageBufferSize = pageBufferSize;
  }
}

/**
 * Lists a collection page by page.
 *
 * @example
 * const pager = new ListPager((o) => clientset.coreV1().pods('').list(o));
 * await pager.eachListItem({}, (pod) => { count++; });
 */
export class ListPager<T> {
  /** Fetches one page. */
  readonly pageFn: ListPageFunc<T>;
  /** Items per page (`limit`). */
  readonly pageSize: number;
  /** On 410 Expired mid-way, list everything in one request instead of failing. */
  readonly fullListIfExpired: boolean;
  /** Pages eachListItem may fetch ahead (see {@link ListPagerOptions.pageBufferSize}). */
  readonly pageBufferSize: number;
  readonly #streams: boolean;
  readonly #streamPageFn: ListPageStreamFunc<T>;

  constructor(pageFn: ListPageFunc<T>, options: ListPagerOptions<T> = {}) {
    this.pageFn = pageFn;
    this.pageSize = options.pageSize ?? DefaultPageSize;
    this.fullListIfExpired = options.fullListIfExpired ?? true;
    this.pageBufferSize = options.pageBufferSize ?? DefaultPageBufferSize;
    this.#streams = options.streamPageFn !== undefined;
    this.#streamPageFn =
      options.streamPageFn ??
      (async (o, onItems) => {
        const page = await pageFn(o);
        await onItems(page.items);
        return page;
      });
  }

  /**
   * Visits each page in order (pager.eachListChunk). Returns whether the result was paginated. `visit`
   * may return false to stop early. There is no full-list fallback here — pages already visited cannot
   * be taken back — so an expired continue token surfaces as the 410 Expired error, as upstream.
   */
  async eachPage(options: ListOptions, visit: (page: KubeList<T>) => boolean | void | Promise<boolean | void>): Promise<{
    /** Whether the server split the list into pages. */
    paginated: boolean;
  }> {
    const opts = this.#firstPageOptions(options);
    let paginated = false;
    for (;;) {
      const page = await this.pageFn(opts);
      const token = page.metadata?.continue ?? '';
      if (token !== '') paginated = true;
      if ((await visit(page)) === false || token === '') return { paginated };
      this.#advance(opts, token);
    }
  }

  /**
   * Lists everything, concatenating the pages into one list (pager.List). The combined list carries
   * the first page's resourceVersion: the continue token pins every later page to that snapshot.
   * When a continue token expired and `fullListIfExpired` is on, the pages read so far are dropped
   * and the result is one unpaginated list at the originally requested `resourceVersion` and
   * `resourceVersionMatch`.
   */
  async list(options: ListOptions = {}): Promise<
    KubeList<T> & {
      /** Whether the server split the list into pages. */
      paginated: boolean;
    }
  > {
    const opts = this.#firstPageOptions(options);
    if (!this.fullListIfExpired) return this.#listWithoutFallback(opts);
    let items: T[] = [];
    const { list, paginated } = await listAllPages<T>(
      async (o, onItems) => {
        const page = await this.pageFn(o);
        onItems(page.items ?? []);
        return page;
      },
      opts,
      this.pageSize > 0 ? this.pageSize : 0,
      () => {
        // A new sink drops the pages read so far (the full-list fallback).
        items = [];
        return (batch) => {
          for (let i = 0; i < batch.length; i++) items.push(batch[i]!);
        };
      },
    );
    return { ...list, items, paginated };
  }

  async #listWithoutFallback(opts: ListOptions): Promise<KubeList<T> & { paginated: boolean }> {
    let merged: KubeList<T> | undefined;
    let paginated = false;
    for (;;) {
      const page = await this.pageFn(opts);
      const token = page.metadata?.continue ?? '';
      if (token === '' && merged === undefined) return { ...page, paginated };
      merged ??= { apiVersion: page.apiVersion, kind: page.kind, metadata: withShardInfo({ resourceVersion: page.metadata?.resourceVersion ?? '' }, page.metadata), items: [] };
      merged.items.push(...(page.items ?? []));
      if (token === '') return { ...merged, paginated };
      paginated = true;
      this.#advance(opts, token);
    }
  }

  #firstPageOptions(options: ListOptions): ListOptions {
    const opts: ListOptions = { ...options };
    if ((opts.limit ?? 0) === 0 && this.pageSize > 0) opts.limit = this.pageSize;
    return opts;
  }

  #advance(opts: ListOptions, token: string): void {
    opts.continue = token;
    // The continue token pins the snapshot; sending a resourceVersion with it is an error upstream.
    delete opts.resourceVersion;
    delete opts.resourceVersionMatch;
  }

  /**
   * Calls `fn` for every item of every page (pager.EachListItem), in order; a promise it returns is
   * awaited before the next item. A throwing `fn` abandons the listing with its error. As with
   * {@link ListPager.eachPage}, an expired continue token surfaces as the 410 Expired error.
   */
  async eachListItem(options: ListOptions, fn: (item: T) => void | Promise<void>): Promise<void> {
    if (this.pageBufferSize < 0) throw new PageBufferSizeError(this.pageBufferSize);
    const visit = async (items: T[]): Promise<void> => {
      for (let i = 0; i < items.length; i++) {
        const pending = fn(items[i]!);
        if (pending !== undefined) await pending;
      }
    };
    if (this.#streams || this.pageBufferSize === 0) return this.#eachBatch(options, visit);
    await this.#eachBuffered(options, visit);
  }

  /**
   * eachListChunkBuffered: a fetching loop runs ahead of `visit` by at most `pageBufferSize` pages
   * (upstream's buffered channel); the first error of either side ends both and is raised.
   */
  async #eachBuffered(options: ListOptions, visit: (items: T[]) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const signal = options.signal === undefined ? controller.signal : AbortSignal.any([options.signal, controller.signal]);
    const pages: T[][] = [];
    let fetched = false;
    let failure: { error: unknown } | undefined;
    let wakeConsumer: (() => void) | undefined;
    let wakeProducer: (() => void) | undefined;
    const producer = (async () => {
      try {
        // The caller's signal reaches the page requests joined with the pager's own; without one, a
        // page in flight when `fn` failed is read to its end and dropped.
        const opts = this.#firstPageOptions(options.signal === undefined ? options : { ...options, signal });
        for (;;) {
          signal.throwIfAborted();
          const page = await this.pageFn(opts);
          while (pages.length >= this.pageBufferSize && !signal.aborted) await new Promise<void>((resolve) => (wakeProducer = resolve));
          signal.throwIfAborted();
          pages.push(page.items ?? []);
          wakeConsumer?.();
          const token = page.metadata?.continue ?? '';
          if (token === '') return;
          this.#advance(opts, token);
        }
      } catch (err) {
        if (!controller.signal.aborted) failure = { error: err };
      } finally {
        fetched = true;
        wakeConsumer?.();
      }
    })();
    try {
      for (;;) {
        while (pages.length === 0 && !fetched) await new Promise<void>((resolve) => (wakeConsumer = resolve));
        const items = pages.shift();
        if (items === undefined) {
          if (failure !== undefined) throw failure.error;
          return;
        }
        wakeProducer?.();
        await visit(items);
      }
    } finally {
      controller.abort();
      wakeProducer?.();
      await producer;
    }
  }

  /**
   * Every item of every page as an async iterable, each yielded as soon as it is decoded when the
   * pager streams pages. Reading pauses while the loop body runs; breaking out of the loop abandons
   * the request in flight. An expired continue token fails the iteration with the 410 Expired error.
   *
   * @example
   * for await (const pod of new ListPager(list, { streamPageFn: listStream }).items({ labelSelector: 'app=web' })) seen.add(pod.metadata?.name);
   */
  items(options: ListOptions = {}): AsyncIterable<T> {
    return {
      [Symbol.asyncIterator]: () =>
        new ItemIterator<T>(async (deliver, signal) => {
          await this.#eachBatch({ ...options, signal }, deliver);
        }, options.signal),
    };
  }

  /** Streams every page in order, handing each decoded batch of items to `onItems`. */
  async #eachBatch(options: ListOptions, onItems: (items: T[]) => void | PromiseLike<void>): Promise<void> {
    const opts = this.#firstPageOptions(options);
    for (;;) {
      opts.signal?.throwIfAborted();
      const page = await this.#streamPageFn(opts, onItems);
      const token = page.metadata?.continue ?? '';
      if (token === '') return;
      this.#advance(opts, token);
    }
  }
}
