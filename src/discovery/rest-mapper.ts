/**
 * The RESTMapper (restmapper.DeferredDiscoveryRESTMapper over restmapper.NewDiscoveryRESTMapper,
 * k8s.io/client-go/restmapper/discovery.go): maps kinds to resources and back, with their scope, and
 * resolves the names people type (plural, singular, short names, kind, `resource.group`). It maps
 * every group version discovery could read: one that failed (an aggregated API that is down) is
 * left out without hiding the others. A name or kind it does not know is a miss: as client-go's
 * DeferredDiscoveryRESTMapper over the in-memory discovery cache (whose Fresh() is true once filled),
 * it does not re-run discovery, until reset(). With `refreshOnMiss` (controller-runtime's mapper,
 * which ObjectClient uses) it refreshes discovery once before giving up, so a CRD created after
 * start is found. When discovery cannot be
 * reached at all (a network error, not an error status), built-in kinds and resources are still
 * mapped from the table generated from Kubernetes' OpenAPI documents.
 */
import type { APIResource } from '../api/meta/v1.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { GroupVersionKind, GroupVersionResource } from '../apimachinery/object.ts';
import type { RequestOptions } from '../apimachinery/options.ts';
import { isSubresource, type DiscoveryClient } from './discovery-client.ts';
import { builtinRestMappings, isOffline } from './builtin-mappings.ts';

/** The resource a kind maps to, with its scope (meta.RESTMapping). */
export interface RestMapping {
  /** The resource (group, version, plural name). */
  resource: GroupVersionResource;
  /** The kind its objects have. */
  groupVersionKind: GroupVersionKind;
  /** Whether its objects live in namespaces. */
  namespaced: boolean;
  /** Discovery facts about the resource: singular name, short names, verbs, categories. */
  singularName: string;
  /** Short names, e.g. `po` for pods. */
  shortNames: readonly string[];
  /** Verbs the resource supports (`get`, `list`, `watch`, ...). */
  verbs: readonly string[];
  /** Categories it belongs to, e.g. `all`. */
  categories: readonly string[];
}

/** No resource is known for a kind (meta.NoKindMatchError); the message is upstream's. */
export class NoKindMatchError extends KubeloomError {
  /** The group asked for. */
  readonly group: string;
  /** The kind asked for. */
  readonly kind: string;
  /** The versions the search was restricted to, if any. */
  readonly searchedVersions: readonly string[];
  constructor(group: string, kind: string, versions: readonly string[]) {
    const searched = [...new Set(versions.map((v) => (group === '' ? v : `${group}/${v}`)))].sort();
    let message: string;
    if (searched.length === 0) message = `no matches for kind "${kind}" in group "${group}"`;
    else if (searched.length === 1) message = `no matches for kind "${kind}" in version "${searched[0]}"`;
    else message = `no matches for kind "${kind}" in versions [${searched.map((v) => JSON.stringify(v)).join(' ')}]`;
    super('ERR_KUBE_NO_KIND_MATCH', message);
    this.group = group;
    this.kind = kind;
    this.searchedVersions = versions;
  }
}

/**
 * No resource matches a name (meta.NoResourceMatchError). The message is kubectl's, since
 * {@link RestMapper.resourceFor} resolves names the way kubectl does.
 */
export class NoResourceMatchError extends KubeloomError {
  /** The name as asked for (`widgets`, `widgets.example.com`). */
  readonly resource: string;
  constructor(name: string) {
    super('ERR_KUBE_NO_RESOURCE_MATCH', `the server doesn't have a resource type "${name}"`);
    this.resource = name;
  }
}

interface Entry extends RestMapping {
  /** Order of preference: groups in discovery order (core first), preferred version first. */
  priority: number;
}

/** Options of {@link RestMapper}. */
export interface RestMapperOptions {
  /**
   * Mappings to use when discovery cannot be reached (a network error). Default: every built-in
   * resource of the generated table ({@link builtinRestMappings}); `[]` turns the fallback off.
   */
  offlineFallback?: readonly RestMapping[];
  /**
   * Re-run discovery once when a kind or name is not found (default false). client-go's
   * DeferredDiscoveryRESTMapper resets only when its discovery cache is not fresh, and the in-memory
   * cache is fresh once filled, so a miss stays a miss until {@link RestMapper.reset}; true gives
   * controller-runtime's behaviour, which finds a CRD created after the first lookup.
   */
  refreshOnMiss?: boolean;
}

