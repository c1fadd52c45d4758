/**
 * CustomResourceDefinitions → the {@link ApiModel}, and that model → TypeScript for
 * `kubeloom generate crd`.
 *
 * Every served version of every CRD becomes a group-version with one resource, and its
 * `openAPIV3Schema` one model type, named as kube-apiserver publishes CRD schemas in its OpenAPI
 * (reversed group, version, kind: `com.example.v1.Widget`; see
 * staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder/builder.go). The schema
 * is kept as written (normalised and checked structural), so it can be exported again unchanged.
 *
 * For TypeScript, {@link typeScriptModelOf} then hoists every inline object into a named type
 * (`WidgetSpec`, `WidgetSpecTemplate`, ...), points `metadata` at ObjectMeta and adds the
 * `apiVersion`/`kind`/`metadata` fields every object and embedded resource has on the wire.
 */
import { SchemaInputError, jsonPathChild } from './errors.ts';
import { MODEL_FORMAT, simpleNameOfType, type ApiModel, type GroupVersionModel, type SchemaNode, type TypeModel } from './model.ts';
import { normalizeSchema, sortKeys } from './normalize-schema.ts';
import { sha256 } from './openapi-model.ts';
import { pascalCase } from './ts-text.ts';

/** One parsed document that may hold a CRD, and where it came from (for errors). */
export interface CrdDocument {
  /** File name, with the document's index when the file holds several (`crds.yaml#2`). */
  source: string;
  /** The file it was read from, and the file's text (its digest is recorded in the model). */
  file?: string;
  text?: string;
  object: unknown;
}

/** The registration facts of one CRD version, kept beside the model for emission. */
export interface CrdVersionInfo {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  subresources: string[];
  /** Model type name of the version's root schema. */
  type: string;
}

const objectMetaType = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The OpenAPI package of a CRD version: the group reversed, then the version (`com.example.v1`). */
export function crdPackage(group: string, version: string): string {
  return [...group.split('.').reverse(), version].join('.');
}

/** Whether a parsed document is a CustomResourceDefinition (any apiextensions version). */
export function isCrd(object: unknown): boolean {
  return isRecord(object) && object['kind'] === 'CustomResourceDefinition' && typeof object['apiVersion'] === 'string' && object['apiVersion'].startsWith('apiextensions.k8s.io/');
}

function str(obj: Record<string, unknown>, key: string, at: string, source: string): string {
  const v = obj[key];
  if (typeof v !== 'string' || v === '') throw new SchemaInputError(source, jsonPathChild(at, key), 'must be a non-empty string');
  return v;
}

/** Builds the model of the CRDs among `documents` (other documents are ignored). */
export function buildModelFromCrds(documents: readonly CrdDocument[]): { model: ApiModel; versions: CrdVersionInfo[] } {
  const types: Record<string, TypeModel> = {};
  const versions: CrdVersionInfo[] = [];
  const gvs = new Map<string, GroupVersionModel>();
  const files = new Map<string, string>();
  for (const doc of documents) {
    if (!isCrd(doc.object)) continue;
    const crd = doc.object as Record<string, unknown>;
    if (crd['apiVersion'] !== 'apiextensions.k8s.io/v1') throw new SchemaInputError(doc.source, '$.apiVersion', `only apiextensions.k8s.io/v1 CRDs are supported, not ${String(crd['apiVersion'])}`);
    if (doc.text !== undefined) files.set(doc.file ?? doc.source, sha256(doc.text));
    const spec = crd['spec'];
    if (!isRecord(spec)) throw new SchemaInputError(doc.source, '$.spec', 'a CRD needs a spec');
    const group = str(spec, 'group', '$.spec', doc.source);
    const names = spec['names'];
    if (!isRecord(names)) throw new SchemaInputError(doc.source, '$.spec.names', 'a CRD needs names');
    const kind = str(names, 'kind', '$.spec.names', doc.source);
    const plural = str(names, 'plural', '$.spec.names', doc.source);
    const scope = spec['scope'];
    if (scope !== 'Namespaced' && scope !== 'Cluster') throw new SchemaInputError(doc.source, '$.spec.scope', 'must be Namespaced or Cluster');
    const list = spec['versions'];
    if (!Array.isArray(list) || list.length === 0) throw new SchemaInputError(doc.source, '$.spec.versions', 'a CRD needs at least one version');
    for (const [i, v] of list.entries()) {
      const at = `$.spec.versions[${i}]`;
      if (!isRecord(v)) throw new SchemaInputError(doc.source, at, 'a version must be an object');
      if (v['served'] === false) continue;
      const version = str(v, 'name', at, doc.source);
      const schemaAt = `${at}.schema.openAPIV3Schema`;
      const raw = isRecord(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
      if (raw === undefined) throw new SchemaInputError(doc.source, schemaAt, 'missing: every served version needs a structural schema');
      const schema = normalizeSchema(raw, schemaAt, { file: doc.source, mode: 'crd' });
      if (schema.type !== 'object') throw new SchemaInputError(doc.source, jsonPathChild(schemaAt, 'type'), 'the root of a CRD schema must be of type object');
      const type = `${crdPackage(group, version)}.${kind}`;
      if (types[type] !== undefined) throw new SchemaInputError(doc.source, at, `${group}/${version} ${kind} is defined twice`);
      types[type] = { gvk: [{ group, version, kind }], schema };
      const subs = isRecord(v['subresources']) ? Object.keys(v['subresources']).filter((s) => s === 'status' || s === 'scale').sort() : [];
      versions.push({ group, version, kind, plural, namespaced: scope === 'Namespaced', subresources: subs, type });
      const key = `${group}/${version}`;
      let gv = gvs.get(key);
      if (gv === undefined) gvs.set(key, (gv = { group, version, resources: [] }));
      gv.resources.push({
        name: plural,
        kind,
        type,
        namespaced: scope === 'Namespaced',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        subresources: subs.map((s) =>
          s === 'scale'
            ? { name: s, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] }
            : { name: s, group, version, kind, type, verbs: ['get', 'patch', 'update'] },
        ),
      });
    }
  }
  const sortedTypes: Record<string, TypeModel> = {};
  for (const name of Object.keys(types).sort(compare)) sortedTypes[name] = types[name]!;
  const groupVersions = [...gvs.values()].sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version));
  for (const gv of groupVersions) gv.resources.sort((a, b) => compare(a.name, b.name));
  return {
    model: {
      format: MODEL_FORMAT,
      source: { repository: 'crd', path: '', ref: '', kubernetesVersion: '', files: [...files.entries()].sort(([a], [b]) => compare(a, b)).map(([name, digest]) => ({ name, sha256: digest })) },
      groupVersions,
      types: sortedTypes,
    },
    versions: versions.sort((a, b) => compare(a.type, b.type)),
  };
}

