/**
 * A minimal paginated LIST helper with k8s.io/client-go/tools/pager's rules, used by the reflector.
 * (src/tools/pager is the public pager; this one stays inside tools/cache so the informer machinery
 * has no dependency on the REST layer.) Pages may be streamed: their items reach a sink in batches
 * as they are decoded.
 */
import type { ListMeta } from '../../api/meta/v1.ts';
import { isResourceExpired } from '../../apimachinery/errors.ts';
import type { ListOptions } from '../../apimachinery/options.ts';

/** pager.defaultPageSize. */
export const defaultPageSize = 500;

/** What a LIST response holds besides its items. */
export interface ListPageMeta {
  /** The list's `group/version`. */
  apiVersion?: string;
  /** The list's kind. */
  kind?: string;
  /** resourceVersion, continue token and remainingItemCount. */
  metadata?: ListMeta;
}

/** Keeps the first page's `shardInfo` (KEP-5866) on a combined list: every page had the same selector. */
export function withShardInfo(meta: ListMeta, first: ListMeta | undefined): ListMeta {
  const info = (first as { shardInfo?: unknown } | undefined)?.shardInfo;
  return info === undefined ? meta : ({ ...meta, shardInfo: info } as ListMeta);
}

/** One LIST request whose items go to `onItems` (in one or more batches); resolves with the rest of the list. */
export type ListPageStream<T> = (options: ListOptions, onItems: (items: T[]) => void) => Promise<ListPageMeta>;

/**
 * The result of {@link listAllPages}: what the combined list carries besides its items (a single
 * page's own members; for several pages the first page's type and resourceVersion) and whether more
 * than one page was needed.
 */
export interface PagedListResult {
  list: ListPageMeta;
  paginated: boolean;
}

/**
 * Lists every page (ListPager.List): `limit` defaults to `pageSize` (0 = unpaginated); continue
 * requests drop resourceVersion and resourceVersionMatch; an Expired error on page 2 or later falls
 * back to one full, unpaginated list at the originally requested resourceVersion. The items of every
 * page go to the sink `newSink()` returned; the fallback asks for a new sink, as the pages read so
 * far are to be dropped. Several pages make a list with the first page's resourceVersion, as upstream's.
 */
export async function listAllPages<T>(pageFn: ListPageStream<T>, options: ListOptions, pageSize: number, newSink: () => (items: T[]) => void): Promise<PagedListResult> {
  const opts: ListOptions = { ...options };
  if (opts.limit === undefined || opts.limit === 0) {
    if (pageSize > 0) opts.limit = pageSize;
    else delete opts.limit;
  }
  const requestedRV = options.resourceVersion;
  const requestedMatch = options.resourceVersionMatch;
  let sink = newSink();
  let merged: ListPageMeta | undefined;
  let paginated = false;
  for (;;) {
    opts.signal?.throwIfAborted();
    let page: ListPageMeta;
    try {
      page = await pageFn(opts, sink);
    } catch (err) {
      if (!isResourceExpired(err) || opts.continue === undefined || opts.continue === '') throw err;
      // The snapshot the first page pinned was compacted meanwhile: take one full list instead.
      const full: ListOptions = { ...opts };
      delete full.limit;
      delete full.continue;
      if (requestedRV === undefined) delete full.resourceVersion;
      else full.resourceVersion = requestedRV;
      if (requestedMatch === undefined) delete full.resourceVersionMatch;
      else full.resourceVersionMatch = requestedMatch;
      sink = newSink();
      return { list: await pageFn(full, sink), paginated };
    }
    const cont = page.metadata?.continue ?? '';
    if (cont === '' && merged === undefined) return { list: page, paginated };
    merged ??= { apiVersion: page.apiVersion, kind: page.kind, metadata: withShardInfo({ resourceVersion: page.metadata?.resourceVersion ?? '' }, page.metadata) };
    if (cont === '') return { list: merged, paginated };
    opts.continue = cont;
    // The server rejects resourceVersion together with continue.
    delete opts.resourceVersion;
    delete opts.resourceVersionMatch;
    paginated = true;
  }
}
