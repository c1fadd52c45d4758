/**
 * OpenAPI documents: v2 (/openapi/v2) and v3 (/openapi/v3 and /openapi/v3/<group-version>), with the
 * schemas of every served kind so that `kubectl explain` and schema-driven clients work:
 *
 * - built-in kinds: derived from the server's Go type table (schema/go-types.ts) — field names, types,
 *   formats and required fields; the descriptions of upstream's documents are not carried;
 * - custom resources: each served version's `openAPIV3Schema` from its CRD, with apiVersion, kind and
 *   metadata added as kube-apiserver's CRD OpenAPI builder adds them.
 *
 * Paths carry one PATCH operation per kind with `x-kubernetes-group-version-kind` and the
 * `fieldValidation` parameter (what kubectl reads to decide that the server validates fields itself).
 *
 * Upstream: `kube-openapi/pkg/handler` and `handler3`, `apiextensions-apiserver/pkg/controller/openapi/builder`.
 */
import { createHash } from 'node:crypto';
import { isObject } from './object-meta.ts';
import type { ApiResource, ResourceRegistry } from './resources.ts';
import { goStruct, structOfKind, type GoStruct, type GoType } from './schema/scheme.ts';
import { apiVersionString } from './resources.ts';

type Obj = Record<string, unknown>;

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

const packagePrefixes: Readonly<Record<string, string>> = {
  meta: 'io.k8s.apimachinery.pkg.apis.meta',
};

/** The OpenAPI definition name of a Go struct (`core/v1.Pod` → `io.k8s.api.core.v1.Pod`). */
export function definitionName(struct: string): string {
  const pkg = struct.slice(0, struct.indexOf('/'));
  const rest = struct.slice(struct.indexOf('/') + 1);
  return `${packagePrefixes[pkg] ?? `io.k8s.api.${pkg}`}.${rest}`;
}

const specialDefinitions: Readonly<Record<string, [string, Obj]>> = {
  Quantity: ['io.k8s.apimachinery.pkg.api.resource.Quantity', { type: 'string' }],
  IntOrString: ['io.k8s.apimachinery.pkg.util.intstr.IntOrString', { type: 'string', format: 'int-or-string' }],
  Time: ['io.k8s.apimachinery.pkg.apis.meta.v1.Time', { type: 'string', format: 'date-time' }],
  MicroTime: ['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', { type: 'string', format: 'date-time' }],
  RawExtension: ['io.k8s.apimachinery.pkg.runtime.RawExtension', { type: 'object' }],
  FieldsV1: ['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1', { type: 'object' }],
};

/** Builds the schemas of structs reachable from some roots. */
class SchemaBuilder {
  readonly definitions: Obj = {};
  readonly #ref: (name: string) => string;

  constructor(refPrefix: string) {
    this.#ref = (name) => `${refPrefix}${name}`;
  }