/**
 * The model as TypeScript emission needs it: inline objects hoisted into named types, `metadata`
 * a reference to ObjectMeta, and `apiVersion`, `kind` and `metadata` present on every root and
 * embedded resource.
 */
export function typeScriptModelOf(model: ApiModel): ApiModel {
  const types: Record<string, TypeModel> = {};
  const taken = new Set<string>();
  const claim = (pkg: string, simple: string): string => {
    let name = `${pkg}.${simple}`;
    for (let n = 2; taken.has(name); n++) name = `${pkg}.${simple}${n}`;
    taken.add(name);
    return name;
  };
  for (const name of Object.keys(model.types)) taken.add(name);

  const hoist = (node: SchemaNode, pkg: string, typeName: string, root: boolean): SchemaNode => {
    const out: SchemaNode = { ...node };
    if (out.properties !== undefined) {
      const props: Record<string, SchemaNode> = {};
      for (const [field, prop] of Object.entries(out.properties)) {
        if (root && field === 'metadata') {
          props[field] = { ref: objectMetaType, ...(prop.description !== undefined ? { description: prop.description } : {}) };
          continue;
        }
        props[field] = child(prop, pkg, `${simpleNameOfType(typeName)}${pascalCase(field)}`);
      }
      out.properties = props;
    }
    if (root || out['x-kubernetes-embedded-resource'] === true) {
      out.properties = {
        apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
        kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
        metadata: { ref: objectMetaType, description: "Standard object's metadata." },
        ...out.properties,
      };
      if (!root) out.required = [...new Set([...(out.required ?? []), 'apiVersion', 'kind'])].sort(compare);
    }
    if (typeof out.additionalProperties === 'object') out.additionalProperties = child(out.additionalProperties, pkg, `${simpleNameOfType(typeName)}Value`);
    if (out.items !== undefined) out.items = child(out.items, pkg, `${simpleNameOfType(typeName)}Item`);
    return sortKeys(out);
  };

  /** A field's schema: objects with fields (or embedded resources) become named types. */
  const child = (node: SchemaNode, pkg: string, simple: string): SchemaNode => {
    const named = (node.properties !== undefined && Object.keys(node.properties).length > 0) || node['x-kubernetes-embedded-resource'] === true;
    if (!named) {
      const out: SchemaNode = { ...node };
      if (typeof out.additionalProperties === 'object') out.additionalProperties = child(out.additionalProperties, pkg, simple);
      if (out.items !== undefined) out.items = child(out.items, pkg, simple);
      return out;
    }
    const name = claim(pkg, simple);
    types[name] = { schema: hoist(node, pkg, name, false) };
    const ref: SchemaNode = { ref: name };
    if (node.description !== undefined) ref.description = node.description;
    if (node.nullable === true) ref.nullable = true;
    return ref;
  };

  for (const [name, type] of Object.entries(model.types)) {
    const pkg = name.slice(0, name.lastIndexOf('.'));
    types[name] = { ...type, schema: hoist(type.schema, pkg, name, true) };
  }
  const sorted: Record<string, TypeModel> = {};
  for (const name of Object.keys(types).sort(compare)) sorted[name] = types[name]!;
  return { ...model, types: sorted };
}
