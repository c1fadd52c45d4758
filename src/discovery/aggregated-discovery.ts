/**
 * Aggregated discovery (client-go discovery/aggregated_discovery.go, k8s.io/api/apidiscovery/v2):
 * since Kubernetes 1.30 the API server answers `/api` and `/apis` with every group, version and
 * resource in one `APIGroupDiscoveryList` when asked for it, so discovery takes two requests instead
 * of one per group version. This module holds the document's types and turns it into the legacy
 * shapes (APIGroup, APIResourceList) the rest of the client works with.
 */
import type { APIResource, APIResourceList } from '../api/meta/v1.ts';
import type { APIGroup, GroupVersionForDiscovery } from './types.ts';
import { KubeloomError } from '../apimachinery/errors.ts';

/** The Accept value for legacy discovery documents (discovery.AcceptV1). */
export const AcceptV1 = 'application/json';
/** The Accept value for aggregated discovery (discovery.AcceptV2). */
export const AcceptV2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
/** What the discovery client asks `/api` and `/apis` for: aggregated, else legacy (acceptDiscoveryFormats). */
export const acceptDiscoveryFormats = `${AcceptV2},${AcceptV1}`;

/** A kind named by group, version and kind (apidiscovery's responseKind). */
export interface DiscoveryGroupVersionKind {
  /** API group. */
  group?: string;
  /** API version. */
  version?: string;
  /** Kind. */
  kind?: string;
}

/** One subresource of a resource (apidiscovery.v2.APISubresourceDiscovery). */
export interface APISubresourceDiscovery {
  /** The subresource's name, e.g. `status`. */
  subresource: string;
  /** The kind it returns. */
  responseKind?: DiscoveryGroupVersionKind;
  /** The kinds it accepts. */
  acceptedTypes?: DiscoveryGroupVersionKind[];
  /** The verbs it supports. */
  verbs: string[];
}

/** One resource of a group version (apidiscovery.v2.APIResourceDiscovery). */
export interface APIResourceDiscovery {
  /** Plural resource name. */
  resource: string;
  /** The kind of its objects. */
  responseKind?: DiscoveryGroupVersionKind;
  /** `Namespaced` or `Cluster`. */
  scope: string;
  /** Singular name. */
  singularResource: string;
  /** The verbs it supports. */
  verbs: string[];
  /** Short names, e.g. `po`. */
  shortNames?: string[];
  /** Categories, e.g. `all`. */
  categories?: string[];
  /** Its subresources. */
  subresources?: APISubresourceDiscovery[];
}

/** One version of a group (apidiscovery.v2.APIVersionDiscovery). */
export interface APIVersionDiscovery {
  /** The version, e.g. `v1`. */
  version: string;
  /** Its resources. */
  resources?: APIResourceDiscovery[];
  /** `Current`, or `Stale` when the server could not refresh it (an aggregated API that is down). */
  freshness?: string;
}

/** One group, its versions in preference order (apidiscovery.v2.APIGroupDiscovery). */
export interface APIGroupDiscovery {
  /** The group's metadata: its name. */
  metadata?: {
    /** The group's name ('' for the core group). */
    name?: string;
  };
  /** Its versions, preferred first. */
  versions?: APIVersionDiscovery[];
}

/** The aggregated discovery document (apidiscovery.v2.APIGroupDiscoveryList). */
export interface APIGroupDiscoveryList {
  /** `APIGroupDiscoveryList`. */
  kind?: string;
  /** `apidiscovery.k8s.io/v2`. */
  apiVersion?: string;
  /** Every group. */
  items?: APIGroupDiscovery[];
}

/** A group version the server reported as stale (discovery.StaleGroupVersionError). */
export class StaleGroupVersionError extends KubeloomError {
  /** The group version that is stale. */
  readonly groupVersion: string;
  constructor(groupVersion: string) {
    super('ERR_DISCOVERY_STALE_GROUP_VERSION', `stale GroupVersion discovery: ${groupVersion}`);
    this.groupVersion = groupVersion;
  }
}

/**
 * Whether a Content-Type is JSON of the given group, version and kind, whatever the order of its
 * parameters (discovery.ContentTypeIsGVK); `application/json` alone is not.
 */
