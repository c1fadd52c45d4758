/**
 * The merge schema of the built-in kinds: for every field where it matters, how lists merge and
 * which maps are atomic. It condenses the struct tags and OpenAPI extensions of k8s.io/api
 * (`patchStrategy`/`patchMergeKey` for strategic merge patch, `listType`/`listMapKey`/`structType`/
 * `mapType` for server-side apply).
 *
 * Fields absent from the table follow the defaults of both mechanisms: objects merge field by field,
 * lists are replaced as a whole (SMP) or atomic (SSA).
 */

/** How a list field merges. */
export interface ListSchema {
  readonly kind: 'list';
  /** Server-side apply: `map` (associative, by `keys`), `set` (primitives by value) or `atomic`. */
  readonly listType: 'map' | 'set' | 'atomic';
  /** Server-side apply key fields of an associative list (x-kubernetes-list-map-keys). */
  readonly keys?: readonly string[];
  /** Defaults of key fields, used when an element omits them (the OpenAPI `default`, e.g. protocol TCP). */
  readonly keyDefaults?: Readonly<Record<string, unknown>>;
  /** Strategic merge patch: whether to merge (by `mergeKey`, or as a set of primitives) or replace. */
  readonly strategy: 'merge' | 'replace';
  /** Strategic merge patch merge key (patchMergeKey); absent for a merged list of primitives. */
  readonly mergeKey?: string;
  /** Schema of the elements. */
  readonly items?: FieldSchema;
  /** A Go field without omitempty: present (as null) in every decoded object, see {@link MapSchema.implicit}. */
  readonly implicit?: boolean;
}

/** How an object field merges. */
export interface MapSchema {
  readonly kind: 'map';
  /** Known fields that need something other than the default behaviour. */
  readonly fields?: Readonly<Record<string, FieldSchema>>;
  /** For a map from arbitrary keys to values (labels, resources.limits): the values' schema, or 'scalar'. */
  readonly mapOf?: FieldSchema | 'scalar';
  /** Server-side apply: the object is owned and replaced as a whole (structType/mapType atomic). */
  readonly atomic?: boolean;
  /**
   * A non-pointer Go struct: it is always present in a decoded object, so creating it is not a change
   * that a field manager gets ownership of (this is why `f:spec` has no `.` entry upstream).
   */
  readonly implicit?: boolean;
  /**
   * Of a kind's root: writes of the main resource own `status` (a custom resource without the status
   * subresource, whose strategy resets no fields).
   */
  readonly ownsStatus?: boolean;
}

/** Schema of a field; `undefined` means a scalar or a field with default behaviour. */
export type FieldSchema = ListSchema | MapSchema;

/** Group, version and kind of an object. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

// --- builders --------------------------------------------------------------------------------------

function struct(fields: Record<string, FieldSchema> = {}, extra: { implicit?: boolean; atomic?: boolean } = {}): MapSchema {
  return { kind: 'map', fields, ...extra };
}

function implicitStruct(fields: Record<string, FieldSchema> = {}): MapSchema {
  return struct(fields, { implicit: true });
}

const atomicStruct: MapSchema = { kind: 'map', atomic: true };
const stringMap: MapSchema = { kind: 'map', mapOf: 'scalar' };
const atomicStringMap: MapSchema = { kind: 'map', mapOf: 'scalar', atomic: true };

/** An associative list: SMP merges by `mergeKey`, SSA by `keys` (which default to `[mergeKey]`). */
function assoc(mergeKey: string, items?: FieldSchema, keys: readonly string[] = [mergeKey]): ListSchema {
  return items === undefined
    ? { kind: 'list', listType: 'map', keys, strategy: 'merge', mergeKey }
    : { kind: 'list', listType: 'map', keys, strategy: 'merge', mergeKey, items };
}

/** A list of primitives merged as a set (patchStrategy merge, listType set). */
const set: ListSchema = { kind: 'list', listType: 'set', strategy: 'merge' };

