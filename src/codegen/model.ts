/**
 * The API model: kubeloom's own compact, normalised description of a Kubernetes API, written by the
 * first stage of the generator (from OpenAPI v3 documents or CRDs) and read by the second (which
 * emits TypeScript) and by the schema exporter (which turns it back into OpenAPI v2/v3 schemas).
 *
 * It keeps only what generation needs: group-versions with their resources (kind, scope, verbs,
 * subresources) and every named type as a normalised schema. A schema node is a subset of the
 * OpenAPI v3 / CRD structural-schema vocabulary in which references are plain type names (`ref`)
 * instead of `$ref` pointers wrapped in `allOf`, and object keys are sorted, so the model is stable
 * byte for byte. Upstream counterparts: the OpenAPI documents under api/openapi-spec/v3 of
 * kubernetes/kubernetes, and `JSONSchemaProps` of
 * staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types_jsonschema.go.
 */

/** The `format` value every model file carries; bumped when the model's shape changes. */
export const MODEL_FORMAT = 'kubeloom.api-model/v1';

/** One normalised schema node (a type's schema, a field's schema, an item's schema ...). */
export interface SchemaNode {
  /** The name of a type of the model this node stands for (`io.k8s.api.core.v1.PodSpec`). */
  ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  title?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  /** A schema for map values, or `true`/`false` (any value / no extra keys). */
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
  not?: SchemaNode;
  maximum?: number;
  minimum?: number;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  externalDocs?: { description?: string; url?: string };
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-unions'?: unknown[];
  'x-kubernetes-validations'?: Array<{ rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string; optionalOldSelf?: boolean }>;
}

/** A group, version and kind. */
export interface ModelGroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A named type: its schema and the kinds it is registered as (`x-kubernetes-group-version-kind`). */
export interface TypeModel {
  gvk?: ModelGroupVersionKind[];
  schema: SchemaNode;
}

/** Verbs as discovery names them. */
export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch' | 'connect';

/** A subresource of a resource (`pods/status`, `deployments/scale`, `pods/eviction` ...). */
export interface SubresourceModel {
  name: string;
  /** The kind the subresource reads or writes; may belong to another group (policy/v1 Eviction). */
  group: string;
  version: string;
  kind: string;
  /** The model type of that kind's objects, when the API describes one. */
  type?: string;
  verbs: Verb[];
  /** The subresource answers plain text (pods/log). */
  text?: boolean;
}

/** A resource of a group-version. */
export interface ResourceModel {
  /** Plural resource name (URL segment). */
  name: string;
  kind: string;
  /** The model type of the kind's objects. */
  type?: string;
  /** The model type of the kind's lists. */
  listType?: string;
  namespaced: boolean;
  verbs: Verb[];
  subresources: SubresourceModel[];
}

/** A served group-version and its resources. */
export interface GroupVersionModel {
  group: string;
  version: string;
  resources: ResourceModel[];
}

/** One input file of the model, pinned by its digest. */
export interface SourceFile {
  name: string;
  sha256: string;
}

/** Where the model's input came from. */
export interface ModelSource {
  /** `kubernetes/kubernetes`, or `crd` for models built from CustomResourceDefinitions. */
  repository: string;
  path: string;
  /** Branch, tag or commit the documents were taken from. */
  ref: string;
  kubernetesVersion: string;
  /** Free text: how the documents were obtained. */
  notes?: string;
  files: SourceFile[];
}

/** The whole model. */
export interface ApiModel {
  format: typeof MODEL_FORMAT;
  source: ModelSource;
  /** Sorted by group, then version. */
  groupVersions: GroupVersionModel[];
  /** Keyed by type name, keys sorted. */
  types: Record<string, TypeModel>;
}

/** The module path a type name belongs to: `io.k8s.api.core.v1.Pod` → `core/v1`. */
export function moduleOfType(typeName: string): string {
  const dot = typeName.lastIndexOf('.');
  return moduleOfPackage(dot < 0 ? '' : typeName.slice(0, dot));
}

/** The simple name of a type: `io.k8s.api.core.v1.Pod` → `Pod`. */
export function simpleNameOfType(typeName: string): string {
  return typeName.slice(typeName.lastIndexOf('.') + 1);
}

const packageModules: ReadonlyArray<readonly [prefix: string, module: (rest: string) => string]> = [
  ['io.k8s.api.', (rest) => rest.replaceAll('.', '/')],
  ['io.k8s.apimachinery.pkg.apis.meta.', (rest) => `meta/${rest}`],
  ['io.k8s.apimachinery.pkg.', () => 'apimachinery'],
  ['io.k8s.apiextensions-apiserver.pkg.apis.', (rest) => rest.replaceAll('.', '/')],
  ['io.k8s.kube-aggregator.pkg.apis.', (rest) => rest.replaceAll('.', '/')],
];

/**
 * The module (folder/file under `api/` and `applyconfigurations/`) of an OpenAPI package name.
 * Built-in packages map as kubernetes-types lays them out (`core/v1`, `meta/v1`, `apiextensions/v1`);
 * the few apimachinery leaf packages (Quantity, IntOrString, RawExtension, version Info) share one
 * module, `apimachinery`. Other packages (CRD models) use the package name with dots as slashes.
 */
export function moduleOfPackage(pkg: string): string {
  for (const [prefix, module] of packageModules) {
    if (pkg.startsWith(prefix)) return module(pkg.slice(prefix.length));
  }
  return pkg.replaceAll('.', '/');
}
