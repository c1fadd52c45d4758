/**
 * The resource registry of the embedded API server: which group/version/resource triples are served,
 * with the facts discovery publishes about each (kind, scope, verbs, short names, subresources).
 *
 * Built-in resources come from one table of the group/versions a v1.32 kube-apiserver serves by default,
 * whose rows take kind, scope, verbs and subresources from the generated API model (api-model.ts); custom
 * resources are added and removed as CustomResourceDefinitions are written. Every resource is backed by
 * the same generic storage (upstream: `pkg/controlplane/instance.go` and each group's
 * `pkg/registry/<group>/rest/storage_<group>.go`).
 */
import { createHash } from 'node:crypto';
import type { CustomResourceSchema } from './registry/apiextensions/custom-resource-schema.ts';
import type { ConversionWebhookConfig } from './registry/apiextensions/webhook-converter.ts';
import { modelResource } from './api-model.ts';

/** The verbs of a fully writable resource, in the order kube-apiserver lists them. */
export const allVerbs: readonly string[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A subresource as discovery lists it (`pods/status`, `deployments/scale`, `serviceaccounts/token`). */
export interface Subresource {
  /** The part after the slash. */
  readonly name: string;
  /** The kind the subresource speaks. */
  readonly kind: string;
  readonly verbs: readonly string[];
  /** Group and version of that kind when they are not the parent's (Scale, TokenRequest). */
  readonly group?: string;
  readonly version?: string;
}

/** Where a custom resource keeps what its /scale subresource shows (CRD `subresources.scale`). */
export interface ScalePaths {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

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
  /** Subresources, in discovery order. */
  readonly subresources: readonly Subresource[];
  /** Whether the resource has a /status subresource (PUT/PATCH there change only `.status`). */
  readonly hasStatus: boolean;
  /** Whether the resource has a /scale subresource (autoscaling/v1 Scale over the replicas). */
  readonly hasScale: boolean;
  /** For custom resources with /scale: where replicas and the selector live. */
  readonly scale?: ScalePaths;
  /** Whether the main resource ignores `.status` on writes and bumps generation on other changes. */
  readonly tracksGeneration: boolean;
  /** True for resources defined by a CustomResourceDefinition (strategic merge patch is refused). */
  readonly custom: boolean;
  /** The Warning every request through this version gets: a CRD version marked `deprecated`. */
  readonly deprecationWarning?: string;
  /** Additional printer columns declared by a CRD (name, type, jsonPath, priority). */
  readonly printerColumns: readonly PrinterColumn[];
  /** Extra field selectors a CRD declares (`selectableFields`). */
  readonly selectableFields: readonly string[];
  /** Discovery's storageVersionHash ('' for resources that are not stored). */
  readonly storageVersionHash: string;
  /** The structural schema of a custom resource version (pruning, defaulting, validation, CEL). */
  readonly schema?: CustomResourceSchema;
  /**
   * The version objects are stored in when it is not this entry's, and its schema for custom resources
   * (objects are converted to it on writes and back on reads).
   */
  readonly storage?: {
    readonly version: string;
    readonly schema: CustomResourceSchema | undefined;
    /** The group of the storage version when it is another group's (events.k8s.io events are stored as core events). */
    readonly group?: string;
  };
  /** A custom resource's conversion webhook (CRD `spec.conversion.strategy: Webhook`); absent for strategy None. */
  readonly conversionWebhook?: ConversionWebhookConfig;
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
  const key = group === '' ? resource : `${resource}.${group}`;
  return cohabitating[key] ?? key;
}

/**
 * Resources kube-apiserver stores with another group's (StorageFactory.AddCohabitatingResources in
 * pkg/kubeapiserver/default_storage_factory_builder.go): events.k8s.io events are core events.
 */
const cohabitating: Readonly<Record<string, string>> = { 'events.events.k8s.io': 'events' };

/**
 * discovery's storageVersionHash: the first 8 bytes of the SHA-256 of `<group>/<version>/<kind>` of the
 * storage version, base64 (`apiserver/pkg/endpoints/discovery/storageversionhash.go`).
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * One row of the built-in table. Kind, scope, verbs and subresources default to the API model's
 * (src/codegen/model, generated from Kubernetes' OpenAPI documents), so a resource whose REST storage
 * upstream is the generic registry is added by one row naming it; the row says only what the model does
 * not carry (short names, categories, generation tracking) or where the served version differs from it.
 */
interface BuiltinSpec {
  g: string;
  v: string;
  r: string;
  /** The kind (default: the model's). */
  kind?: string;
  /** Namespaced (default: the model's). */
  ns?: boolean;
  short?: string[];
  cat?: string[];
  /** Verbs (default: the model's, in kube-apiserver's order). */
  verbs?: string[];
  generation?: boolean;
  /** Subresources (default: the model's that this server serves, see {@link servedModelSubresources}). */
  sub?: Subresource[];
  /** Stored as another group's kind (events.k8s.io events share core events' storage). */
  storedAs?: { g: string; v: string; kind: string };
  /** Not kept in storage (discovery publishes no storageVersionHash): computed on every read. */
  virtual?: boolean;
}

const status = (kind: string): Subresource => ({ name: 'status', kind, verbs: ['get', 'patch', 'update'] });
const scale: Subresource = { name: 'scale', kind: 'Scale', verbs: ['get', 'patch', 'update'], group: 'autoscaling', version: 'v1' };
const createOnly = ['create'];
const hpaStorage = { g: 'autoscaling', v: 'v2', kind: 'HorizontalPodAutoscaler' };

// The built-in table, in kube-apiserver's discovery order, as v1.32 publishes these resources: the
// group/versions a v1.32 kube-apiserver enables by default (pkg/controlplane/apiserver/options and
// pkg/controlplane/instance.go DefaultAPIResourceConfigSource: every GA version; no beta or alpha one),
// groups ordered by their APIService priority (pkg/controlplane/apiserver/aggregator.go), resources by name.
const builtins: readonly BuiltinSpec[] = [
  { g: '', v: 'v1', r: 'bindings', verbs: createOnly },
  // Computed from health probes on every read (pkg/registry/core/componentstatus/rest.go).
  { g: '', v: 'v1', r: 'componentstatuses', short: ['cs'], verbs: ['get', 'list'], virtual: true },
  { g: '', v: 'v1', r: 'configmaps', kind: 'ConfigMap', ns: true, short: ['cm'] },
  { g: '', v: 'v1', r: 'endpoints', kind: 'Endpoints', ns: true, short: ['ep'] },
  { g: '', v: 'v1', r: 'events', kind: 'Event', ns: true, short: ['ev'] },
  { g: '', v: 'v1', r: 'limitranges', kind: 'LimitRange', ns: true, short: ['limits'] },
  { g: '', v: 'v1', r: 'namespaces', kind: 'Namespace', ns: false, short: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], sub: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }, status('Namespace')] },
  { g: '', v: 'v1', r: 'nodes', kind: 'Node', ns: false, short: ['no'], sub: [status('Node')] },
  { g: '', v: 'v1', r: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', ns: true, short: ['pvc'], sub: [status('PersistentVolumeClaim')] },
  { g: '', v: 'v1', r: 'persistentvolumes', kind: 'PersistentVolume', ns: false, short: ['pv'], sub: [status('PersistentVolume')] },
  // Pods carry no metadata.generation before PodObservedGenerationTracking (v1.33+); this server is v1.32.
  { g: '', v: 'v1', r: 'pods', kind: 'Pod', ns: true, short: ['po'], cat: ['all'], sub: [
      // The streaming subresources (streaming/upgrade.ts serves them).
      { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
      { name: 'binding', kind: 'Binding', verbs: ['create'] },
      { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
      { name: 'eviction', kind: 'Eviction', verbs: ['create'], group: 'policy', version: 'v1' },
      { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
      { name: 'log', kind: 'Pod', verbs: ['get'] },
      { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
      status('Pod'),
    ] },
  { g: '', v: 'v1', r: 'podtemplates', kind: 'PodTemplate', ns: true },
  { g: '', v: 'v1', r: 'replicationcontrollers', kind: 'ReplicationController', ns: true, short: ['rc'], cat: ['all'], generation: true, sub: [scale, status('ReplicationController')] },
  { g: '', v: 'v1', r: 'resourcequotas', kind: 'ResourceQuota', ns: true, short: ['quota'], sub: [status('ResourceQuota')] },
  { g: '', v: 'v1', r: 'secrets', kind: 'Secret', ns: true },
  { g: '', v: 'v1', r: 'serviceaccounts', kind: 'ServiceAccount', ns: true, short: ['sa'], sub: [{ name: 'token', kind: 'TokenRequest', verbs: createOnly, group: 'authentication.k8s.io', version: 'v1' }] },
  { g: '', v: 'v1', r: 'services', kind: 'Service', ns: true, short: ['svc'], cat: ['all'], sub: [status('Service')] },
  { g: 'apiregistration.k8s.io', v: 'v1', r: 'apiservices', cat: ['api-extensions'] },
  { g: 'apps', v: 'v1', r: 'controllerrevisions', kind: 'ControllerRevision', ns: true },
  { g: 'apps', v: 'v1', r: 'daemonsets', kind: 'DaemonSet', ns: true, short: ['ds'], cat: ['all'], generation: true, sub: [status('DaemonSet')] },
  { g: 'apps', v: 'v1', r: 'deployments', kind: 'Deployment', ns: true, short: ['deploy'], cat: ['all'], generation: true, sub: [scale, status('Deployment')] },
  { g: 'apps', v: 'v1', r: 'replicasets', kind: 'ReplicaSet', ns: true, short: ['rs'], cat: ['all'], generation: true, sub: [scale, status('ReplicaSet')] },
  { g: 'apps', v: 'v1', r: 'statefulsets', kind: 'StatefulSet', ns: true, short: ['sts'], cat: ['all'], generation: true, sub: [scale, status('StatefulSet')] },
  { g: 'events.k8s.io', v: 'v1', r: 'events', kind: 'Event', ns: true, short: ['ev'], storedAs: { g: '', v: 'v1', kind: 'Event' } },
  { g: 'authentication.k8s.io', v: 'v1', r: 'selfsubjectreviews', verbs: createOnly },
  { g: 'authentication.k8s.io', v: 'v1', r: 'tokenreviews', kind: 'TokenReview', ns: false, verbs: createOnly },
  { g: 'authorization.k8s.io', v: 'v1', r: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', ns: true, verbs: createOnly },
  { g: 'authorization.k8s.io', v: 'v1', r: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', ns: false, verbs: createOnly },
  { g: 'authorization.k8s.io', v: 'v1', r: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', ns: false, verbs: createOnly },
  { g: 'authorization.k8s.io', v: 'v1', r: 'subjectaccessreviews', kind: 'SubjectAccessReview', ns: false, verbs: createOnly },
  // HorizontalPodAutoscalers: served as v2 and v1, stored as v2 (v1.32's version priority, pkg/apis/autoscaling/install).
  { g: 'autoscaling', v: 'v2', r: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', ns: true, short: ['hpa'], cat: ['all'], sub: [status('HorizontalPodAutoscaler')], storedAs: hpaStorage },
  { g: 'autoscaling', v: 'v1', r: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', ns: true, short: ['hpa'], cat: ['all'], sub: [status('HorizontalPodAutoscaler')], storedAs: hpaStorage },
  { g: 'batch', v: 'v1', r: 'cronjobs', kind: 'CronJob', ns: true, short: ['cj'], cat: ['all'], generation: true, sub: [status('CronJob')] },
  { g: 'batch', v: 'v1', r: 'jobs', kind: 'Job', ns: true, cat: ['all'], generation: true, sub: [status('Job')] },
  { g: 'certificates.k8s.io', v: 'v1', r: 'certificatesigningrequests', kind: 'CertificateSigningRequest', ns: false, short: ['csr'], sub: [
      { name: 'approval', kind: 'CertificateSigningRequest', verbs: ['get', 'patch', 'update'] },
      status('CertificateSigningRequest'),
    ] },
  { g: 'networking.k8s.io', v: 'v1', r: 'ingressclasses', kind: 'IngressClass', ns: false, generation: true },
  { g: 'networking.k8s.io', v: 'v1', r: 'ingresses', kind: 'Ingress', ns: true, short: ['ing'], generation: true, sub: [status('Ingress')] },
  { g: 'networking.k8s.io', v: 'v1', r: 'networkpolicies', kind: 'NetworkPolicy', ns: true, short: ['netpol'], generation: true },
  { g: 'policy', v: 'v1', r: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', ns: true, short: ['pdb'], generation: true, sub: [status('PodDisruptionBudget')] },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'clusterrolebindings', kind: 'ClusterRoleBinding', ns: false },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'clusterroles', kind: 'ClusterRole', ns: false },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'rolebindings', kind: 'RoleBinding', ns: true },
  { g: 'rbac.authorization.k8s.io', v: 'v1', r: 'roles', kind: 'Role', ns: true },
  { g: 'storage.k8s.io', v: 'v1', r: 'csidrivers' },
  { g: 'storage.k8s.io', v: 'v1', r: 'csinodes' },
  { g: 'storage.k8s.io', v: 'v1', r: 'csistoragecapacities' },
  { g: 'storage.k8s.io', v: 'v1', r: 'storageclasses', short: ['sc'] },
  { g: 'storage.k8s.io', v: 'v1', r: 'volumeattachments' },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', ns: false, cat: ['api-extensions'] },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'validatingadmissionpolicies', cat: ['api-extensions'], generation: true },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'validatingadmissionpolicybindings', cat: ['api-extensions'], generation: true },
  { g: 'admissionregistration.k8s.io', v: 'v1', r: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', ns: false, cat: ['api-extensions'] },
  { g: 'apiextensions.k8s.io', v: 'v1', r: 'customresourcedefinitions', kind: 'CustomResourceDefinition', ns: false, short: ['crd', 'crds'], cat: ['api-extensions'], generation: true, sub: [status('CustomResourceDefinition')] },
  { g: 'scheduling.k8s.io', v: 'v1', r: 'priorityclasses', kind: 'PriorityClass', ns: false, short: ['pc'] },
  { g: 'coordination.k8s.io', v: 'v1', r: 'leases', kind: 'Lease', ns: true },
  { g: 'node.k8s.io', v: 'v1', r: 'runtimeclasses' },
  { g: 'discovery.k8s.io', v: 'v1', r: 'endpointslices', generation: true },
  { g: 'flowcontrol.apiserver.k8s.io', v: 'v1', r: 'flowschemas', generation: true },
  { g: 'flowcontrol.apiserver.k8s.io', v: 'v1', r: 'prioritylevelconfigurations', generation: true },
];

const builtinGroups: ReadonlySet<string> = new Set(builtins.map((b) => b.g));

// Subresources of the model that the server does not serve: the proxies (no cluster network) and
// pods/resize (InPlacePodVerticalScaling, alpha and off in v1.32).
const unservedSubresources: ReadonlySet<string> = new Set(['nodes/proxy', 'pods/proxy', 'services/proxy', 'pods/resize']);

/** The model's subresources of a resource that this server serves (status, scale and the like). */
function servedModelSubresources(s: BuiltinSpec): Subresource[] {
  const model = modelResource(s.g, s.v, s.r);
  if (model === undefined) return [];
  return model.subresources
    .filter((x) => !unservedSubresources.has(`${s.r}/${x.name}`))
    .map((x) => ({ name: x.name, kind: x.kind, verbs: x.verbs, ...(x.group === s.g && x.version === s.v ? {} : { group: x.group, version: x.version }) }));
}

function builtinResource(s: BuiltinSpec): ApiResource {
  const model = modelResource(s.g, s.v, s.r);
  const kind = s.kind ?? model?.kind;
  const namespaced = s.ns ?? model?.namespaced;
  if (kind === undefined || namespaced === undefined) throw new Error(`built-in resource ${s.r}.${s.g}/${s.v} is not in the API model`);
  const verbs = s.verbs ?? model?.verbs ?? allVerbs;
  const subresources = s.sub ?? servedModelSubresources(s);
  const stored = s.storedAs ?? { g: s.g, v: s.v, kind };
  return {
    group: s.g,
    version: s.v,
    resource: s.r,
    singularName: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames: s.short ?? [],
    categories: s.cat ?? [],
    verbs,
    subresources,
    hasStatus: subresources.some((x) => x.name === 'status'),
    hasScale: subresources.some((x) => x.name === 'scale'),
    tracksGeneration: s.generation ?? false,
    custom: false,
    printerColumns: [],
    selectableFields: [],
    storageVersionHash: verbs.includes('get') && s.virtual !== true ? storageVersionHash(stored.g, stored.v, stored.kind) : '',
    // A built-in kind served in several versions of its own group is stored in one of them.
    ...(stored.g === s.g && stored.v !== s.v ? { storage: { version: stored.v, schema: undefined } } : {}),
    // One kind stored as another group's (events.k8s.io events as core events).
    ...(stored.g !== s.g ? { storage: { version: stored.v, schema: undefined, group: stored.g } } : {}),
  };
}

/** A group and the versions it serves, preferred version first. */
export interface ServedGroup {
  readonly name: string;
  readonly versions: readonly string[];
}

// The built-in entries: the same for every server and never changed, so built once per process.
let builtinEntries: readonly ApiResource[] | undefined;

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
    builtinEntries ??= builtins.map((spec) => builtinResource(spec));
    for (const r of builtinEntries) this.#add(r);
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

  /** Every CRD served, with the entries it added (a copy: server snapshots carry it). */
  customResources(): Map<string, readonly ApiResource[]> {
    return new Map(this.#crds);
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

  /** Whether the group is one of the built-in groups (whose unknown versions are answered with a Status). */
  isBuiltinGroup(group: string): boolean {
    return builtinGroups.has(group);
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
