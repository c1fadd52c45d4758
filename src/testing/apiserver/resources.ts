/**
 * The resource registry of the embedded API server: which group/version/resource triples are served,
 * with the facts discovery publishes about each (kind, scope, verbs, short names, subresources).
 *
 * Built-in resources come from one table; custom resources are added and removed as
 * CustomResourceDefinitions are written. Every resource is backed by the same generic storage.
 */
import type { CustomResourceSchema } from './registry/apiextensions/custom-resource-schema.ts';

/** The verbs of a fully writable resource, in the order kube-apiserver lists them. */
export const allVerbs: readonly string[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** One served group/version/resource. */
export interface ApiResource {
  /** API group, '' for the core group. */
  readonly group: string;
  /** API version of this entry. */
  readonly version: string;
  /** Plural resource name (URL segment). */
  readonly resource: string;
  /** Singular resource name. */
  readonly singularName: string;
  readonly kind: string;
  /** The kind of the list (`<Kind>List`). */
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  /** Whether the resource has a /status subresource (PUT/PATCH there change only `.status`). */
  readonly hasStatus: boolean;
  /** Whether the resource has a /scale subresource (autoscaling/v1 Scale over `.spec.replicas`). */
  readonly hasScale: boolean;
  /** Whether the main resource ignores `.status` on writes and bumps generation on other changes. */
  readonly tracksGeneration: boolean;
  /** True for resources defined by a CustomResourceDefinition (strategic merge patch is refused). */
  readonly custom: boolean;
  /** Additional printer columns declared by a CRD (name, type, jsonPath, priority). */
  readonly printerColumns: readonly PrinterColumn[];
  /** Extra field selectors a CRD declares (`selectableFields`). */
  readonly selectableFields: readonly string[];
  /** The structural schema of a custom resource version (pruning, defaulting, validation, CEL). */
  readonly schema?: CustomResourceSchema;
  /** The scale subresource paths a CRD declares. */
  readonly scale?: { readonly specReplicasPath: string; readonly statusReplicasPath: string; readonly labelSelectorPath?: string };
}

/** A column of the server-side table for a custom resource. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
  readonly format?: string;
}

/** The `apiVersion` string of a group and version. */
export function apiVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** The storage identity of a resource: all versions of a group/resource share one store. */
export function storageKey(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

interface BuiltinSpec {
  g: string;
  v: string;
  r: string;
  kind: string;
  ns: boolean;
  short?: string[];
  cat?: string[];
  status?: boolean;
  verbs?: string[];
  generation?: boolean;
  scale?: boolean;
}

// The built-in table, as kube-apiserver v1.32 publishes these resources in discovery.
const builtins: readonly BuiltinSpec[] = [
  { g: '', v: 'v1', r: 'namespaces', kind: 'Namespace', ns: false, short: ['ns'], status: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  // Pods carry no metadata.generation before PodObservedGenerationTracking (v1.33+); this server is v1.32.
  { g: '', v: 'v1', r: 'pods', kind: 'Pod', ns: true, short: ['po'], cat: ['all'], status: true },
  { g: '', v: 'v1', r: 'services', kind: 'Service', ns: true, short: ['svc'], cat: ['all'], status: true },
  { g: '', v: 'v1', r: 'configmaps', kind: 'ConfigMap', ns: true, short: ['cm'] },
  { g: '', v: 'v1', r: 'secrets', kind: 'Secret', ns: true },
  { g: '', v: 'v1', r: 'serviceaccounts', kind: 'ServiceAccount', ns: true, short: ['sa'] },
  { g: '', v: 'v1', r: 'nodes', kind: 'Node', ns: false, short: ['no'], status: true },
  { g: '', v: 'v1', r: 'events', kind: 'Event', ns: true, short: ['ev'] },
  { g: '', v: 'v1', r: 'endpoints', kind: 'Endpoints', ns: true, short: ['ep'] },
  { g: '', v: 'v1', r: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', ns: true, short: ['pvc'], status: true },
  { g: 'apps', v: 'v1', r: 'deployments', scale: true, kind: 'Deployment', ns: true, short: ['deploy'], cat: ['all'], status: true, generation: true },
  { g: 'apps', v: 'v1', r: 'replicasets', scale: true, kind: 'ReplicaSet', ns: true, short: ['rs'], cat: ['all'], status: true, generation: true },
  { g: 'apps', v: 'v1', r: 'statefulsets', scale: true, kind: 'StatefulSet', ns: true, short: ['sts'], cat: ['all'], status: true, generation: true },
  { g: 'apps', v: 'v1', r: 'daemonsets', kind: 'DaemonSet', ns: true, short: ['ds'], cat: ['all'], status: true, generation: true },
  { g: 'batch', v: 'v1', r: 'jobs', kind: 'Job', ns: true, cat: ['all'], status: true, generation: true },
  { g: 'coordination.k8s.io', v: 'v1', r: 'leases', kind: 'Lease', ns: true },
  { g: 'events.k8s.io', v: 'v1', r: 'events', kind: 'Event', ns: true, short: ['ev'] },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'roles', kind: 'Role', ns: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'rolebindings', kind: 'RoleBinding', ns: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'clusterroles', kind: 'ClusterRole', ns: false },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'clusterrolebindings', kind: 'ClusterRoleBinding', ns: false },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', ns: false, cat: ['api-extensions'] },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', ns: false, cat: ['api-extensions'] },
  // Reviews and token reviews are created, answered and never stored.
  { g: 'authentication.k8s.io', v: 'v1', r: 'tokenreviews', kind: 'TokenReview', ns: false, verbs: ['create'] },
  { g: 'authorization.k8s.io', v: 'v1', r: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', ns: true, verbs: ['create'] },
  { g: 'authorization.k8s.io', v: 'v1', r: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', ns: false, verbs: ['create'] },
  { g: 'authorization.k8s.io', v: 'v1', r: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', ns: false, verbs: ['create'] },
  { g: 'authorization.k8s.io', v: 'v1', r: 'subjectaccessreviews', kind: 'SubjectAccessReview', ns: false, verbs: ['create'] },
  { g: 'apiextensions.k8s.io', v: 'v1', r: 'customresourcedefinitions', kind: 'CustomResourceDefinition', ns: false, short: ['crd', 'crds'], status: true, generation: true },
];

function builtinResource(s: BuiltinSpec): ApiResource {
  return {
    group: s.g,
    version: s.v,
    resource: s.r,
    singularName: s.kind.toLowerCase(),
    kind: s.kind,
    listKind: `${s.kind}List`,
    namespaced: s.ns,
    shortNames: s.short ?? [],
    categories: s.cat ?? [],
    verbs: s.verbs ?? allVerbs,
    hasStatus: s.status ?? false,
    hasScale: s.scale ?? false,
    tracksGeneration: s.generation ?? false,
    custom: false,
    printerColumns: [],
    selectableFields: [],
  };
}

/** A group and the versions it serves, preferred version first. */
export interface ServedGroup {
  readonly name: string;
  readonly versions: readonly string[];
}

/**
 * The set of served resources. Lookups are by group, version and plural name; discovery reads the
 * groups and per-version resource lists.
 */
export class ResourceRegistry {
  // "group/version" -> resource name -> entry; insertion order is discovery order.
  readonly #byGroupVersion = new Map<string, Map<string, ApiResource>>();
  // CRD name -> the entries it added.
  readonly #crds = new Map<string, ApiResource[]>();

  constructor() {
    for (const spec of builtins) this.#add(builtinResource(spec));
  }

  #add(r: ApiResource): void {
    const gv = apiVersionString(r.group, r.version);
    let resources = this.#byGroupVersion.get(gv);
    if (resources === undefined) {
      resources = new Map();
      this.#byGroupVersion.set(gv, resources);
    }
    resources.set(r.resource, r);
  }

  /** The entry for group/version/resource, if served. */
  lookup(group: string, version: string, resource: string): ApiResource | undefined {
    return this.#byGroupVersion.get(apiVersionString(group, version))?.get(resource);
  }

  /** Whether the group/version is served at all. */
  hasGroupVersion(group: string, version: string): boolean {
    return this.#byGroupVersion.has(apiVersionString(group, version));
  }

  /** The resources of one group/version, in discovery order. */
  resources(group: string, version: string): ApiResource[] {
    return [...(this.#byGroupVersion.get(apiVersionString(group, version))?.values() ?? [])];
  }

  /** Every entry of every group/version. */
  all(): ApiResource[] {
    const out: ApiResource[] = [];
    for (const m of this.#byGroupVersion.values()) out.push(...m.values());
    return out;
  }

  /** The named (non-core) groups with their versions, preferred first, in registration order. */
  groups(): ServedGroup[] {
    const groups = new Map<string, string[]>();
    for (const m of this.#byGroupVersion.values()) {
      const first = m.values().next().value;
      if (first === undefined || first.group === '') continue;
      const versions = groups.get(first.group) ?? [];
      if (!versions.includes(first.version)) versions.push(first.version);
      groups.set(first.group, versions);
    }
    return [...groups].map(([name, versions]) => ({ name, versions: sortVersions(versions) }));
  }

  /**
   * Serves (or re-serves, after an update) the resource a CRD defines: one entry per served version.
   * Replaces whatever the same CRD served before.
   */
  setCustomResource(crdName: string, entries: ApiResource[]): void {
    this.removeCustomResource(crdName);
    for (const e of entries) this.#add(e);
    this.#crds.set(crdName, entries);
  }

  /** Stops serving a CRD's resource. Returns the entries that were removed. */
  removeCustomResource(crdName: string): ApiResource[] {
    const entries = this.#crds.get(crdName) ?? [];
    for (const e of entries) {
      const gv = apiVersionString(e.group, e.version);
      const m = this.#byGroupVersion.get(gv);
      m?.delete(e.resource);
      if (m?.size === 0) this.#byGroupVersion.delete(gv);
    }
    this.#crds.delete(crdName);
    return entries;
  }

  /** Whether a resource name in a group is defined by some CRD (any version). */
  isCustom(group: string, resource: string): boolean {
    for (const entries of this.#crds.values()) if (entries.some((e) => e.group === group && e.resource === resource)) return true;
    return false;
  }
}

// Kubernetes version priority: GA > beta > alpha, higher numbers first; others sort last alphabetically.
const versionPattern = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Sorts versions as kube-apiserver's discovery does (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > others). */
export function sortVersions(versions: readonly string[]): string[] {
  const rank = (v: string): [number, number, number, string] => {
    const m = versionPattern.exec(v);
    if (m === null) return [0, 0, 0, v];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage === 3 ? 3 : stage, Number(m[1]), Number(m[3] ?? 0), v];
  };
  return [...versions].sort((a, b) => {
    const [sa, ma, na, ta] = rank(a);
    const [sb, mb, nb, tb] = rank(b);
    if (sa !== sb) return sb - sa;
    if (ma !== mb) return mb - ma;
    if (na !== nb) return nb - na;
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
}
