/**
 * OpenAPI documents: v2 (/openapi/v2) and v3 (/openapi/v3 and /openapi/v3/<group-version>), with the
 * schemas of every served kind so that `kubectl explain` and schema-driven clients work:
 *
 * - built-in kinds: from the API model the generator keeps (api-model.ts; Kubernetes' own OpenAPI
 *   documents, descriptions included), exported back to OpenAPI by src/codegen/schema-export.ts;
 * - custom resources: each served version's `openAPIV3Schema` from its CRD, with apiVersion, kind and
 *   metadata added as kube-apiserver's CRD OpenAPI builder adds them.
 *
 * Paths carry one PATCH operation per kind with `x-kubernetes-group-version-kind` and the
 * `fieldValidation` parameter (what kubectl reads to decide that the server validates fields itself).
 *
 * Upstream: `kube-openapi/pkg/handler` and `handler3`, `apiextensions-apiserver/pkg/controller/openapi/builder`.
 */
import { createHash } from 'node:crypto';
import type { SchemaNode } from '../codegen/model.ts';
import { toOpenApiSchema, typeClosure, typeToOpenApi, type OpenApiVersion } from '../codegen/schema-export.ts';
import { apiModel, modelResource } from './api-model.ts';
import { isObject } from './object-meta.ts';
import type { ApiResource, ResourceRegistry } from './resources.ts';

type Obj = Record<string, unknown>;

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

const objectMeta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
// The meta types every group-version document references from its operations.
const metaRoots = ['DeleteOptions', 'Status', 'WatchEvent', 'APIResourceList', 'Patch'].map((k) => `io.k8s.apimachinery.pkg.apis.meta.v1.${k}`);

// The v2 document carries no `default`s (kube-openapi publishes them in v3 only). `properties` maps field
// names to schemas: a field named `default` (LimitRangeItem's) stays.
function withoutDefaults(schema: unknown): Obj {
  const strip = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(strip);
    if (!isObject(x)) return x;
    const out: Obj = {};
    for (const [k, v] of Object.entries(x)) {
      if (k === 'default' || k === 'enum' || k === 'example') {
        if (k !== 'default') out[k] = v;
      } else if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, strip(p)]));
      else out[k] = strip(v);
    }
    return out;
  };
  return strip(schema) as Obj;
}

/** Collects the definitions of a document: model types by name, custom resource schemas. */
class SchemaBuilder {
  readonly definitions: Obj = {};
  readonly #roots = new Set<string>();
  readonly #version: OpenApiVersion;

  constructor(version: OpenApiVersion) {
    this.#version = version;
  }

  /** Adds a model type and everything it references. */
  modelType(name: string): void {
    if (apiModel.types[name] !== undefined) this.#roots.add(name);
  }