/** SSA treats the list as atomic although SMP merges it by `mergeKey` (listType=atomic with patchStrategy merge). */
function atomicListMergedBySmp(mergeKey: string): ListSchema {
  return { kind: 'list', listType: 'atomic', strategy: 'merge', mergeKey };
}

/** SSA keys a list by `keys` although SMP replaces it (no patchStrategy). */
function mapListReplacedBySmp(keys: readonly string[], items?: FieldSchema): ListSchema {
  return items === undefined ? { kind: 'list', listType: 'map', keys, strategy: 'replace' } : { kind: 'list', listType: 'map', keys, strategy: 'replace', items };
}

// --- metadata --------------------------------------------------------------------------------------

const objectMeta = implicitStruct({
  labels: stringMap,
  annotations: stringMap,
  finalizers: set,
  ownerReferences: assoc('uid'),
});

const conditions = assoc('type');

// --- core/v1 Pod ---------------------------------------------------------------------------------

const resourceRequirements = implicitStruct({
  limits: stringMap,
  requests: stringMap,
  claims: mapListReplacedBySmp(['name']),
});

// ObjectFieldSelector is a structType=atomic struct.
const envVar = struct({ valueFrom: struct({ fieldRef: atomicStruct }) });

const container = struct({
  ports: { ...assoc('containerPort', undefined, ['containerPort', 'protocol']), keyDefaults: { protocol: 'TCP' } },
  env: assoc('name', envVar),
  volumeMounts: assoc('mountPath'),
  volumeDevices: assoc('devicePath'),
  resources: resourceRequirements,
});

const podSpec = implicitStruct({
  containers: { ...assoc('name', container), implicit: true },
  initContainers: assoc('name', container),
  ephemeralContainers: assoc('name', container),
  volumes: assoc('name'),
  imagePullSecrets: assoc('name'),
  hostAliases: assoc('ip'),
  topologySpreadConstraints: assoc('topologyKey', undefined, ['topologyKey', 'whenUnsatisfiable']),
  resourceClaims: assoc('name'),
  schedulingGates: assoc('name'),
  // mapType=atomic for server-side apply; strategic merge patch still merges it key by key.
  nodeSelector: atomicStringMap,
  overhead: stringMap,
  resources: struct({ limits: stringMap, requests: stringMap }),
  affinity: struct({ nodeAffinity: struct({ requiredDuringSchedulingIgnoredDuringExecution: atomicStruct }) }),
});

const podStatus = implicitStruct({
  conditions,
  podIPs: assoc('ip'),
  hostIPs: atomicListMergedBySmp('ip'),
  resourceClaimStatuses: assoc('name'),
  volumeHealth: assoc('name'),
});

const podTemplateSpec = implicitStruct({ metadata: objectMeta, spec: podSpec });

const labelSelector = atomicStruct;

const workloadStatus = implicitStruct({ conditions });

// --- the kinds ---------------------------------------------------------------------------------------

function kindSchema(spec: MapSchema = implicitStruct(), status: MapSchema = implicitStruct()): MapSchema {
  return struct({ metadata: objectMeta, spec, status });
}

const jobSpec = implicitStruct({ selector: labelSelector, template: podTemplateSpec });

const persistentVolumeClaim = struct({ metadata: objectMeta, spec: implicitStruct({ resources: resourceRequirements }), status: implicitStruct({ conditions }) });

