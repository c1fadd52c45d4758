/**
 * The shape of the API metadata the typed clientset and informer factory are built from: for each
 * group-version, its resources with kind, scope, verbs and subresources. The built-in table is
 * generated from Kubernetes' OpenAPI documents (./typed/resources.ts); custom resources describe
 * themselves with {@link defineCustomResource}. Plain data: the object types exist only at the type
 * level (in the generated interfaces and in {@link CustomResource}'s phantom fields).
 */
import type { ApplyConfiguration } from './resource-client.ts';

/** A subresource of a resource and the methods the typed client offers for it. */
export interface SubresourceSpec {
  /** URL segment: `status`, `scale`, `eviction`, `log` ... */
  readonly name: string;
  /** The name inside method names: `getScale`, `updateEphemeralContainers`, `createEviction`. */
  readonly method: string;
  /** Group, version and kind of the objects the subresource reads or writes. */
  readonly group: string;
  /** The version. */
  readonly version: string;
  /** The kind. */
  readonly kind: string;
  /** Verbs as discovery lists them (`get`, `update`, `patch`, `create`, `connect`). */
  readonly verbs: readonly string[];
  /** The subresource reads and writes the parent's own kind (status, resize, approval ...). */
  readonly sameKind: boolean;
  /** The subresource answers plain text (pods/log). */
  readonly text?: boolean;
}

/** One resource of a group-version. */
export interface ResourceSpec {
  /** Accessor name in the clientset: `pods`, `configMaps`, `csiDrivers`. */
  readonly accessor: string;
  /** Plural resource name (URL segment). */
  readonly resource: string;
  /** The kind of its objects. */
  readonly kind: string;
  /** Whether its objects live in namespaces. */
  readonly namespaced: boolean;
  /** Verbs as discovery lists them. */
  readonly verbs: readonly string[];
  /** Its subresources. */
  readonly subresources: readonly SubresourceSpec[];
}

/** One group-version and its resources. */
export interface GroupVersionSpec {
  /** Accessor name in the clientset: `coreV1`, `appsV1`, `resourceV1beta2`. */
  readonly accessor: string;
  /** API group, '' for the core group. */
  readonly group: string;
  /** API version. */
  readonly version: string;
  /** Its resources. */
  readonly resources: readonly ResourceSpec[];
}

/** A flattened row of the table, for code that iterates over every resource. */
export interface ResourceTableRow {
  /** Group accessor name, e.g. `appsV1`. */
  groupAccessor: string;
  /** Resource accessor name, e.g. `replicaSets`. */
  resourceAccessor: string;
  /** API group, '' for the core group. */
  group: string;
  /** API version. */
  version: string;
  /** Plural resource name. */
  resource: string;
  /** Kind of its objects. */
  kind: string;
  /** Whether its objects live in namespaces. */
  namespaced: boolean;
  /** Verbs as discovery lists them. */
  verbs: readonly string[];
  /** Subresource names (status, scale, log ...). */
  subresources: readonly string[];
}

/** Flattens group-version specs into rows, in table order. */
export function rowsOf(groupVersions: readonly GroupVersionSpec[]): ResourceTableRow[] {
  const rows: ResourceTableRow[] = [];
  for (const gv of groupVersions) {
    for (const r of gv.resources) {
      rows.push({
        groupAccessor: gv.accessor,
        resourceAccessor: r.accessor,
        group: gv.group,
        version: gv.version,
        resource: r.resource,
        kind: r.kind,
        namespaced: r.namespaced,
        verbs: r.verbs,
        subresources: r.subresources.map((s) => s.name),
      });
    }
  }
  return rows;
}

/**
 * A custom resource as the typed clientset and informer factory know it: where it is served and,
 * at the type level, its object type `T` and apply configuration `A`. `kubeloom generate crd`
 * emits one per CRD version; {@link defineCustomResource} declares one by hand.
 */
export interface CustomResource<T = unknown, A = ApplyConfiguration<T>> {
  /** API group. */
  readonly group: string;
  /** API version. */
  readonly version: string;
  /** Plural resource name. */
  readonly resource: string;
  /** Kind of its objects. */
  readonly kind: string;
  /** Whether its objects live in namespaces. */
  readonly namespaced: boolean;
  /** Subresources the CRD enables (`status`, `scale`). */
  readonly subresources: readonly string[];
  /** Phantom field carrying the object type; never set. */
  readonly __object?: T;
  /** Phantom field carrying the apply configuration type; never set. */
  readonly __apply?: A;
}

/**
 * Declares a custom resource for {@link Clientset.forCustomResource} and
 * `SharedInformerFactory.forCustomResource`.
 *
 * @example
 * interface Widget { apiVersion?: 'example.com/v1'; kind?: 'Widget'; metadata?: ObjectMeta; spec?: { size?: string } }
 * const widgets = defineCustomResource<Widget>({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
 * const client = clientset.forCustomResource(widgets, 'default');
 */
export function defineCustomResource<T, A = ApplyConfiguration<T>>(spec: Omit<CustomResource<T, A>, 'subresources' | '__object' | '__apply'> & { subresources?: readonly string[] }): CustomResource<T, A> {
  return { group: spec.group, version: spec.version, resource: spec.resource, kind: spec.kind, namespaced: spec.namespaced, subresources: spec.subresources ?? [] };
}
