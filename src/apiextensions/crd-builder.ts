/**
 * Declaring a CRD in TypeScript: a small schema builder whose nodes carry the TypeScript type of
 * the values they describe, so one declaration gives both the structural `openAPIV3Schema` the API
 * server needs and the object type the code uses (what kube-rs's `#[derive(CustomResource)]` and
 * cdk8s's imports offer, the other way round from `kubeloom generate crd`).
 *
 * @example
 * const widgetSchema = s.object({
 *   spec: s.object({ size: s.integer({ minimum: 0 }), color: s.enum(['red', 'blue']) }, { required: ['size'] }),
 *   status: s.object({ ready: s.boolean() }),
 * });
 * export const widgets = defineCrd({ group: 'example.com', kind: 'Widget', plural: 'widgets', scope: 'Namespaced',
 *   versions: [{ name: 'v1', schema: widgetSchema, subresources: { status: {} } }] });
 * type Widget = ObjectOf<typeof widgets>;   // { apiVersion?, kind?, metadata?, spec?: { size: number; color?: 'red' | 'blue' }, status?: ... }
 * await clientset.apiextensionsV1().customResourceDefinitions().create(widgets.manifest);
 * const client = clientset.forCustomResource(widgets.resource('v1'), 'default');
 */
import type { CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionVersion, CustomResourceSubresources, JSONSchemaProps } from '../api/apiextensions/v1.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { ObjectMeta } from '../api/meta/v1.ts';
import { defineCustomResource, type CustomResource } from '../kubernetes/resource-spec.ts';

/** A schema node describing values of type `T` (the type exists only for inference). */
export interface SchemaBuilder<T> {
  /** The node as JSON schema. */
  readonly schema: JSONSchemaProps;
  /** Phantom: the TypeScript type of values; never set. */
  readonly __type?: T;
}

/** The TypeScript type a schema node describes. */
export type Infer<S> = S extends SchemaBuilder<infer T> ? T : never;

/** Validation and documentation keywords any node may carry. */
export interface CommonOptions {
  /** The schema's `description` (shown by `kubectl explain`). */
  description?: string;
  /** Whether `null` is allowed (the TypeScript type then includes `null`). */
  nullable?: boolean;
  /** CEL rules (x-kubernetes-validations). */
  validations?: JSONSchemaProps['x-kubernetes-validations'];
}

/** Options of string nodes. */
export interface StringOptions extends CommonOptions {
  /** A format checked by the API server, e.g. `date-time`, `int-or-string`, `byte`. */
  format?: string;
  /** A regular expression the value must match. */
  pattern?: string;
  /** Shortest allowed length. */
  minLength?: number;
  /** Longest allowed length. */
  maxLength?: number;
  /** The value defaulted in when the field is absent. */
  default?: string;
}

/** Options of number and integer nodes. */
export interface NumberOptions extends CommonOptions {
  /** The number's format. */
  format?: 'int32' | 'int64' | 'float' | 'double';
  /** Smallest allowed value. */
  minimum?: number;
  /** Largest allowed value. */
  maximum?: number;
  /** Whether `minimum` itself is excluded. */
  exclusiveMinimum?: boolean;
  /** Whether `maximum` itself is excluded. */
  exclusiveMaximum?: boolean;
  /** The value must be a multiple of this. */
  multipleOf?: number;
  /** The value defaulted in when the field is absent. */
  default?: number;
}

/** Options of array nodes. */
export interface ArrayOptions extends CommonOptions {
  /** Fewest allowed items. */
  minItems?: number;
  /** Most allowed items. */
  maxItems?: number;
  /** `atomic` (default when unset), `set`; list-maps are made with {@link s.listMap}. */
  listType?: 'atomic' | 'set';
}

/** Options of object nodes. */
export interface ObjectOptions<K extends string> extends CommonOptions {
  /** Properties that must be present (required in the TypeScript type too). */
  required?: readonly K[];
  /** Keep fields the schema does not name (x-kubernetes-preserve-unknown-fields). */
  preserveUnknownFields?: boolean;
  /** Fewest allowed properties. */
  minProperties?: number;
  /** Most allowed properties. */
  maxProperties?: number;
}

/** The properties of an object schema: a builder per property name. */
export type Props = Record<string, SchemaBuilder<unknown>>;

/** The object type of a property set: `required` keys required, the others optional. */
export type ObjectType<P extends Props, R extends keyof P> = { [K in R]: Infer<P[K]> } & { [K in Exclude<keyof P, R>]?: Infer<P[K]> };