const schemas = new Map<string, MapSchema>([
  ['/Pod', kindSchema(podSpec, podStatus)],
  ['/PodTemplate', struct({ metadata: objectMeta, template: podTemplateSpec })],
  ['/ReplicationController', kindSchema(implicitStruct({ selector: atomicStringMap, template: podTemplateSpec }), workloadStatus)],
  ['/Service', kindSchema(
    implicitStruct({ ports: { ...assoc('port', undefined, ['port', 'protocol']), keyDefaults: { protocol: 'TCP' } }, selector: atomicStringMap }),
    implicitStruct({ conditions, loadBalancer: implicitStruct() }),
  )],
  ['/Namespace', kindSchema(implicitStruct(), implicitStruct({ conditions }))],
  ['/Node', kindSchema(
    implicitStruct({ podCIDRs: set }),
    implicitStruct({ conditions, addresses: assoc('type'), capacity: stringMap, allocatable: stringMap, daemonEndpoints: implicitStruct(), nodeInfo: implicitStruct() }),
  )],
  ['/PersistentVolumeClaim', persistentVolumeClaim],
  ['/ConfigMap', struct({ metadata: objectMeta, data: stringMap, binaryData: stringMap })],
  ['/Secret', struct({ metadata: objectMeta, data: stringMap, stringData: stringMap })],
  ['/ServiceAccount', struct({ metadata: objectMeta, secrets: assoc('name') })],
  ['/Endpoints', struct({ metadata: objectMeta })],
  // ObjectReference is a structType=atomic struct.
  ['/Event', struct({ metadata: objectMeta, involvedObject: atomicStruct, related: atomicStruct, source: implicitStruct() })],
  ['apps/Deployment', kindSchema(
    implicitStruct({ selector: labelSelector, template: podTemplateSpec, strategy: implicitStruct() }),
    workloadStatus,
  )],
  ['apps/ReplicaSet', kindSchema(implicitStruct({ selector: labelSelector, template: podTemplateSpec }), workloadStatus)],
  ['apps/StatefulSet', kindSchema(
    implicitStruct({ selector: labelSelector, template: podTemplateSpec, updateStrategy: implicitStruct() }),
    workloadStatus,
  )],
  ['apps/DaemonSet', kindSchema(
    implicitStruct({ selector: labelSelector, template: podTemplateSpec, updateStrategy: implicitStruct() }),
    workloadStatus,
  )],
  ['batch/Job', kindSchema(jobSpec, implicitStruct({ conditions: atomicListMergedBySmp('type'), uncountedTerminatedPods: struct({ failed: set, succeeded: set }) }))],
  ['batch/CronJob', kindSchema(implicitStruct({ jobTemplate: implicitStruct({ metadata: objectMeta, spec: jobSpec }) }), implicitStruct())],
  ['coordination.k8s.io/Lease', kindSchema()],
  ['events.k8s.io/Event', struct({ metadata: objectMeta })],
  ['rbac.authorization.k8s.io/Role', struct({ metadata: objectMeta })],
  ['rbac.authorization.k8s.io/ClusterRole', struct({ metadata: objectMeta, aggregationRule: struct() })],
  // RoleRef is +structType=atomic: owned as a whole.
  ['rbac.authorization.k8s.io/RoleBinding', struct({ metadata: objectMeta, roleRef: struct({}, { atomic: true, implicit: true }) })],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', struct({ metadata: objectMeta, roleRef: struct({}, { atomic: true, implicit: true }) })],
  ['apiextensions.k8s.io/CustomResourceDefinition', kindSchema(
    implicitStruct({ names: implicitStruct() }),
    implicitStruct({ conditions, acceptedNames: implicitStruct() }),
  )],
]);

// The create-only kinds answered by the server: their spec and status are Go structs.
for (const kind of ['authentication.k8s.io/TokenRequest', 'authentication.k8s.io/TokenReview', 'authorization.k8s.io/SelfSubjectAccessReview', 'authorization.k8s.io/SelfSubjectRulesReview', 'authorization.k8s.io/SubjectAccessReview', 'authorization.k8s.io/LocalSubjectAccessReview']) {
  schemas.set(kind, struct({ metadata: objectMeta, spec: implicitStruct(), status: implicitStruct() }));
}

// Custom resources and unknown kinds: only the metadata is known; everything else takes the defaults.
const fallback: MapSchema = struct({ metadata: objectMeta });

/** True when `gvk` is a built-in kind whose merge schema is known (strategic merge patch needs one). */
export function hasBuiltinSchema(gvk: Pick<GroupVersionKind, 'group' | 'kind'>): boolean {
  return schemas.has(`${gvk.group}/${gvk.kind}`);
}