export function contentTypeIsGVK(contentType: string | undefined, gvk: { group: string; version: string; kind: string }): boolean {
  if (contentType === undefined) return false;
  const [base, ...rest] = contentType.split(';');
  if (base?.trim().toLowerCase() !== 'application/json') return false;
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  return params.get('g') === gvk.group && params.get('v') === gvk.version && params.get('as') === gvk.kind;
}

/** The kind of the aggregated discovery document. */
export const aggregatedDiscoveryGVK = {
  /** `apidiscovery.k8s.io`. */
  group: 'apidiscovery.k8s.io',
  /** `v2`. */
  version: 'v2',
  /** `APIGroupDiscoveryList`. */
  kind: 'APIGroupDiscoveryList',
} as const;

/** The legacy groups, resource lists and failed group versions of an aggregated document. */
export interface SplitDiscovery {
  /** The groups, as the legacy /apis list. */
  groups: APIGroup[];
  /** Keyed by group version (`v1`, `apps/v1`). */
  resources: Map<string, APIResourceList>;
  /** Stale group versions, keyed by group version. */
  failed: Map<string, Error>;
}

function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** A resource without a responseKind is left out, as upstream does (convertAPIResource's error). */
function convertResource(r: APIResourceDiscovery): APIResource | undefined {
  const kind = r.responseKind;
  if (kind === undefined || ((kind.group ?? '') === '' && (kind.version ?? '') === '' && (kind.kind ?? '') === '')) return undefined;
  const out: APIResource = { name: r.resource, singularName: r.singularResource ?? '', namespaced: r.scope === 'Namespaced', kind: kind.kind ?? '', verbs: r.verbs ?? [] };
  if ((kind.group ?? '') !== '') out.group = kind.group!;
  if ((kind.version ?? '') !== '') out.version = kind.version!;
  if (r.shortNames !== undefined) out.shortNames = r.shortNames;
  if (r.categories !== undefined) out.categories = r.categories;
  return out;
}

function convertSubresource(parent: APIResource, s: APISubresourceDiscovery): APIResource | undefined {
  const kind = s.responseKind;
  if (kind === undefined || ((kind.group ?? '') === '' && (kind.version ?? '') === '' && (kind.kind ?? '') === '')) return undefined;
  const out: APIResource = { name: `${parent.name}/${s.subresource}`, singularName: parent.singularName, namespaced: parent.namespaced, kind: kind.kind ?? '', verbs: s.verbs ?? [] };
  if ((kind.group ?? '') !== '') out.group = kind.group!;
  if ((kind.version ?? '') !== '') out.version = kind.version!;
  return out;
}

/**
 * Converts an aggregated document into legacy groups and resource lists (SplitGroupsAndResources):
 * a group's preferred version is its first fresh one; stale versions are left out of the group and
 * reported as failed; resources and subresources without a response kind are dropped.
 */
export function splitGroupsAndResources(list: APIGroupDiscoveryList): SplitDiscovery {
  const groups: APIGroup[] = [];
  const resources = new Map<string, APIResourceList>();
  const failed = new Map<string, Error>();
  for (const item of list.items ?? []) {
    const name = item.metadata?.name ?? '';
    const versions: GroupVersionForDiscovery[] = [];
    for (const v of item.versions ?? []) {
      const gv = groupVersionString(name, v.version);
      if (v.freshness === 'Stale') {
        failed.set(gv, new StaleGroupVersionError(gv));
        continue;
      }
      versions.push({ groupVersion: gv, version: v.version });
      const apiResources: APIResource[] = [];
      for (const r of v.resources ?? []) {
        const resource = convertResource(r);
        if (resource !== undefined) apiResources.push(resource);
        // Subresources are kept even when their parent lacked a kind, as upstream converts them from the partial parent.
        const parent = resource ?? { name: r.resource, singularName: r.singularResource ?? '', namespaced: r.scope === 'Namespaced', kind: '', verbs: [] };
        for (const s of r.subresources ?? []) {
          const sub = convertSubresource(parent, s);
          if (sub !== undefined) apiResources.push(sub);
        }
      }
      resources.set(gv, { groupVersion: gv, resources: apiResources });
    }
    const group: APIGroup = { name, versions };
    if (versions[0] !== undefined) group.preferredVersion = versions[0];
    groups.push(group);
  }
  return { groups, resources, failed };
}
