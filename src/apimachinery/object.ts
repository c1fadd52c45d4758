/**
 * The minimal object shape kubeloom's generic machinery works on: anything with ObjectMeta.
 * Concrete resource types are generated from the OpenAPI documents (kubeloom/api).
 */
import type { ObjectMeta, ListMeta } from '../api/meta/v1.ts';

/** Any Kubernetes object: apiVersion, kind and metadata (all optional, as on the wire). */
export interface KubeObject {
  /** `group/version`, or `v1` for the core group. */
  apiVersion?: string;
  /** The object's kind, e.g. `Pod`. */
  kind?: string;
  /** Name, namespace, labels, resourceVersion and the rest of the object's metadata. */
  metadata?: ObjectMeta;
}

/** Any Kubernetes list: `items` plus ListMeta (resourceVersion, continue, remainingItemCount). */
export interface KubeList<T> {
  /** `group/version` of the list. */
  apiVersion?: string;
  /** The list kind, e.g. `PodList`. */
  kind?: string;
  /** The list's resourceVersion and continue token. */
  metadata?: ListMeta;
  /** The objects. */
  items: T[];
}

/** metav1.PartialObjectMetadata: an object reduced to its type and ObjectMeta. */
export interface PartialObjectMetadata {
  /** `meta.k8s.io/v1` (or v1beta1). */
  apiVersion?: string;
  /** `PartialObjectMetadata`. */
  kind?: string;
  /** The object's metadata; the only part sent. */
  metadata?: ObjectMeta;
}

/** An object of unknown type, as the dynamic client returns it. */
export interface Unstructured extends KubeObject {
  [field: string]: unknown;
}

/** Identifies an API group and version. */
export interface GroupVersion {
  /** API group, '' for the core group. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
}

/** Identifies a resource: group, version and plural resource name (schema.GroupVersionResource). */
export interface GroupVersionResource extends GroupVersion {
  /** Plural resource name, e.g. `deployments`. */
  resource: string;
}

/** Identifies a kind: group, version and kind (schema.GroupVersionKind). */
export interface GroupVersionKind extends GroupVersion {
  /** Kind, e.g. `Deployment`. */
  kind: string;
}

/** Formats a group/version as an apiVersion string ("v1" for the core group, "apps/v1" otherwise). */
export function apiVersionOf(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** Parses an apiVersion string ("v1", "apps/v1") into a group and version. */
export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
