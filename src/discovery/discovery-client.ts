/**
 * The discovery client: client-go's discovery.DiscoveryClient behind its in-memory cache
 * (discovery/discovery_client.go, discovery/cached/memory/memcache.go).
 *
 * The first call reads `/api` and `/apis`, asking for aggregated discovery (every group, version and
 * resource in two answers, Kubernetes ≥ 1.30) and falling back to the legacy documents, then one
 * `/apis/<group>/<version>` per group version, in parallel. Everything is cached until
 * {@link DiscoveryClient.invalidate}, failures included: a group version that failed with a
 * transient error (5xx, 429, a refused or reset connection) is fetched again the next time it is
 * asked for. One broken group version — typically an aggregated API such as metrics.k8s.io whose
 * backend is down, answering 503 — does not hide the others: the calls that list everything return
 * the healthy groups together with a {@link GroupDiscoveryFailedError} naming the failed ones.
 *
 * Requests go through a client of their own over the same connections: discovery is bursty, so it
 * gets a burst of 300 (unless the config sets one) and a 32 s timeout (unless the config sets one),
 * as client-go's setDiscoveryDefaults.
 */
import type { APIResourceList } from '../api/meta/v1.ts';
import type { APIGroup, APIGroupList, APIVersions, VersionInfo as Info } from './types.ts';
import { KubeloomError, isNotFound, isTooManyRequests, statusOf } from '../apimachinery/errors.ts';
import type { RequestOptions } from '../apimachinery/options.ts';
import { RestClient } from '../rest/client.ts';
import type { RestConfig } from '../rest/config.ts';
import type { RestRequest } from '../rest/request.ts';
import { NetworkError, RequestTimeoutError, ResponseDecodeError } from '../rest/errors.ts';
import { AcceptV1, acceptDiscoveryFormats, aggregatedDiscoveryGVK, contentTypeIsGVK, splitGroupsAndResources, type APIGroupDiscoveryList } from './aggregated-discovery.ts';

export type { APIResource, APIResourceList } from '../api/meta/v1.ts';
export type { APIGroup, APIGroupList, APIVersions, GroupVersionForDiscovery, ServerAddressByClientCIDR, VersionInfo } from './types.ts';

/** Discovery's own burst when the config sets none (discovery.defaultBurst, kubernetes/kubernetes#86149). */
export const discoveryDefaultBurst = 300;
/** Discovery's request timeout when the config sets none (discovery.defaultTimeout). */
export const discoveryDefaultTimeoutMs = 32_000;
/** How often the calls listing everything try when group versions failed (discovery.defaultRetries). */
const defaultRetries = 2;

/**
 * Some group versions could not be discovered (discovery.ErrGroupDiscoveryFailed). The calls that
 * list everything return it next to what they did discover.
 */
export class GroupDiscoveryFailedError extends KubeloomError {
  /** The failed group versions (`metrics.k8s.io/v1beta1`, `v1`) and why each failed. */
  readonly groups: ReadonlyMap<string, Error>;
  constructor(groups: ReadonlyMap<string, Error>) {
    const described = [...groups].map(([gv, err]) => `${gv}: ${err.message}`).sort();
    super('ERR_DISCOVERY_GROUP_FAILED', `unable to retrieve the complete list of server APIs: ${described.join(', ')}`);
    this.groups = groups;
  }
}

/** True for a {@link GroupDiscoveryFailedError} (discovery.IsGroupDiscoveryFailedError). */
export function isGroupDiscoveryFailedError(err: unknown): err is GroupDiscoveryFailedError {
  return err instanceof GroupDiscoveryFailedError;
}

/** A group version served nothing: the cache treats it as failed (memcache's emptyResponseError). */
export class EmptyDiscoveryResponseError extends KubeloomError {
  constructor(groupVersion: string) {
    super('ERR_DISCOVERY_EMPTY_RESPONSE', `received empty response for: ${groupVersion}`);
  }
}

