/**
 * The discovery client (discovery.DiscoveryClient wrapped in client-go's memory cache): server version,
 * API groups and the resources of each group/version, read from the legacy discovery documents
 * (/api, /apis, /api/v1, /apis/<group>/<version>) and cached until {@link DiscoveryClient.invalidate}.
 */
import type { APIResource, APIResourceList } from '../api/meta/v1.ts';
import type { APIGroup, APIGroupList, APIVersions, VersionInfo as Info } from './types.ts';
import { isNotFound, isForbidden } from '../apimachinery/errors.ts';
import type { RequestOptions } from '../apimachinery/options.ts';
import type { RestClient } from '../rest/client.ts';
import type { RestRequest } from '../rest/request.ts';

export type { APIResource, APIResourceList } from '../api/meta/v1.ts';
export type { APIGroup, APIGroupList, APIVersions, GroupVersionForDiscovery, ServerAddressByClientCIDR, VersionInfo } from './types.ts';

function get(path: string): RestRequest {
  return { verb: 'GET', path, query: [], headers: { accept: 'application/json' } };
}

/** The path of a group/version's resource list. */
function groupVersionPath(groupVersion: string): string {
  return groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
}

/** Discovery results, cached per client. Safe to share; concurrent callers share one fetch. */
export class DiscoveryClient {
  /** The client discovery requests go through. */
  readonly rest: RestClient;
  #groups: Promise<APIGroup[]> | undefined;
  readonly #resources = new Map<string, Promise<APIResourceList | undefined>>();
  #generation = 0;

  constructor(rest: RestClient) {
    this.rest = rest;
  }

  /** Incremented by every {@link DiscoveryClient.invalidate}: callers can tell whether data was refreshed. */
  get generation(): number {
    return this.#generation;
  }

  /** Drops everything cached (memcache.Invalidate); the next call re-reads discovery. */
  invalidate(): void {
    this.#groups = undefined;
    this.#resources.clear();
    this.#generation++;
  }

  /** The server's version (GET /version; not cached). */
  async serverVersion(options?: RequestOptions): Promise<Info> {
    return this.rest.json<Info>(get('/version'), options);
  }

  /**
   * The API groups, the legacy core group first (as `{ name: '', versions: [v1] }`), each with its
   * versions, preferred version first.
   */
  async serverGroups(options?: RequestOptions): Promise<APIGroup[]> {
    const cached = this.#groups;
    if (cached !== undefined) return cached;
    const fetching = (async () => {
      const [core, named] = await Promise.all([this.rest.json<APIVersions>(get('/api'), options), this.rest.json<APIGroupList>(get('/apis'), options)]);
      const coreGroup: APIGroup = {
        name: '',
        versions: core.versions.map((v) => ({ groupVersion: v, version: v })),
        ...(core.versions[0] !== undefined ? { preferredVersion: { groupVersion: core.versions[0], version: core.versions[0] } } : {}),
      };
      return [coreGroup, ...(named.groups ?? [])];
    })();
    this.#groups = fetching;
    fetching.catch(() => {
      if (this.#groups === fetching) this.#groups = undefined;
    });
    return fetching;
  }

  /**
   * The resources of one group/version (`v1`, `apps/v1`), subresources included (`pods/status`).
   * Undefined when the server does not serve that group/version.
   */
  async serverResourcesForGroupVersion(groupVersion: string, options?: RequestOptions): Promise<APIResourceList | undefined> {
    const cached = this.#resources.get(groupVersion);
    if (cached !== undefined) return cached;
    const fetching = this.rest.json<APIResourceList>(get(groupVersionPath(groupVersion)), options).catch((err: unknown) => {
      if (isNotFound(err) || isForbidden(err)) return undefined;
      throw err;
    });
    this.#resources.set(groupVersion, fetching);
    fetching.catch(() => {
      if (this.#resources.get(groupVersion) === fetching) this.#resources.delete(groupVersion);
    });
    return fetching;
  }

  /** Every served group with the resource lists of all its versions. */
  async serverGroupsAndResources(options?: RequestOptions): Promise<{
    /** Every served group. */
    groups: APIGroup[];
    /** The resource list of every served group version (those that failed with 404 or 403 left out). */
    resources: APIResourceList[];
  }> {
    const groups = await this.serverGroups(options);
    const lists = await Promise.all(groups.flatMap((g) => g.versions.map((v) => this.serverResourcesForGroupVersion(v.groupVersion, options))));
    return { groups, resources: lists.filter((l): l is APIResourceList => l !== undefined) };
  }

  /** The resources of every group's preferred version (discovery.ServerPreferredResources). */
  async serverPreferredResources(options?: RequestOptions): Promise<APIResourceList[]> {
    const groups = await this.serverGroups(options);
    const lists = await Promise.all(groups.map((g) => this.serverResourcesForGroupVersion((g.preferredVersion ?? g.versions[0])?.groupVersion ?? '', options)));
    return lists.filter((l): l is APIResourceList => l !== undefined);
  }
}

/** True for a subresource entry (`pods/status`) of an APIResourceList. */
export function isSubresource(r: APIResource): boolean {
  return r.name.includes('/');
}