  type(t: GoType): Obj {
    switch (t.kind) {
      case 'list':
        return { type: 'array', items: this.type(t.of) };
      case 'map':
        return { type: 'object', additionalProperties: this.type(t.of) };
      case 'struct':
        this.struct(goStruct(t.name)!);
        return { $ref: this.#ref(definitionName(t.name)) };
      case 'scalar':
        switch (t.name) {
          case 'string':
            return { type: 'string' };
          case 'int32':
            return { type: 'integer', format: 'int32' };
          case 'int64':
            return { type: 'integer', format: 'int64' };
          case 'bool':
            return { type: 'boolean' };
          case 'float64':
            return { type: 'number', format: 'double' };
          case 'bytes':
            return { type: 'string', format: 'byte' };
          case 'Duration':
            return { type: 'string' };
          default: {
            const [name, schema] = specialDefinitions[t.name]!;
            this.definitions[name] ??= schema;
            return { $ref: this.#ref(name) };
          }
        }
    }
  }

  /** Adds a struct (and everything it references); returns its definition name. */
  struct(s: GoStruct, gvk?: Obj): string {
    const name = definitionName(s.name);
    if (this.definitions[name] !== undefined) {
      if (gvk !== undefined) (this.definitions[name] as Obj)['x-kubernetes-group-version-kind'] = [gvk];
      return name;
    }
    const schema: Obj = { type: 'object' };
    this.definitions[name] = schema;
    const properties: Obj = {};
    const required: string[] = [];
    if (s.typeMeta) {
      properties.apiVersion = { type: 'string' };
      properties.kind = { type: 'string' };
    }
    for (const f of s.fields) {
      if (f.inline && f.type.kind === 'struct') {
        const inner = goStruct(f.type.name)!;
        for (const g of inner.fields) properties[g.json] = this.type(g.type);
        continue;
      }
      properties[f.json] = this.type(f.type);
      if (!f.omitempty && !f.pointer) required.push(f.json);
    }
    schema.properties = Object.fromEntries(Object.keys(properties).sort().map((k) => [k, properties[k]]));
    if (required.length > 0) schema.required = required;
    if (gvk !== undefined) schema['x-kubernetes-group-version-kind'] = [gvk];
    return name;
  }
}

const queryParameters = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string' }, uniqueItems: true }));

/** The definition name kube-apiserver gives a custom resource: the group reversed, version, kind. */
function customDefinitionName(r: ApiResource): string {
  return `${r.group.split('.').reverse().join('.')}.${r.version}.${r.kind}`;
}

/** The schema of a custom resource version, from its CRD (plus apiVersion, kind and metadata). */
function customSchema(crd: Obj | undefined, r: ApiResource, refPrefix: string): Obj {
  const spec = crd !== undefined && isObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const v = versions.find((x) => x.name === r.version);
  const schema = v !== undefined && isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? structuredClone(v.schema.openAPIV3Schema) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const properties = isObject(schema.properties) ? schema.properties : {};
  properties.apiVersion = { type: 'string' };
  properties.kind = { type: 'string' };
  properties.metadata = { $ref: `${refPrefix}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta` };
  schema.properties = properties;
  schema['x-kubernetes-group-version-kind'] = [{ group: r.group, kind: r.kind, version: r.version }];
  return schema;
}

/** The CRD objects of the served custom resources, by CRD name. */
export type CrdLookup = (r: ApiResource) => Obj | undefined;

function addResources(b: SchemaBuilder, resources: readonly ApiResource[], crdOf: CrdLookup, refPrefix: string): Obj {
  const paths: Obj = {};
  for (const r of resources) {
    const gvk = { group: r.group, kind: r.kind, version: r.version };
    let name: string;
    if (r.custom) {
      b.struct(goStruct('meta/v1.ObjectMeta')!);
      name = customDefinitionName(r);
      b.definitions[name] = customSchema(crdOf(r), r, refPrefix);
    } else {
      const s = structOfKind(apiVersionString(r.group, r.version), r.kind);
      if (s === undefined) continue;
      name = b.struct(s, gvk);
      const list = structOfKind(apiVersionString(r.group, r.version), `${r.kind}List`);
      if (list !== undefined) b.struct(list, { ...gvk, kind: `${r.kind}List` });
    }
    if (!r.verbs.includes('patch')) continue;
    const base = `/${gvPath(r.group, r.version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${r.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk,
        parameters: queryParameters,
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `${refPrefix}${name}` } } } } },
      },
    };
  }
  return paths;
}

// The version the embedded server reports in its documents.
const info = { title: 'Kubernetes', version: 'v1.32.0' };

/** The OpenAPI v3 document of one group/version, or undefined when it is not served. */
export function openApiV3GroupVersion(registry: ResourceRegistry, group: string, version: string, crdOf: CrdLookup = () => undefined): Obj | undefined {
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const b = new SchemaBuilder('#/components/schemas/');
  const paths = addResources(b, registry.resources(group, version), crdOf, '#/components/schemas/');
  return { openapi: '3.0.0', info, paths, components: { schemas: b.definitions } };
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
  const b = new SchemaBuilder('#/definitions/');
  const paths = addResources(b, registry.all(), crdOf, '#/definitions/');
  return { swagger: '2.0', info, paths, definitions: b.definitions };
}