function node<T>(schema: JSONSchemaProps): SchemaBuilder<T> {
  return { schema };
}

function common(options: CommonOptions | undefined): JSONSchemaProps {
  const out: JSONSchemaProps = {};
  if (options?.description !== undefined) out.description = options.description;
  if (options?.nullable === true) out.nullable = true;
  if (options?.validations !== undefined) out['x-kubernetes-validations'] = options.validations;
  return out;
}

function pick<O extends object>(options: O | undefined, keys: ReadonlyArray<keyof O>): Partial<O> {
  const out: Partial<O> = {};
  for (const k of keys) if (options?.[k] !== undefined) out[k] = options[k];
  return out;
}

/** `T`, or `T | null` when the schema options `O` say `nullable: true`. */
export type Nullable<T, O> = O extends {
  /** The schema allows null. */
  nullable: true;
}
  ? T | null
  : T;

/** The schema builders. */
export const s = {
  /** A string. */
  string<O extends StringOptions>(options?: O): SchemaBuilder<Nullable<string, O>> {
    return node({ type: 'string', ...common(options), ...pick(options, ['format', 'pattern', 'minLength', 'maxLength', 'default']) });
  },
  /** An integer (a JavaScript number). */
  integer<O extends NumberOptions>(options?: O): SchemaBuilder<Nullable<number, O>> {
    return node({ type: 'integer', ...common(options), ...pick(options, ['format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'default']) });
  },
  /** A number. */
  number<O extends NumberOptions>(options?: O): SchemaBuilder<Nullable<number, O>> {
    return node({ type: 'number', ...common(options), ...pick(options, ['format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'default']) });
  },
  /** A boolean. */
  boolean<
    O extends CommonOptions & {
      /** The value defaulted in when the field is absent. */
      default?: boolean;
    },
  >(options?: O): SchemaBuilder<Nullable<boolean, O>> {
    return node({ type: 'boolean', ...common(options), ...pick(options, ['default']) });
  },
  /** One of a few strings (a union type). */
  enum<
    const V extends string,
    O extends CommonOptions & {
      /** The value defaulted in when the field is absent. */
      default?: NoInfer<V>;
    },
  >(values: readonly V[], options?: O): SchemaBuilder<Nullable<V, O>> {
    return node({ type: 'string', enum: [...values], ...common(options), ...pick(options, ['default']) });
  },
  /** An integer or a string (x-kubernetes-int-or-string), like ports and percentages. */
  intOrString<O extends CommonOptions>(options?: O): SchemaBuilder<Nullable<number | string, O>> {
    return node({ 'x-kubernetes-int-or-string': true, ...common(options) });
  },
  /** An array of `items`. */
  array<T, O extends ArrayOptions>(items: SchemaBuilder<T>, options?: O): SchemaBuilder<Nullable<T[], O>> {
    const out: JSONSchemaProps = { type: 'array', items: items.schema, ...common(options), ...pick(options, ['minItems', 'maxItems']) };
    if (options?.listType !== undefined) out['x-kubernetes-list-type'] = options.listType;
    return node(out);
  },
  /** A list of objects merged by key fields (x-kubernetes-list-type: map), as server-side apply does for containers. */
  listMap<T, const K extends keyof T & string, O extends Omit<ArrayOptions, 'listType'>>(items: SchemaBuilder<T>, keys: readonly K[], options?: O): SchemaBuilder<Nullable<T[], O>> {
    return node({ type: 'array', items: items.schema, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [...keys], ...common(options), ...pick(options, ['minItems', 'maxItems']) });
  },
  /** A map with string keys and `values`. */
  map<T, O extends CommonOptions>(values: SchemaBuilder<T>, options?: O): SchemaBuilder<Nullable<{ [key: string]: T }, O>> {
    return node({ type: 'object', additionalProperties: values.schema, ...common(options) });
  },
  /** An object with named fields. */
  object<P extends Props, const R extends keyof P & string = never, O extends ObjectOptions<R> = ObjectOptions<R>>(properties: P, options?: O & { required?: readonly R[] }): SchemaBuilder<Nullable<ObjectType<P, R>, O>> {
    const props: Record<string, JSONSchemaProps> = {};
    for (const [name, prop] of Object.entries(properties)) props[name] = prop.schema;
    const out: JSONSchemaProps = { type: 'object', properties: props, ...common(options), ...pick(options, ['minProperties', 'maxProperties']) };
    if (options?.required !== undefined && options.required.length > 0) out.required = [...options.required];
    if (options?.preserveUnknownFields === true) out['x-kubernetes-preserve-unknown-fields'] = true;
    return node(out);
  },
  /**
   * Any JSON object, kept as given (x-kubernetes-preserve-unknown-fields). `T` names its TypeScript
   * type when the value has a known shape the schema does not spell out (a PodTemplateSpec).
   */
  preserveUnknown<T = { [key: string]: unknown }>(options?: CommonOptions): SchemaBuilder<T> {
    return node({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...common(options) });
  },
  /** A whole Kubernetes object inside this one (x-kubernetes-embedded-resource), any kind. */
  embeddedResource<
    T = {
      /** `group/version` of the embedded object. */
      apiVersion: string;
      /** Its kind. */
      kind: string;
      /** Its metadata. */
      metadata?: ObjectMeta;
      [key: string]: unknown;
    },
  >(options?: CommonOptions): SchemaBuilder<T> {
    return node({ type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, ...common(options) });
  },
};

/** One version of a CRD declared with {@link defineCrd}. */
export interface CrdVersionDeclaration<S extends SchemaBuilder<unknown>> {
  /** The version's name, e.g. `v1`. */
  name: string;
  /** The root schema: an {@link s.object} of the fields besides apiVersion, kind and metadata. */
  schema: S;
  /** Whether the version is served (default true). */
  served?: boolean;
  /** Exactly one version is stored; default: the first. */
  storage?: boolean;
  /** The status and scale subresources to enable. */
  subresources?: CustomResourceSubresources;
  /** Columns `kubectl get` prints (and `kubeloom get`). */
  additionalPrinterColumns?: CustomResourceDefinitionVersion['additionalPrinterColumns'];
  /** Whether the version is deprecated (clients get a warning). */
  deprecated?: boolean;
}

/** What {@link defineCrd} takes. */
export interface CrdDeclaration<V extends ReadonlyArray<CrdVersionDeclaration<SchemaBuilder<unknown>>>> {
  /** The API group, e.g. `example.com`. */
  group: string;
  /** The kind, e.g. `Widget`. */
  kind: string;
  /** The plural resource name, e.g. `widgets`. */
  plural: string;
  /** The singular name (default: the lower-cased kind). */
  singular?: string;
  /** The list kind (default: `<kind>List`). */
  listKind?: string;
  /** Short names for kubectl, e.g. `wd`. */
  shortNames?: string[];
  /** Categories, e.g. `all`. */
  categories?: string[];
  /** Whether objects live in namespaces or at cluster scope. */
  scope: 'Namespaced' | 'Cluster';
  /** The versions, in order. */
  versions: V;
  /** How objects are converted between versions (spec.conversion). Default: none written (the API server's `None`). */
  conversion?: CrdConversionDeclaration;
  /** Annotations of the CRD, e.g. `cert-manager.io/inject-ca-from` to have cert-manager fill the conversion caBundle. */
  annotations?: Record<string, string>;
  /** Labels of the CRD. */
  labels?: Record<string, string>;
}

/**
 * A CRD's conversion settings (apiextensions/v1 CustomResourceConversion, as kubebuilder's
 * `config/crd/patches/webhook_in_<kind>.yaml` writes them): `None`, or `Webhook` with where the API
 * server calls — a Service (in a cluster) or a URL (development) — and the review versions it sends.
 */
export interface CrdConversionDeclaration {
  /** `None` (only apiVersion changes) or `Webhook`. */
  strategy: 'None' | 'Webhook';
  /** The webhook's Service (Webhook): `path` defaults to `/convert` (controller-runtime's), `port` to 443. */
  service?: {
    /** The Service's namespace. */
    namespace: string;
    /** The Service's name. */
    name: string;
    /** The URL path the webhook serves; default `/convert`. */
    path?: string;
    /** The Service port; default 443. */
    port?: number;
  };
  /** The webhook's URL instead of a Service (Webhook), e.g. `https://127.0.0.1:9443/convert`. */
  url?: string;
  /** The PEM CA bundle (base64) that signs the webhook's certificate; often injected by cert-manager instead. */
  caBundle?: string;
  /** The ConversionReview versions the webhook understands (Webhook). Default `['v1']`, as controller-gen. */
  conversionReviewVersions?: string[];
}

/** A CRD declaration that cannot be turned into a valid manifest. */
export class CrdDeclarationError extends KubeloomError {
  constructor(message: string) {
    super('ERR_CRD_DECLARATION', message);
  }
}

function conversionOf(name: string, c: CrdConversionDeclaration): CustomResourceConversion {
  if (c.strategy === 'None') {
    if (c.service !== undefined || c.url !== undefined || c.caBundle !== undefined || c.conversionReviewVersions !== undefined) throw new CrdDeclarationError(`${name}: conversion strategy None takes no webhook settings`);
    return { strategy: 'None' };
  }
  if ((c.service === undefined) === (c.url === undefined)) throw new CrdDeclarationError(`${name}: a Webhook conversion needs exactly one of service and url`);
  const clientConfig: NonNullable<NonNullable<CustomResourceConversion['webhook']>['clientConfig']> = {};
  if (c.service !== undefined) clientConfig.service = { namespace: c.service.namespace, name: c.service.name, path: c.service.path ?? '/convert', ...(c.service.port !== undefined ? { port: c.service.port } : {}) };
  if (c.url !== undefined) clientConfig.url = c.url;
  if (c.caBundle !== undefined) clientConfig.caBundle = c.caBundle;
  return { strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: c.conversionReviewVersions ?? ['v1'] } };
}

/** A declared CRD: its manifest and, per version, its custom resource registration. */
export interface DeclaredCrd<V extends ReadonlyArray<CrdVersionDeclaration<SchemaBuilder<unknown>>>> {
  /** The CustomResourceDefinition to create or apply. */
  readonly manifest: CustomResourceDefinition;
  /** The registration of one version for `clientset.forCustomResource()` / `factory.forCustomResource()`. */
  resource<N extends V[number]['name']>(version: N): CustomResource<ObjectOfVersion<V, N>>;
}

/** The object type of version `N` of a CRD declaration. */
export type ObjectOfVersion<V extends ReadonlyArray<CrdVersionDeclaration<SchemaBuilder<unknown>>>, N> = {
  /** `group/version`. */
  apiVersion?: string;
  /** The kind. */
  kind?: string;
  /** Name, namespace, labels and the rest of the metadata. */
  metadata?: ObjectMeta;
} & Infer<
  Extract<
    V[number],
    {
      /** The version's name. */
      name: N;
    }
  >['schema']
>;

/** The object type of a declared CRD's first version (or of version `N`). */
export type ObjectOf<D, N = D extends DeclaredCrd<infer V> ? V[0]['name'] : never> = D extends DeclaredCrd<infer V> ? ObjectOfVersion<V, N> : never;

/** Declares a CRD; see the module's example. */
export function defineCrd<const V extends ReadonlyArray<CrdVersionDeclaration<SchemaBuilder<unknown>>>>(decl: CrdDeclaration<V>): DeclaredCrd<V> {
  const names: CustomResourceDefinition['spec']['names'] = { kind: decl.kind, plural: decl.plural };
  if (decl.singular !== undefined) names.singular = decl.singular;
  if (decl.listKind !== undefined) names.listKind = decl.listKind;
  if (decl.shortNames !== undefined) names.shortNames = decl.shortNames;
  if (decl.categories !== undefined) names.categories = decl.categories;
  const hasStorage = decl.versions.some((v) => v.storage === true);
  const versions = decl.versions.map((v, i): CustomResourceDefinitionVersion => {
    const out: CustomResourceDefinitionVersion = { name: v.name, served: v.served ?? true, storage: v.storage ?? (!hasStorage && i === 0) };
    if (v.deprecated !== undefined) out.deprecated = v.deprecated;
    if (v.subresources !== undefined) out.subresources = v.subresources;
    if (v.additionalPrinterColumns !== undefined) out.additionalPrinterColumns = v.additionalPrinterColumns;
    out.schema = { openAPIV3Schema: structuredClone(v.schema.schema) };
    return out;
  });
  const name = `${decl.plural}.${decl.group}`;
  const manifest: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, ...(decl.annotations !== undefined ? { annotations: { ...decl.annotations } } : {}), ...(decl.labels !== undefined ? { labels: { ...decl.labels } } : {}) },
    spec: { group: decl.group, scope: decl.scope, names, versions },
  };
  if (decl.conversion !== undefined) manifest.spec.conversion = conversionOf(name, decl.conversion);
  return {
    manifest,
    resource: (version) => {
      const v = decl.versions.find((x) => x.name === version);
      if (v === undefined) throw new RangeError(`${decl.plural}.${decl.group} has no version ${String(version)}`);
      const subresources = Object.keys(v.subresources ?? {}).filter((k) => k === 'status' || k === 'scale').sort();
      return defineCustomResource({ group: decl.group, version: v.name, resource: decl.plural, kind: decl.kind, namespaced: decl.scope === 'Namespaced', subresources });
    },
  };
}
