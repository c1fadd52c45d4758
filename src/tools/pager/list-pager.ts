/**
 * Paginated listing (tools/pager.ListPager): fetches a collection in pages of `pageSize` using
 * `limit`/`continue`, and — as client-go — falls back to one full list when a continue token expired
 * (the first page's resourceVersion was compacted away while paging).
 */
import { isResourceExpired } from '../../apimachinery/errors.ts';
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
   * Lists everything, concatenating the pages into one list (pager.List). When a continue token
   * expired after the first page and `fullListIfExpired` is on, the pages read so far are dropped and
   * the result is one unpaginated list.
   */
  async list(options: ListOptions = {}): Promise<
    KubeList<T> & {
      /** Whether the server split the list into pages. */
      paginated: boolean;
    }
  > {
    const opts = this.#firstPageOptions(options);
    let first: KubeList<T> | undefined;
    const items: T[] = [];
    let paginated = false;
    for (;;) {
      let page: KubeList<T>;
      try {
        page = await this.pageFn(opts);
      } catch (err) {
        // Only after the first page: then the failure is the continue token's expiry.
        if (!isResourceExpired(err) || !this.fullListIfExpired || (opts.continue ?? '') === '') throw err;
        const full: ListOptions = { ...opts, limit: 0 };
        delete full.continue;
        const whole = await this.pageFn(full);
        return { ...whole, items: whole.items, paginated };
      }
      first ??= page;
      items.push(...page.items);
      const token = page.metadata?.continue ?? '';
      if (token === '') {
        // The combined list reports the last page's resourceVersion, which covers every item.
        const metadata = { ...first.metadata };
        delete metadata.continue;
        if (page.metadata?.resourceVersion !== undefined) metadata.resourceVersion = page.metadata.resourceVersion;
        return { ...first, metadata, items, paginated };
      }
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