/** The cache has no entry for a group version the server does not list (memcache.ErrCacheNotFound). */
export class DiscoveryCacheNotFoundError extends KubeloomError {
  /** The group version that is not cached. */
  readonly groupVersion: string;
  constructor(groupVersion: string) {
    super('ERR_DISCOVERY_CACHE_NOT_FOUND', `not found: the server does not list group version "${groupVersion}"`);
    this.groupVersion = groupVersion;
  }
}

/** Every group with the resource lists that could be read (ServerGroupsAndResources). */
export interface GroupsAndResources {
  /** The groups, the legacy core group first. */
  groups: APIGroup[];
  /** Resource lists in group and version order. */
  resources: APIResourceList[];
  /** Set when some group versions failed; `resources` then lacks them. */
  error?: GroupDiscoveryFailedError;
}

/** Resource lists with the server's preferred version of each resource (ServerPreferredResources). */
export interface PreferredResources {
  /** The resource lists, one resource per preferred version. */
  resources: APIResourceList[];
  /** Set when some group versions failed; `resources` then lacks them. */
  error?: GroupDiscoveryFailedError;
}

/** Options of a {@link DiscoveryClient}. */
export interface DiscoveryClientOptions {
  /** Read only the legacy documents, never asking for aggregated discovery (UseLegacyDiscovery). */
  legacy?: boolean;
}

interface CacheEntry {
  list?: APIResourceList;
  error?: Error;
}

interface CacheState {
  groups: APIGroup[];
  /** Keyed by group version. */
  entries: Map<string, CacheEntry>;
  /** The resources came with the groups (aggregated discovery): nothing is fetched per group version. */
  aggregated: boolean;
}

function get(path: string, accept: string): RestRequest {
  return { verb: 'GET', path, query: [], headers: { accept } };
}

