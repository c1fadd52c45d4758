/**
 * Stage 2, types: the model's named types → TypeScript modules, one per API package, in two layers:
 *
 * - `api`: the object types (`Pod`, `PodSpec` ...), with TSDoc from the descriptions, required
 *   fields required, `apiVersion`/`kind` as literal types on kinds;
 * - `apply`: deep apply configurations (client-go's applyconfigurations): every field optional,
 *   recursively, except the identity of a root object (`apiVersion`, `kind`, `metadata.name`, and
 *   `metadata.namespace` for namespaced resources) and the keys of list-maps
 *   (`x-kubernetes-list-type: map`), which server-side apply needs to merge list items. A key with a
 *   default in the schema stays optional: the server fills it in before merging.
 *
 * Only interfaces, aliases and small unions are emitted (no conditional or mapped types), so
 * type-checking a consumer stays cheap however large the API is.
 */
import { moduleOfType, simpleNameOfType, type ApiModel, type SchemaNode } from './model.ts';
import { docComment, literal, moduleAlias, propertyKey } from './ts-text.ts';

/** Which layer a module belongs to. */
export type Layer = 'api' | 'apply';

/** A root of the apply configurations: a kind that is written to the API as a whole object. */
export interface ApplyRoot {
  type: string;
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
}

/** How {@link emitTypeModules} names and links modules. */
export interface TypeEmitOptions {
  /** The module of a type name (default: {@link moduleOfType}). */
  moduleOf?: (typeName: string) => string;
  /** The import specifier of `toModule`'s `toLayer` file from `fromModule`'s `fromLayer` file. */
  importOf: (fromModule: string, fromLayer: Layer, toModule: string, toLayer: Layer) => string;
  /** Header comment (first lines) of every file. */
  header: string;
  /** Kinds whose apply configurations are roots; the apply layer covers what they reach. */
  applyRoots: readonly ApplyRoot[];
  /** Only emit modules for types of these modules (default: all). */
  modules?: ReadonlySet<string>;
}

/** One emitted module. */
export interface EmittedModule {
  layer: Layer;
  module: string;
  text: string;
}

/**
 * Types whose schema does not say what their JSON looks like (they marshal themselves in Go);
 * their TypeScript shape is written here, from the Go types' MarshalJSON/UnmarshalJSON.
 */
const customTypes: Record<string, string> = {
  // staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go: always serialised as a string.
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'string',
  // staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types_jsonschema.go
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': 'JSONSchemaProps | JSONSchemaProps[]',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': 'JSONSchemaProps | boolean',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': 'JSONSchemaProps | string[]',
};

/** The type every struct-less object schema stands for. */
const anyObject = '{ [key: string]: unknown }';

const metaModule = 'meta/v1';
const objectMetaType = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** Whether a schema describes a struct (an object with named fields). */
function isStruct(schema: SchemaNode | undefined): boolean {
  return schema !== undefined && schema.properties !== undefined && Object.keys(schema.properties).length > 0;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface ModuleWriter {
  module: string;
  layer: Layer;
  imports: Map<string, { module: string; layer: Layer }>;
  body: string[];
}

/** Emits the `api` and `apply` modules of the model's types. Output order is stable. */
export function emitTypeModules(model: ApiModel, options: TypeEmitOptions): EmittedModule[] {
  const moduleOf = options.moduleOf ?? moduleOfType;
  const roots = new Map(options.applyRoots.map((r) => [r.type, r] as const));
  const applyTypes = applyClosure(model, options.applyRoots);

  const writers = new Map<string, ModuleWriter>();
  const writer = (module: string, layer: Layer): ModuleWriter => {
    const key = `${layer}:${module}`;
    let w = writers.get(key);
    if (w === undefined) writers.set(key, (w = { module, layer, imports: new Map(), body: [] }));
    return w;
  };

  const names = Object.keys(model.types).sort((a, b) => compare(moduleOf(a), moduleOf(b)) || compare(simpleNameOfType(a), simpleNameOfType(b)));
  for (const name of names) {
    const module = moduleOf(name);
    if (options.modules !== undefined && !options.modules.has(module)) continue;
    const type = model.types[name]!;
    const w = writer(module, 'api');
    const ref = refWriter(w, moduleOf);
    w.body.push(emitObjectType(name, type.schema, type.gvk, ref));
    if (applyTypes.has(name)) {
      const aw = writer(module, 'apply');
      aw.body.push(emitApplyType(name, type.schema, roots.get(name), refWriter(aw, moduleOf), model, moduleOf));
    }
  }

  const out: EmittedModule[] = [];
  for (const w of [...writers.values()].sort((a, b) => compare(a.layer, b.layer) || compare(a.module, b.module))) {
    const imports = [...w.imports.entries()]
      .sort(([a], [b]) => compare(a, b))
      .map(([alias, target]) => `import type * as ${alias} from '${options.importOf(w.module, w.layer, target.module, target.layer)}';\n`)
      .join('');
    const text = `${options.header}${imports === '' ? '' : `${imports}\n`}${w.body.join('\n')}`;
    out.push({ layer: w.layer, module: w.module, text });
  }
  return out;
}

/** Resolves a referenced type to a name usable in the writer's module, recording the import. */
type RefResolver = (typeName: string, layer: Layer) => string;

function refWriter(w: ModuleWriter, moduleOf: (t: string) => string): RefResolver {
  return (typeName, layer) => {
    const module = moduleOf(typeName);
    const simple = simpleNameOfType(typeName) + (layer === 'apply' ? 'ApplyConfiguration' : '');
    if (module === w.module && layer === w.layer) return simple;
    const alias = `${moduleAlias(module)}${layer === 'apply' ? 'Apply' : ''}`;
    w.imports.set(alias, { module, layer });
    return `${alias}.${simple}`;
  };
}

/** The types the apply layer needs: struct types reachable from the roots. */
function applyClosure(model: ApiModel, roots: readonly ApplyRoot[]): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    const type = model.types[name];
    if (type === undefined || !isStruct(type.schema)) return;
    seen.add(name);
    walkRefs(type.schema, visit);
  };
  for (const r of roots) visit(r.type);
  return seen;
}