/**
 * The merge schema for objects of `gvk`. Unknown kinds get a schema knowing only `metadata`,
 * which is what server-side apply needs for custom resources without a structural schema.
 */
export function schemaFor(gvk: Pick<GroupVersionKind, 'group' | 'kind'> & { version?: string }): MapSchema {
  return schemas.get(`${gvk.group}/${gvk.kind}`) ?? (gvk.version === undefined ? undefined : customSchemas.get(`${gvk.group}/${gvk.version}/${gvk.kind}`)) ?? fallback;
}

// The merge schemas of served custom resource versions, from their structural schemas.
const customSchemas = new Map<string, MapSchema>();

/** A structural schema node as far as merging needs it (apiextensions JSONSchemaProps). */
export interface StructuralMergeNode {
  type?: string;
  properties?: Record<string, StructuralMergeNode>;
  additionalProperties?: StructuralMergeNode | boolean;
  items?: StructuralMergeNode | StructuralMergeNode[];
  default?: unknown;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
}

function fromStructural(s: StructuralMergeNode | undefined): FieldSchema | undefined {
  if (s === undefined || typeof s !== 'object') return undefined;
  if (s.type === 'array') {
    const itemNode = Array.isArray(s.items) ? s.items[0] : s.items;
    const items = fromStructural(itemNode);
    const listType = s['x-kubernetes-list-type'] === 'map' || s['x-kubernetes-list-type'] === 'set' ? s['x-kubernetes-list-type'] : 'atomic';
    const keys = listType === 'map' ? (s['x-kubernetes-list-map-keys'] ?? []) : undefined;
    const keyDefaults: Record<string, unknown> = {};
    for (const k of keys ?? []) {
      const d = itemNode?.properties?.[k]?.default;
      if (d !== undefined) keyDefaults[k] = d;
    }
    return {
      kind: 'list',
      listType,
      strategy: 'replace',
      ...(keys === undefined ? {} : { keys }),
      ...(Object.keys(keyDefaults).length > 0 ? { keyDefaults } : {}),
      ...(items === undefined ? {} : { items }),
    };
  }
  if (s.type !== 'object' && s.properties === undefined && s.additionalProperties === undefined) return undefined;
  const fields: Record<string, FieldSchema> = {};
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    const f = fromStructural(p);
    if (f !== undefined) fields[k] = f;
  }
  const ap = s.additionalProperties;
  const mapOf = typeof ap === 'object' ? (fromStructural(ap) ?? 'scalar') : undefined;
  return { kind: 'map', fields, ...(mapOf === undefined ? {} : { mapOf }), ...(s['x-kubernetes-map-type'] === 'atomic' ? { atomic: true } : {}) };
}

/**
 * Registers the merge schema of a served custom resource version from its structural schema: list types
 * and map keys (x-kubernetes-list-type, x-kubernetes-list-map-keys), atomic maps, and whether the main
 * resource owns status (no status subresource). Field ownership of custom resources follows it, as the
 * field manager's type converter built from the CRD's schema does
 * (apiextensions-apiserver pkg/apiserver/customresource_handler.go, managedfields TypeConverter).
 */
export function registerCustomResourceMergeSchema(gvk: GroupVersionKind, schema: StructuralMergeNode | undefined, hasStatusSubresource: boolean): void {
  const root = fromStructural(schema);
  const fields = root?.kind === 'map' ? { ...root.fields } : {};
  fields.metadata = objectMeta;
  customSchemas.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, { kind: 'map', fields, ...(hasStatusSubresource ? {} : { ownsStatus: true }) });
}

/** The schema of field `name` inside an object of schema `parent`. */
export function fieldSchema(parent: FieldSchema | undefined, name: string): FieldSchema | undefined {
  if (parent?.kind !== 'map') return undefined;
  const declared = parent.fields?.[name];
  if (declared !== undefined) return declared;
  return parent.mapOf === 'scalar' ? undefined : parent.mapOf;
}