/** Maps kinds ↔ resources using discovery. */
export class RestMapper {
  /** The discovery client the mappings come from. */
  readonly discovery: DiscoveryClient;
  #entries: Promise<Entry[]> | undefined;
  #builtAt = -1;
  readonly #fallback: readonly RestMapping[] | undefined;
  readonly #refreshOnMiss: boolean;
  #fallbackEntries: Entry[] | undefined;

  constructor(discovery: DiscoveryClient, options: RestMapperOptions = {}) {
    this.discovery = discovery;
    this.#fallback = options.offlineFallback;
    this.#refreshOnMiss = options.refreshOnMiss === true;
  }

  #offlineEntries(): Entry[] {
    return (this.#fallbackEntries ??= (this.#fallback ?? builtinRestMappings()).map((m, priority) => ({ ...m, priority })));
  }

  /** Forgets the mapping and discovery's cache (restmapper.DeferredDiscoveryRESTMapper.Reset). */
  reset(): void {
    this.discovery.invalidate();
    this.#entries = undefined;
  }

  /**
   * The mapping table (GetAPIGroupResources + NewDiscoveryRESTMapper): every group version whose
   * resource list discovery could read, keyed by the discovery group and version; failed group
   * versions are simply absent.
   */
  async #load(options?: RequestOptions): Promise<Entry[]> {
    if (this.#entries !== undefined && this.#builtAt === this.discovery.generation) return this.#entries;
    this.#builtAt = this.discovery.generation;
    const building = (async () => {
      const { groups, resources } = await this.discovery.serverGroupsAndResources(options);
      const byGroupVersion = new Map(resources.map((l) => [l.groupVersion, l]));
      const entries: Entry[] = [];
      let priority = 0;
      for (const g of groups) {
        const preferred = g.preferredVersion?.version;
        const versions = [...g.versions].sort((a, b) => (a.version === preferred ? -1 : b.version === preferred ? 1 : 0));
        for (const v of versions) {
          const list = byGroupVersion.get(v.groupVersion);
          if (list === undefined) continue;
          for (const r of list.resources) {
            if (isSubresource(r)) continue;
            entries.push(toEntry(g.name, v.version, r, priority));
          }
          priority++;
        }
      }
      return entries;
    })();
    this.#entries = building;
    building.catch(() => {
      if (this.#entries === building) this.#entries = undefined;
    });
    return building;
  }

  /** Runs `find` on the mapping; on a miss, with `refreshOnMiss`, refreshes discovery once and tries again. */
  async #withRefresh<R>(find: (entries: Entry[]) => R | undefined, miss: () => Error, options?: RequestOptions): Promise<R> {
    try {
      const first = find(await this.#load(options));
      if (first !== undefined) return first;
      if (!this.#refreshOnMiss) throw miss();
      this.reset();
      const second = find(await this.#load(options));
      if (second !== undefined) return second;
    } catch (err) {
      if (!isOffline(err) || options?.signal?.aborted === true) throw err;
      const offline = find(this.#offlineEntries());
      if (offline !== undefined) return offline;
      throw err;
    }
    throw miss();
  }

  /**
   * The mapping for a group and kind, in `versions` (first that matches) or the preferred version
   * (meta.RESTMapper.RESTMapping).
   */
  async restMapping(groupKind: { group: string; kind: string }, versions: readonly string[] = [], options?: RequestOptions): Promise<RestMapping> {
    return this.#withRefresh(
      (entries) => {
        // A kind is known as written and lower-cased (NewDiscoveryRESTMapper adds both).
        const matching = entries.filter((e) => e.groupVersionKind.group === groupKind.group && (e.groupVersionKind.kind === groupKind.kind || e.groupVersionKind.kind.toLowerCase() === groupKind.kind));
        for (const v of versions) {
          const hit = matching.find((e) => e.groupVersionKind.version === v);
          if (hit !== undefined) return strip(hit);
        }
        if (versions.length > 0) return undefined;
        return matching.length === 0 ? undefined : strip(matching.reduce((a, b) => (b.priority < a.priority ? b : a)));
      },
      () => new NoKindMatchError(groupKind.group, groupKind.kind, versions),
      options,
    );
  }

  /** The mapping for an `apiVersion` and `kind` as found on an object. */
  async mappingForApiVersionKind(apiVersion: string, kind: string, options?: RequestOptions): Promise<RestMapping> {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    return this.restMapping({ group, kind }, [version], options);
  }

  /** The kind served by a resource (meta.RESTMapper.KindFor); group and version may be '' (any). */
  async kindFor(resource: Partial<GroupVersionResource> & { resource: string }, options?: RequestOptions): Promise<GroupVersionKind> {
    return (await this.resourceFor(resource, options)).groupVersionKind;
  }

  /**
   * Resolves a resource the way kubectl does: `name` may be a plural, singular, short name or kind
   * (case-insensitive), optionally qualified as `name.group` or `name.version.group`; group and
   * version narrow the search. The preferred match comes first: core group, then discovery order.
   */
  async resourceFor(query: Partial<GroupVersionResource> & { resource: string }, options?: RequestOptions): Promise<RestMapping> {
    return this.#withRefresh(
      (entries) => {
        const hits = matchResource(entries, query);
        return hits.length === 0 ? undefined : strip(hits.reduce((a, b) => (b.priority < a.priority ? b : a)));
      },
      () => new NoResourceMatchError(query.group ? `${query.resource}.${query.group}` : query.resource),
      options,
    );
  }

  /** Every mapping known, in preference order (after at most one discovery read). */
  async allMappings(options?: RequestOptions): Promise<RestMapping[]> {
    return [...(await this.#load(options))].sort((a, b) => a.priority - b.priority).map(strip);
  }
}

/** A resource under the discovery group and version it was listed in (not its own group/version fields). */
function toEntry(group: string, version: string, r: APIResource, priority: number): Entry {
  return {
    resource: { group, version, resource: r.name },
    groupVersionKind: { group, version, kind: r.kind },
    namespaced: r.namespaced,
    singularName: r.singularName !== '' ? r.singularName : r.kind.toLowerCase(),
    shortNames: r.shortNames ?? [],
    verbs: r.verbs,
    categories: r.categories ?? [],
    priority,
  };
}

function strip(e: Entry): RestMapping {
  const { priority: _priority, ...mapping } = e;
  return mapping;
}

function matchResource(entries: Entry[], query: Partial<GroupVersionResource> & { resource: string }): Entry[] {
  const name = query.resource.toLowerCase();
  const candidates: Array<{ name: string; group?: string; version?: string }> = [{ name, ...(query.group !== undefined ? { group: query.group } : {}), ...(query.version !== undefined ? { version: query.version } : {}) }];
  if (query.group === undefined && name.includes('.')) {
    // kubectl's "resource.group" and "resource.version.group" forms.
    const [first, ...rest] = name.split('.');
    candidates.push({ name: first!, group: rest.join('.') });
    if (rest.length >= 2) candidates.push({ name: first!, version: rest[0]!, group: rest.slice(1).join('.') });
  }
  const named = (e: Entry, name: string): boolean => e.resource.resource === name || e.singularName === name || e.shortNames.includes(name) || e.groupVersionKind.kind.toLowerCase() === name;
  for (const c of candidates) {
    const versionMatches = (e: Entry): boolean => c.version === undefined || c.version === '' || e.resource.version === c.version;
    const hits = entries.filter((e) => (c.group === undefined || e.resource.group === c.group) && versionMatches(e) && named(e, c.name));
    if (hits.length > 0) return hits;
    // Without a version, a group may be given by its prefix: `storageclasses.storage` finds
    // storage.k8s.io (DefaultRESTMapper.ResourcesFor).
    if (c.group !== undefined && c.group !== '' && (c.version === undefined || c.version === '')) {
      const prefixed = entries.filter((e) => e.resource.group.startsWith(c.group!) && named(e, c.name));
      if (prefixed.length > 0) return prefixed;
    }
  }
  return [];
}
