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
  // Upstream publishes a hash of the resource's schema; a stable hash of its identity serves the same purpose.
  e.storageVersionHash = storageVersionHash(`${r.group}/${r.version}/${r.kind}`);
  return e;
}

function storageVersionHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return Buffer.from(h.toString(16).padStart(8, '0')).toString('base64').slice(0, 11);
}

/** /api/v1 or /apis/<group>/<version>: the APIResourceList, subresources included. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): Obj | undefined {
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const resources: Obj[] = [];
  for (const r of registry.resources(group, version)) {
    resources.push(resourceEntry(r));
    if (r.hasStatus) resources.push({ name: `${r.resource}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] });
    if (r.hasScale) resources.push({ name: `${r.resource}/scale`, singularName: '', namespaced: r.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    if (group === '' && r.resource === 'pods') resources.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] });
    if (group === '' && r.resource === 'serviceaccounts') resources.push({ name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}