function walkRefs(node: SchemaNode, visit: (name: string) => void): void {
  if (node.ref !== undefined) visit(node.ref);
  for (const p of Object.values(node.properties ?? {})) walkRefs(p, visit);
  if (typeof node.additionalProperties === 'object') walkRefs(node.additionalProperties, visit);
  if (node.items !== undefined) walkRefs(node.items, visit);
  for (const alt of [...(node.oneOf ?? []), ...(node.anyOf ?? [])]) walkRefs(alt, visit);
}

function emitObjectType(name: string, schema: SchemaNode, gvk: ApiModel['types'][string]['gvk'], ref: RefResolver): string {
  const simple = simpleNameOfType(name);
  const doc = docComment(schema.description);
  const custom = customTypes[name];
  if (custom !== undefined) return `${doc}export type ${simple} = ${custom};\n`;
  // A named object without fields (RawExtension, FieldsV1) holds arbitrary JSON objects; `object`
  // keeps values of the kubernetes-types package (empty interfaces there) assignable.
  if (schema.type === 'object' && !isStruct(schema) && schema.additionalProperties === undefined) return `${doc}export type ${simple} = object;\n`;
  if (!isStruct(schema)) return `${doc}export type ${simple} = ${tsType({ ...schema, description: undefined }, ref, 'api')};\n`;
  const required = new Set(schema.required ?? []);
  const single = gvk !== undefined && gvk.length === 1 ? gvk[0]! : undefined;
  const lines: string[] = [];
  for (const field of Object.keys(schema.properties!).sort(compare)) {
    const prop = schema.properties![field]!;
    let type = tsType(prop, ref, 'api');
    if (single !== undefined && field === 'apiVersion' && prop.type === 'string') type = literal(single.group === '' ? single.version : `${single.group}/${single.version}`);
    if (single !== undefined && field === 'kind' && prop.type === 'string') type = literal(single.kind);
    lines.push(`${docComment(prop.description, '  ')}  ${propertyKey(field)}${required.has(field) ? '' : '?'}: ${type};\n`);
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) lines.push('  [key: string]: unknown;\n');
  return `${doc}export interface ${simple} {\n${lines.join('')}}\n`;
}

function emitApplyType(name: string, schema: SchemaNode, root: ApplyRoot | undefined, ref: RefResolver, model: ApiModel, moduleOf: (t: string) => string): string {
  const simple = `${simpleNameOfType(name)}ApplyConfiguration`;
  const lines: string[] = [];
  for (const field of Object.keys(schema.properties!).sort(compare)) {
    const prop = schema.properties![field]!;
    let type = applyType(prop, ref, model);
    let optional = true;
    if (root !== undefined) {
      if (field === 'apiVersion') {
        type = literal(root.group === '' ? root.version : `${root.group}/${root.version}`);
        optional = false;
      } else if (field === 'kind') {
        type = literal(root.kind);
        optional = false;
      } else if (field === 'metadata' && prop.ref === objectMetaType) {
        type = `${ref(objectMetaType, 'apply')} & { name: string${root.namespaced ? '; namespace: string' : ''} }`;
        optional = false;
      }
    }
    lines.push(`${docComment(prop.description, '  ')}  ${propertyKey(field)}${optional ? '?' : ''}: ${type};\n`);
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) lines.push('  [key: string]: unknown;\n');
  const what = root !== undefined ? `An apply configuration of a whole ${root.kind} (server-side apply): identity required, every other field optional.` : 'An apply configuration (server-side apply): every field optional.';
  // The object type is named in plain text: a {@link} would import a module only for the comment.
  return `/** ${what} Object type: \`${simpleNameOfType(name)}\` (${moduleOf(name)}). */\nexport interface ${simple} {\n${lines.join('')}}\n`;
}

