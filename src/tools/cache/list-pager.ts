/**
 * A minimal paginated LIST helper with k8s.io/client-go/tools/pager's rules, used by the reflector.
 * (src/tools/pager is the public pager; this one stays inside tools/cache so the informer machinery
 * has no dependency on the REST layer.)
 */
import { isResourceExpired } from '../../apimachinery/errors.ts';
import type { KubeList } from '../../apimachinery/object.ts';
import type { ListOptions } from '../../apimachinery/options.ts';

/** pager.defaultPageSize. */
export const defaultPageSize = 500;

/** The result of {@link listAllPages}: the merged list and whether more than one page was needed. */
export interface PagedList<T> {
  list: KubeList<T>;
  paginated: boolean;
}

/**
 * Lists every page (ListPager.List): `limit` defaults to `pageSize` (0 = unpaginated); continue
 * requests drop resourceVersion and resourceVersionMatch; an Expired error on page 2 or later falls
 * back to one full, unpaginated list at the originally requested resourceVersion.
 */
export async function listAllPages<T>(
  pageFn: (options: ListOptions) => Promise<KubeList<T>>,
  options: ListOptions,
  pageSize: number = defaultPageSize,
): Promise<PagedList<T>> {
  const opts: ListOptions = { ...options };
  if (opts.limit === undefined || opts.limit === 0) {
    if (pageSize > 0) opts.limit = pageSize;
    else delete opts.limit;
  }
  const requestedRV = options.resourceVersion;
  const requestedMatch = options.resourceVersionMatch;
  let merged: KubeList<T> | undefined;
  let paginated = false;
  for (;;) {
    opts.signal?.throwIfAborted();
    let page: KubeList<T>;
    try {
      page = await pageFn(opts);
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
      return { list: await pageFn(full), paginated };
    }
    const cont = page.metadata?.continue ?? '';
    if (cont === '' && merged === undefined) return { list: page, paginated };
    if (merged === undefined) {
      merged = { apiVersion: page.apiVersion, kind: page.kind, metadata: { resourceVersion: page.metadata?.resourceVersion ?? '' }, items: [] };
    }
    const items = page.items ?? [];
    for (let i = 0; i < items.length; i++) merged.items.push(items[i]!);
    if (cont === '') return { list: merged, paginated };
    opts.continue = cont;
    // The server rejects resourceVersion together with continue.
    delete opts.resourceVersion;
    delete opts.resourceVersionMatch;
    paginated = true;
  }
}
