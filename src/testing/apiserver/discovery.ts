/**
 * Discovery documents (/version, /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>), shaped
 * as kube-apiserver's legacy discovery. Clients asking for aggregated discovery
 * (`as=APIGroupDiscoveryList`) get these plain documents, which makes them fall back to legacy discovery.
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