/** The path of a group version's resource list: only `v1` lives under the legacy prefix. */
function groupVersionPath(groupVersion: string): string {
  return groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`;
}

/**
 * Errors worth asking again for (memcache's isTransientError): 5xx, 429, a refused or reset
 * connection, a timeout or an abort.
 */
function isTransientError(err: unknown): boolean {
  if (err instanceof RequestTimeoutError) return true;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return true;
  if (err instanceof NetworkError && hasCode(err, ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'])) return true;
  const status = statusOf(err);
  if (status !== undefined && (status.code ?? 0) >= 500) return true;
  return isTooManyRequests(err);
}

function hasCode(err: unknown, codes: readonly string[]): boolean {
  for (let e: unknown = err, i = 0; e !== null && typeof e === 'object' && i < 6; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && codes.includes(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new KubeloomError('ERR_DISCOVERY', String(err));
}

/**
 * The client discovery requests go through: the given client's connections with a burst of 300 and a
 * 32 s timeout unless the config sets them (setDiscoveryDefaults). A limiter the config names, or one
 * made for an explicit positive qps, is shared, as a clientset shares it with its discovery client.
 */
function discoveryRestClient(rest: RestClient): RestClient {
  const c = rest.config;
  const qps = c.qps ?? 0;
  const rateLimiter = c.rateLimiter ?? (qps > 0 ? rest.rateLimiter : undefined);
  return rest.withConfig({
    ...(rateLimiter !== undefined ? { rateLimiter } : { qps, burst: c.burst || discoveryDefaultBurst }),
    timeoutMs: c.timeoutMs || discoveryDefaultTimeoutMs,
  });
}

/**
 * Server version, API groups and resources, cached per client. Safe to share: concurrent callers
 * share one fetch.
 *
 * @example
 * const discovery = new DiscoveryClient(rest);
 * const { groups, resources, error } = await discovery.serverGroupsAndResources();
 * if (error !== undefined) console.warn(error.message); // e.g. metrics.k8s.io/v1beta1 is down
 */
export class DiscoveryClient {
  /** The client discovery requests go through (its own limiter and timeout, shared connections). */
  readonly rest: RestClient;
  readonly #legacy: boolean;
  #state: Promise<CacheState> | undefined;
  #generation = 0;

  constructor(rest: RestClient | RestConfig, options: DiscoveryClientOptions = {}) {
    this.rest = discoveryRestClient(rest instanceof RestClient ? rest : new RestClient(rest));
    this.#legacy = options.legacy === true;
  }

  /** Incremented by every {@link DiscoveryClient.invalidate}: callers can tell whether data was refreshed. */
  get generation(): number {
    return this.#generation;
  }

  /** Drops everything cached (memcache.Invalidate); the next call reads discovery again. */
  invalidate(): void {
    this.#state = undefined;
    this.#generation++;
  }

  /** True while the cache holds a complete read of discovery (memcache.Fresh). */
  fresh(): boolean {
    return this.#state !== undefined;
  }

  /** The server's version (GET /version; not cached). */
  async serverVersion(options?: RequestOptions): Promise<Info> {
    return this.rest.json<Info>(get('/version', AcceptV1), options);
  }

  /**
   * The API groups, the legacy core group first (as `{ name: '', versions: [v1] }`), each with its
   * versions, preferred version first (ServerGroups).
   */
  async serverGroups(options?: RequestOptions): Promise<APIGroup[]> {
    return (await this.#load(options)).groups;
  }

  /**
   * The resources of one group version (`v1`, `apps/v1`), subresources included (`pods/status`).
   * Rejects with the server's error for a group version that failed (404, 403 and 503 included; only
   * a 404 for `v1` counts as an empty list), with {@link EmptyDiscoveryResponseError} for one that
   * serves nothing, and with {@link DiscoveryCacheNotFoundError} for one the server does not list.
   */
  async serverResourcesForGroupVersion(groupVersion: string, options?: RequestOptions): Promise<APIResourceList> {
    if (groupVersion === '') throw new KubeloomError('ERR_DISCOVERY', "groupVersion shouldn't be empty");
    const state = await this.#load(options);
    let entry = state.entries.get(groupVersion);
    if (entry === undefined) throw new DiscoveryCacheNotFoundError(groupVersion);
    if (entry.error !== undefined && isTransientError(entry.error)) {
      entry = await this.#fetchGroupVersion(groupVersion, options);
      state.entries.set(groupVersion, entry);
    }
    if (entry.error !== undefined) throw entry.error;
    return entry.list!;
  }

  /**
   * Every group with the resource lists of all its versions (ServerGroupsAndResources). Resolves as
   * long as the group list itself could be read; failed group versions are reported in `error`.
   * When some failed, the lookup runs a second time (transient failures are fetched again), as
   * client-go retries.
   */
  async serverGroupsAndResources(options?: RequestOptions): Promise<GroupsAndResources> {
    let result: GroupsAndResources | undefined;
    for (let attempt = 0; attempt < defaultRetries; attempt++) {
      result = await this.#groupsAndResources(options);
      if (result.error === undefined) return result;
      if (options?.signal?.aborted === true) break;
    }
    return result!;
  }

  /**
   * For every resource, its list entry in the group's preferred version, or in the first version
   * that serves it when the preferred one does not (ServerPreferredResources). One list per group
   * version that contributes, in discovery order; failed group versions are reported in `error`.
   */
  async serverPreferredResources(options?: RequestOptions): Promise<PreferredResources> {
    let result: PreferredResources | undefined;
    for (let attempt = 0; attempt < defaultRetries; attempt++) {
      result = await this.#preferredResources(options);
      if (result.error === undefined) return result;
      if (options?.signal?.aborted === true) break;
    }
    return result!;
  }

  /** {@link DiscoveryClient.serverPreferredResources} limited to namespaced resources (ServerPreferredNamespacedResources). */
  async serverPreferredNamespacedResources(options?: RequestOptions): Promise<PreferredResources> {
    const all = await this.serverPreferredResources(options);
    const resources = all.resources.map((l) => ({ ...l, resources: l.resources.filter((r) => r.namespaced) }));
    return all.error === undefined ? { resources } : { resources, error: all.error };
  }

  /** Resource lists and failures by group version, in group order (GroupsAndMaybeResources + fetchGroupVersionResources). */
  async #byGroupVersion(options?: RequestOptions): Promise<{ groups: APIGroup[]; lists: Map<string, APIResourceList>; failed: Map<string, Error> }> {
    const state = await this.#load(options);
    const lists = new Map<string, APIResourceList>();
    const failed = new Map<string, Error>();
    if (state.aggregated) {
      for (const [gv, entry] of state.entries) {
        if (entry.error !== undefined) failed.set(gv, entry.error);
        else lists.set(gv, entry.list!);
      }
      return { groups: state.groups, lists, failed };
    }
    const gvs = state.groups.flatMap((g) => g.versions.map((v) => v.groupVersion));
    await Promise.all(
      gvs.map(async (gv) => {
        try {
          lists.set(gv, await this.serverResourcesForGroupVersion(gv, options));
        } catch (err) {
          failed.set(gv, asError(err));
          // Even a failed group version may have left a list (an empty one).
          const list = state.entries.get(gv)?.list;
          if (list !== undefined) lists.set(gv, list);
        }
      }),
    );
    return { groups: state.groups, lists, failed };
  }

  async #groupsAndResources(options?: RequestOptions): Promise<GroupsAndResources> {
    const { groups, lists, failed } = await this.#byGroupVersion(options);
    const resources: APIResourceList[] = [];
    for (const g of groups) {
      for (const v of g.versions) {
        const list = lists.get(v.groupVersion);
        if (list !== undefined) resources.push(list);
      }
    }
    return failed.size === 0 ? { groups, resources } : { groups, resources, error: new GroupDiscoveryFailedError(failed) };
  }

  async #preferredResources(options?: RequestOptions): Promise<PreferredResources> {
    const { groups, lists, failed } = await this.#byGroupVersion(options);
    const result: APIResourceList[] = [];
    const listOf = new Map<string, APIResourceList>();
    // group/resource → the group version whose entry is kept.
    const chosen = new Map<string, { gv: string; resource: APIResourceList['resources'][number] }>();
    for (const g of groups) {
      for (const v of g.versions) {
        const list = lists.get(v.groupVersion);
        if (list === undefined) continue;
        const out: APIResourceList = { groupVersion: v.groupVersion, resources: [] };
        listOf.set(v.groupVersion, out);
        result.push(out);
        for (const r of list.resources) {
          if (r.name.includes('/')) continue;
          const key = `${g.name}/${r.name}`;
          // A later version replaces an earlier choice only when it is the preferred one.
          if (chosen.has(key) && v.version !== g.preferredVersion?.version) continue;
          chosen.set(key, { gv: v.groupVersion, resource: r });
        }
      }
    }
    for (const { gv, resource } of chosen.values()) listOf.get(gv)!.resources.push(resource);
    return failed.size === 0 ? { resources: result } : { resources: result, error: new GroupDiscoveryFailedError(failed) };
  }

  /** The cache, filled on first use (memcache.refreshLocked); a failed fill is not cached. */
  async #load(options?: RequestOptions): Promise<CacheState> {
    const cached = this.#state;
    if (cached !== undefined) return cached;
    const filling = this.#refresh(options);
    this.#state = filling;
    filling.catch(() => {
      if (this.#state === filling) this.#state = undefined;
    });
    return filling;
  }

  async #refresh(options?: RequestOptions): Promise<CacheState> {
    const [legacy, named] = await Promise.all([this.#downloadLegacy(options), this.#downloadApis(options)]);
    const groups = [...legacy.groups, ...named.groups];
    // Resources count as aggregated only when both documents were (GroupsAndMaybeResources).
    if (legacy.resources !== undefined && named.resources !== undefined) {
      const entries = new Map<string, CacheEntry>();
      for (const part of [legacy, named]) {
        for (const [gv, list] of part.resources!) entries.set(gv, { list });
        for (const [gv, error] of part.failed) entries.set(gv, { error });
      }
      return { groups, entries, aggregated: true };
    }
    const entries = new Map<string, CacheEntry>();
    const gvs = groups.flatMap((g) => g.versions.map((v) => v.groupVersion));
    await Promise.all(gvs.map(async (gv) => entries.set(gv, await this.#fetchGroupVersion(gv, options))));
    return { groups, entries, aggregated: false };
  }

  /** One group version's resource list as a cache entry (ServerResourcesForGroupVersion + memcache's empty check). */
  async #fetchGroupVersion(groupVersion: string, options?: RequestOptions): Promise<CacheEntry> {
    let list: APIResourceList;
    try {
      list = await this.rest.json<APIResourceList>(get(groupVersionPath(groupVersion), AcceptV1), options);
    } catch (err) {
      // Only core/v1's 404 is tolerated, as an empty list.
      if (groupVersion === 'v1' && isNotFound(err)) list = { groupVersion, resources: [] };
      else return { error: asError(err) };
    }
    list = { ...list, groupVersion: list.groupVersion || groupVersion, resources: list.resources ?? [] };
    if (list.resources.length === 0) return { list, error: new EmptyDiscoveryResponseError(groupVersion) };
    return { list };
  }

  /** `/api`: the core group, and its resources when the answer is aggregated. A 404 means no core group. */
  async #downloadLegacy(options?: RequestOptions): Promise<{ groups: APIGroup[]; resources: Map<string, APIResourceList> | undefined; failed: Map<string, Error> }> {
    let resp;
    try {
      resp = await this.rest.do(get('/api', this.#accept()), options);
    } catch (err) {
      // Aggregated API servers may serve no /api.
      if (isNotFound(err)) return { groups: [], resources: new Map(), failed: new Map() };
      throw err;
    }
    const body: unknown = this.#parse(resp.body, '/api');
    if (contentTypeIsGVK(firstHeader(resp.headers['content-type']), aggregatedDiscoveryGVK)) return splitGroupsAndResources(body as APIGroupDiscoveryList);
    const versions = (body as APIVersions).versions ?? [];
    const group: APIGroup = { name: '', versions: versions.map((v) => ({ groupVersion: v, version: v })) };
    if (versions[0] !== undefined) group.preferredVersion = { groupVersion: versions[0], version: versions[0] };
    return { groups: [group], resources: undefined, failed: new Map() };
  }

  /** `/apis`: the named groups, and their resources when the answer is aggregated. */
  async #downloadApis(options?: RequestOptions): Promise<{ groups: APIGroup[]; resources: Map<string, APIResourceList> | undefined; failed: Map<string, Error> }> {
    const resp = await this.rest.do(get('/apis', this.#accept()), options);
    const body: unknown = this.#parse(resp.body, '/apis');
    if (contentTypeIsGVK(firstHeader(resp.headers['content-type']), aggregatedDiscoveryGVK)) return splitGroupsAndResources(body as APIGroupDiscoveryList);
    return { groups: (body as APIGroupList).groups ?? [], resources: undefined, failed: new Map() };
  }

  #accept(): string {
    return this.#legacy ? AcceptV1 : acceptDiscoveryFormats;
  }

  #parse(body: Buffer, path: string): unknown {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
      return parsed;
    } catch (err) {
      throw new ResponseDecodeError(`GET ${path}: the discovery document is not a JSON object`, { cause: err });
    }
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** True for a subresource entry (`pods/status`) of an APIResourceList. */
export function isSubresource(r: { name: string }): boolean {
  return r.name.includes('/');
}
