/**
 * Paginated listing (tools/pager.ListPager): fetches a collection in pages of `pageSize` using
 * `limit`/`continue`, and — as client-go — falls back to one full list when a continue token expired
 * (the first page's resourceVersion was compacted away while paging). `list` shares its page loop
 * with the reflector's (tools/cache/list-pager.ts).
 */
import { listAllPages } from '../cache/list-pager.ts';
import type { KubeList } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';

/** client-go's default page size (pager.defaultPageSize). */
export const DefaultPageSize = 500;

/** Fetches one page (a resource client's `list`). */
export type ListPageFunc<T> = (options: ListOptions) => Promise<KubeList<T>>;

/** Options of {@link ListPager}. */
export interface ListPagerOptions {
  /** Items per page (default 500); 0 or less lists everything in one request. */
  pageSize?: number;
  /** On an expired continue token, list everything in one request instead of failing (default true). */
  fullListIfExpired?: boolean;
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

  constructor(pageFn: ListPageFunc<T>, options: ListPagerOptions = {}) {
    this.pageFn = pageFn;
    this.pageSize = options.pageSize ?? DefaultPageSize;
    this.fullListIfExpired = options.fullListIfExpired ?? true;
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
    const { list, paginated } = await listAllPages(this.pageFn, opts, this.pageSize > 0 ? this.pageSize : 0);
    return { ...list, paginated };
  }

  async #listWithoutFallback(opts: ListOptions): Promise<KubeList<T> & { paginated: boolean }> {
    let merged: KubeList<T> | undefined;
    let paginated = false;
    for (;;) {
      const page = await this.pageFn(opts);
      const token = page.metadata?.continue ?? '';
      if (token === '' && merged === undefined) return { ...page, paginated };
      merged ??= { apiVersion: page.apiVersion, kind: page.kind, metadata: { resourceVersion: page.metadata?.resourceVersion ?? '' }, items: [] };
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

  /** Calls `fn` for every item of every page (pager.EachListItem). */
  async eachListItem(options: ListOptions, fn: (item: T) => void | Promise<void>): Promise<void> {
    await this.eachPage(options, async (page) => {
      for (const item of page.items) await fn(item);
    });
  }
}
