/**
 * Discovery documents (/version, /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>), shaped
 * as kube-apiserver's legacy discovery, and the aggregated discovery kube-apiserver ≥ 1.30 serves at
 * /api and /apis to clients that ask for `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`
 * (k8s.io/apiserver pkg/endpoints/discovery/aggregated, built from the legacy lists as
 * endpoints.ConvertGroupVersionIntoToDiscovery does). v2beta1, removed upstream, is not served:
 * asking only for it gets the legacy document.
 */
import type { ResourceRegistry, ApiResource } from './resources.ts';

type Obj = Record<string, unknown>;

/** The version the embedded server reports at /version. */
export const serverVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-kubeloom',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

/** /api: the core group's versions. */
export function apiVersions(serverAddress: string): Obj {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupObject(name: string, versions: readonly string[]): Obj {
  const gvs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: gvs, preferredVersion: gvs[0] };
}

/** /apis: every named group. */
export function apiGroupList(registry: ResourceRegistry): Obj {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: registry.groups().map((g) => groupObject(g.name, g.versions)) };
}

/** /apis/<group>, or undefined when the group is not served. */
export function apiGroup(registry: ResourceRegistry, group: string): Obj | undefined {
  const g = registry.groups().find((x) => x.name === group);
  return g === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...groupObject(g.name, g.versions) };
}

function resourceEntry(r: ApiResource): Obj {
  const e: Obj = { name: r.resource, singularName: r.singularName, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs };
  if (r.shortNames.length > 0) e.shortNames = r.shortNames;
  if (r.categories.length > 0) e.categories = r.categories;
  if (r.storageVersionHash !== '') e.storageVersionHash = r.storageVersionHash;
  return e;
}

/** /api/v1 or /apis/<group>/<version>: the APIResourceList, subresources included. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): Obj | undefined {
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const resources: Obj[] = [];
  for (const r of registry.resources(group, version)) {
    resources.push(resourceEntry(r));
    for (const sub of r.subresources) {
      resources.push({
        name: `${r.resource}/${sub.name}`,
        singularName: '',
        namespaced: r.namespaced,
        ...(sub.group === undefined ? {} : { group: sub.group, version: sub.version }),
        kind: sub.kind,
        verbs: sub.verbs,
      });
    }
  }
  // The legacy /api/v1 document carries no apiVersion.
  return group === '' ? { kind: 'APIResourceList', groupVersion: version, resources } : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources };
}

/** The Content-Type of an aggregated discovery answer. */
export const aggregatedDiscoveryContentType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * Whether an Accept header asks for aggregated discovery v2 before anything the legacy document
 * satisfies (media ranges are taken in order, as the API server's negotiation does for equal quality).
 */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  if (accept === undefined || accept === '') return false;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((x) => x.trim());
    const p = new Map<string, string>();
    for (const kv of params) {
      const eq = kv.indexOf('=');
      if (eq > 0) p.set(kv.slice(0, eq).trim().toLowerCase(), kv.slice(eq + 1).trim());
    }
    const t = (type ?? '').toLowerCase();
    if (t !== 'application/json' && t !== 'application/*' && t !== '*/*') continue;
    if (!p.has('as')) return false;
    if (p.get('g') === 'apidiscovery.k8s.io' && p.get('v') === 'v2' && p.get('as') === 'APIGroupDiscoveryList') return true;
  }
  return false;
}

/** A legacy resource list in aggregated form (endpoints.ConvertGroupVersionIntoToDiscovery). */
function toResourceDiscovery(resources: readonly Obj[]): Obj[] {
  const out: Obj[] = [];
  const parents = new Map<string, Obj>();
  for (const r of resources) {
    const name = r.name as string;
    if (name.includes('/')) continue;
    const entry: Obj = {
      resource: name,
      responseKind: { group: (r.group as string | undefined) ?? '', version: (r.version as string | undefined) ?? '', kind: r.kind },
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName,
      verbs: r.verbs,
    };
    if (r.shortNames !== undefined) entry.shortNames = r.shortNames;
    if (r.categories !== undefined) entry.categories = r.categories;
    out.push(entry);
    parents.set(name, entry);
  }
  for (const r of resources) {
    const [parentName, sub] = (r.name as string).split('/', 2);
    if (sub === undefined) continue;
    const parent = parents.get(parentName!);
    if (parent === undefined) continue;
    const subresources = (parent.subresources as Obj[] | undefined) ?? [];
    subresources.push({ subresource: sub, responseKind: { group: (r.group as string | undefined) ?? '', version: (r.version as string | undefined) ?? '', kind: r.kind }, verbs: r.verbs });
    parent.subresources = subresources;
  }
  return out;
}

function groupDiscovery(registry: ResourceRegistry, name: string, versions: readonly string[]): Obj {
  return {
    metadata: { name, creationTimestamp: null },
    versions: versions.map((v) => ({ version: v, resources: toResourceDiscovery((apiResourceList(registry, name, v)?.resources as Obj[] | undefined) ?? []), freshness: 'Current' })),
  };
}

/** /api in aggregated form: the core group with its resources. */
export function aggregatedApi(registry: ResourceRegistry): Obj {
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: [groupDiscovery(registry, '', ['v1'])] };
}

/** /apis in aggregated form: every named group with the resources of each version, in /apis order. */
export function aggregatedApis(registry: ResourceRegistry): Obj {
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: registry.groups().map((g) => groupDiscovery(registry, g.name, g.versions)) };
}