  /** Writes the collected model types into the definitions. */
  finish(): Obj {
    for (const name of typeClosure(apiModel, [...this.#roots])) this.definitions[name] ??= this.#version === 'v2' ? withoutDefaults(typeToOpenApi(apiModel, name, 'v2')) : typeToOpenApi(apiModel, name, 'v3');
    return Object.fromEntries(Object.keys(this.definitions).sort().map((k) => [k, this.definitions[k]]));
  }
}

// The query parameters of a PATCH operation (their descriptions are not carried).
function queryParameters(version: OpenApiVersion): Obj[] {
  return ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => {
    const type = name === 'force' ? 'boolean' : 'string';
    return version === 'v3' ? { in: 'query', name, schema: { type, uniqueItems: true } } : { in: 'query', name, type, uniqueItems: true };
  });
}

// apiVersion, kind and metadata as every built-in kind's schema has them (with their descriptions).
function typeMetaProperty(name: string): SchemaNode | undefined {
  return apiModel.types['io.k8s.api.core.v1.ConfigMap']?.schema.properties?.[name];
}

/** The definition name kube-apiserver gives a custom resource: the group reversed, version, kind. */
function customDefinitionName(r: ApiResource): string {
  return `${r.group.split('.').reverse().join('.')}.${r.version}.${r.kind}`;
}

/** The schema of a custom resource version, from its CRD (plus apiVersion, kind and metadata). */
function customSchema(crd: Obj | undefined, r: ApiResource, version: OpenApiVersion): Obj {
  const spec = crd !== undefined && isObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const v = versions.find((x) => x.name === r.version);
  const schema = v !== undefined && isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? structuredClone(v.schema.openAPIV3Schema) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const properties = isObject(schema.properties) ? schema.properties : {};
  // The CRD builder documents apiVersion, kind and metadata as the built-in types do.
  for (const k of ['apiVersion', 'kind', 'metadata']) {
    const node = typeMetaProperty(k);
    properties[k] = node === undefined ? { type: 'string' } : toOpenApiSchema({ ...node, default: undefined }, version);
    delete (properties[k] as Obj).default;
  }
  schema.properties = properties;
  schema['x-kubernetes-group-version-kind'] = [{ group: r.group, kind: r.kind, version: r.version }];
  return schema;
}

/** The CRD objects of the served custom resources, by CRD name. */
export type CrdLookup = (r: ApiResource) => Obj | undefined;

function addResources(b: SchemaBuilder, resources: readonly ApiResource[], crdOf: CrdLookup, version: OpenApiVersion): Obj {
  const refPrefix = version === 'v3' ? '#/components/schemas/' : '#/definitions/';
  const paths: Obj = {};
  for (const r of resources) {
    const gvk = { group: r.group, kind: r.kind, version: r.version };
    let name: string;
    if (r.custom) {
      b.modelType(objectMeta);
      name = customDefinitionName(r);
      b.definitions[name] = customSchema(crdOf(r), r, version);
    } else {
      const m = modelResource(r.group, r.version, r.resource);
      if (m?.type === undefined) continue;
      name = m.type;
      for (const t of [m.type, m.listType, ...m.subresources.map((x) => x.type)]) if (t !== undefined) b.modelType(t);
    }
    if (!r.verbs.includes('patch')) continue;
    const base = `/${gvPath(r.group, r.version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}/{name}`;
    const ok = version === 'v3' ? { description: 'OK', content: { 'application/json': { schema: { $ref: `${refPrefix}${name}` } } } } : { description: 'OK', schema: { $ref: `${refPrefix}${name}` } };
    paths[base] = {
      patch: {
        operationId: `patch${r.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk,
        parameters: queryParameters(version),
        responses: { '200': ok },
      },
    };
  }
  for (const t of metaRoots) b.modelType(t);
  return paths;
}

// The version the embedded server reports in its documents.
const info = { title: 'Kubernetes', version: 'v1.32.0' };

/** The OpenAPI v3 document of one group/version, or undefined when it is not served. */
export function openApiV3GroupVersion(registry: ResourceRegistry, group: string, version: string, crdOf: CrdLookup = () => undefined): Obj | undefined {
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const b = new SchemaBuilder('v3');
  const paths = addResources(b, registry.resources(group, version), crdOf, 'v3');
  return { openapi: '3.0.0', info, paths, components: { schemas: b.finish() } };
}

/** The OpenAPI v3 root: one entry per served group/version, with a content hash for client caches. */
export function openApiV3Root(registry: ResourceRegistry, crdOf: CrdLookup = () => undefined): Obj {
  const paths: Obj = {};
  const gvs: Array<[string, string]> = [['', 'v1'], ...registry.groups().flatMap((g) => g.versions.map((v): [string, string] => [g.name, v]))];
  for (const [group, version] of gvs) {
    const doc = openApiV3GroupVersion(registry, group, version, crdOf);
    if (doc === undefined) continue;
    const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  }
  return { paths };
}

/** The OpenAPI v2 document: every served kind's definitions in one document. */
export function openApiV2(registry: ResourceRegistry, _accept: string | undefined, crdOf: CrdLookup = () => undefined): Obj {
  const b = new SchemaBuilder('v2');
  const paths = addResources(b, registry.all(), crdOf, 'v2');
  return { swagger: '2.0', info, paths, definitions: b.finish() };
}