/** The TypeScript type of a schema node in the object layer. */
function tsType(node: SchemaNode, ref: RefResolver, layer: Layer): string {
  const base = baseType(node, ref, layer, (n) => tsType(n, ref, layer));
  return node.nullable === true ? `${base} | null` : base;
}

function baseType(node: SchemaNode, ref: RefResolver, layer: Layer, inner: (n: SchemaNode) => string): string {
  if (node.ref !== undefined) return ref(node.ref, layer);
  if (node['x-kubernetes-int-or-string'] === true) return 'number | string';
  if (node.enum !== undefined && node.enum.length > 0 && node.enum.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) {
    return node.enum.map((v) => (typeof v === 'string' ? literal(v) : String(v))).join(' | ');
  }
  switch (node.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const item = node.items === undefined ? 'unknown' : inner(node.items);
      return /[|&\s]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object':
      if (isStruct(node)) return inlineStruct(node, inner);
      if (typeof node.additionalProperties === 'object') return `{ [key: string]: ${inner(node.additionalProperties)} }`;
      return anyObject;
    default:
      if (node.oneOf !== undefined || node.anyOf !== undefined) {
        const alts = [...new Set([...(node.oneOf ?? []), ...(node.anyOf ?? [])].map(inner))];
        return alts.length === 0 ? 'unknown' : alts.join(' | ');
      }
      if (node['x-kubernetes-preserve-unknown-fields'] === true && isStruct(node)) return inlineStruct(node, inner);
      return 'unknown';
  }
}

function inlineStruct(node: SchemaNode, inner: (n: SchemaNode) => string): string {
  const required = new Set(node.required ?? []);
  const fields = Object.keys(node.properties!)
    .sort(compare)
    .map((f) => `${propertyKey(f)}${required.has(f) ? '' : '?'}: ${inner(node.properties![f]!)}`);
  return `{ ${fields.join('; ')} }`;
}

/** The TypeScript type of a schema node in the apply layer. */
function applyType(node: SchemaNode, ref: RefResolver, model: ApiModel): string {
  const inner = (n: SchemaNode): string => applyType(n, ref, model);
  let base: string;
  if (node.ref !== undefined) {
    // Types outside the model (ObjectMeta, for CRD models) are structs with apply configurations.
    const target = model.types[node.ref];
    const struct = target === undefined || (isStruct(target.schema) && customTypes[node.ref] === undefined);
    base = ref(node.ref, struct ? 'apply' : 'api');
  } else if (node.type === 'array' && node.items !== undefined && node['x-kubernetes-list-type'] === 'map') {
    const keys = requiredListMapKeys(node.items, node['x-kubernetes-list-map-keys'] ?? [], model);
    const item = inner(node.items);
    base = keys.length === 0 ? `Array<${item}>` : `Array<${item} & { ${keys.map((k) => `${propertyKey(k.name)}: ${k.type}`).join('; ')} }>`;
  } else if (node.type === 'object' && isStruct(node)) {
    base = `{ ${Object.keys(node.properties!)
      .sort(compare)
      .map((f) => `${propertyKey(f)}?: ${inner(node.properties![f]!)}`)
      .join('; ')} }`;
  } else {
    base = baseType(node, ref, 'api', inner);
  }
  return node.nullable === true ? `${base} | null` : base;
}

/**
 * The list-map keys an apply configuration must set: all of them, except keys whose schema gives a
 * real default (ContainerPort.protocol defaults to "TCP"), which server-side apply fills in before
 * merging. The built-in documents also carry Go zero values as defaults for non-pointer fields
 * (`""`, `0`, `false`); those do not make a key optional (EnvVar.name, ContainerPort.containerPort).
 */
function requiredListMapKeys(items: SchemaNode, keys: readonly string[], model: ApiModel): Array<{ name: string; type: string }> {
  const schema = items.ref !== undefined ? model.types[items.ref]?.schema : items;
  const out: Array<{ name: string; type: string }> = [];
  for (const key of keys) {
    const prop = schema?.properties?.[key];
    if (prop === undefined || (prop.default !== undefined && prop.default !== '' && prop.default !== 0 && prop.default !== false)) continue;
    out.push({ name: key, type: scalarType(prop) });
  }
  return out;
}

function scalarType(node: SchemaNode): string {
  if (node['x-kubernetes-int-or-string'] === true) return 'number | string';
  if (node.enum !== undefined && node.enum.every((v) => typeof v === 'string')) return node.enum.map((v) => literal(v as string)).join(' | ');
  if (node.type === 'integer' || node.type === 'number') return 'number';
  if (node.type === 'boolean') return 'boolean';
  return 'string';
}

export { metaModule, objectMetaType };
