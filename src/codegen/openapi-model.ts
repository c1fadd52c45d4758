/**
 * Stage 1 of the generator: Kubernetes' published OpenAPI v3 documents (one per group-version,
 * api/openapi-spec/v3/*.json in kubernetes/kubernetes, as kube-apiserver serves them under
 * /openapi/v3) → the {@link ApiModel}.
 *
 * Types come from `components.schemas` (each document repeats the types it references; copies
 * must agree). Resources come from `paths`: the `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind` of every operation say which verb it is and which kind it
 * serves; `/namespaces/{namespace}/` in the path makes a resource namespaced; a third segment after
 * the resource name is a subresource; `/watch/` paths add the watch verb. Group-level discovery
 * documents (`apis__apps_openapi.json`) and non-resource documents (`version_openapi.json`) carry
 * no resources and contribute nothing.
 */
import { createHash } from 'node:crypto';
import { SchemaInputError, jsonPathChild } from './errors.ts';
import { MODEL_FORMAT, type ApiModel, type GroupVersionModel, type ModelGroupVersionKind, type ModelSource, type ResourceModel, type SubresourceModel, type TypeModel, type Verb } from './model.ts';
import { normalizeSchema, sortKeys } from './normalize-schema.ts';

/** One input document. */
export interface OpenApiDocument {
  /** File name, e.g. `api__v1_openapi.json` (named in errors and recorded with its digest). */
  name: string;
  /** The file's bytes as text. */
  text: string;
}

/** Where the documents came from (recorded in the model; the digests are computed here). */
export type OpenApiSourceInfo = Omit<ModelSource, 'files'>;

/** Operation action → discovery verb. */
const actionVerbs: Record<string, Verb> = {
  get: 'get',
  list: 'list',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
  watch: 'watch',
  watchlist: 'watch',
  connect: 'connect',
};

const verbOrder: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch', 'connect'];

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The SHA-256 of a text, hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

interface ResourceDraft {
  name: string;
  kind?: string;
  namespaced: boolean;
  verbs: Set<Verb>;
  subresources: Map<string, { gvk?: ModelGroupVersionKind; type?: string; verbs: Set<Verb>; text: boolean }>;
}

/** Builds the model from the documents. Order of `documents` does not matter. */
export function buildModelFromOpenApi(documents: readonly OpenApiDocument[], source: OpenApiSourceInfo): ApiModel {
  const sorted = [...documents].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const types = new Map<string, { model: TypeModel; json: string; file: string }>();
  const groupVersions = new Map<string, { group: string; version: string; resources: Map<string, ResourceDraft> }>();

  for (const doc of sorted) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(doc.text);
    } catch (err) {
      throw new SchemaInputError(doc.name, '$', 'not valid JSON', { cause: err });
    }
    if (!isRecord(parsed)) throw new SchemaInputError(doc.name, '$', 'an OpenAPI document must be an object');
    if (typeof parsed['openapi'] !== 'string' || !parsed['openapi'].startsWith('3.')) throw new SchemaInputError(doc.name, '$.openapi', 'not an OpenAPI 3 document');
    const schemas = isRecord(parsed['components']) ? parsed['components']['schemas'] : undefined;
    if (schemas !== undefined && !isRecord(schemas)) throw new SchemaInputError(doc.name, '$.components.schemas', 'must be an object');
    for (const [name, raw] of Object.entries(schemas ?? {})) {
      const at = jsonPathChild('$.components.schemas', name);
      const model = typeModelOf(raw, at, doc.name);
      const json = JSON.stringify(model);
      const seen = types.get(name);
      if (seen === undefined) types.set(name, { model, json, file: doc.name });
      else if (seen.json !== json) throw new SchemaInputError(doc.name, at, `differs from the definition of the same type in ${seen.file}`);
    }
    const paths = parsed['paths'];
    if (paths !== undefined && !isRecord(paths)) throw new SchemaInputError(doc.name, '$.paths', 'must be an object');
    for (const [path, item] of Object.entries(paths ?? {})) collectPath(doc.name, path, item, groupVersions);
  }

  const gvs: GroupVersionModel[] = [];
  for (const { group, version, resources } of [...groupVersions.values()].sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version))) {
    const list: ResourceModel[] = [];
    for (const draft of [...resources.values()].sort((a, b) => compare(a.name, b.name))) {
      if (draft.kind === undefined) continue;
      const type = findKindType(types, { group, version, kind: draft.kind });
      const listType = findKindType(types, { group, version, kind: `${draft.kind}List` });
      const subresources: SubresourceModel[] = [...draft.subresources.entries()]
        .sort(([a], [b]) => compare(a, b))
        .map(([name, s]) => {
          const gvk = s.gvk ?? { group, version, kind: draft.kind! };
          const sub: SubresourceModel = { name, group: gvk.group, version: gvk.version, kind: gvk.kind, verbs: orderVerbs(s.verbs) };
          const subType = s.type ?? findKindType(types, gvk);
          if (subType !== undefined && !s.text) sub.type = subType;
          if (s.text) sub.text = true;
          return sub;
        });
      const resource: ResourceModel = { name: draft.name, kind: draft.kind, namespaced: draft.namespaced, verbs: orderVerbs(draft.verbs), subresources };
      if (type !== undefined) resource.type = type;
      if (listType !== undefined) resource.listType = listType;
      list.push(resource);
    }
    if (list.length > 0) gvs.push({ group, version, resources: list });
  }

  const typeRecord: Record<string, TypeModel> = {};
  for (const name of [...types.keys()].sort(compare)) typeRecord[name] = types.get(name)!.model;
  for (const [name, { file }] of types) checkRefs(typeRecord[name]!.schema, typeRecord, file, jsonPathChild('$.components.schemas', name));

  return {
    format: MODEL_FORMAT,
    source: { ...source, files: sorted.map((d) => ({ name: d.name, sha256: sha256(d.text) })) },
    groupVersions: gvs,
    types: typeRecord,
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function orderVerbs(verbs: Set<Verb>): Verb[] {
  return verbOrder.filter((v) => verbs.has(v));
}

function typeModelOf(raw: unknown, at: string, file: string): TypeModel {
  if (!isRecord(raw)) throw new SchemaInputError(file, at, 'a schema must be an object');
  const { 'x-kubernetes-group-version-kind': gvkRaw, ...rest } = raw;
  const model: TypeModel = { schema: normalizeSchema(rest, at, { file, mode: 'openapi' }) };
  if (gvkRaw !== undefined) {
    if (!Array.isArray(gvkRaw)) throw new SchemaInputError(file, jsonPathChild(at, 'x-kubernetes-group-version-kind'), 'must be an array');
    model.gvk = gvkRaw.map((g, i) => gvkOf(g, `${at}["x-kubernetes-group-version-kind"][${i}]`, file));
  }
  return model;
}

function gvkOf(raw: unknown, at: string, file: string): ModelGroupVersionKind {
  if (!isRecord(raw) || typeof raw['group'] !== 'string' || typeof raw['version'] !== 'string' || typeof raw['kind'] !== 'string') {
    throw new SchemaInputError(file, at, 'a group-version-kind needs string group, version and kind');
  }
  return { group: raw['group'], version: raw['version'], kind: raw['kind'] };
}

function findKindType(types: Map<string, { model: TypeModel }>, gvk: ModelGroupVersionKind): string | undefined {
  for (const [name, { model }] of [...types.entries()].sort(([a], [b]) => compare(a, b))) {
    if (model.gvk?.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind) === true) return name;
  }
  return undefined;
}

function checkRefs(node: unknown, types: Record<string, TypeModel>, file: string, at: string): void {
  if (Array.isArray(node)) {
    node.forEach((n, i) => checkRefs(n, types, file, `${at}[${i}]`));
    return;
  }
  if (!isRecord(node)) return;
  if (typeof node['ref'] === 'string' && types[node['ref']] === undefined) throw new SchemaInputError(file, at, `reference to undefined type "${node['ref']}"`);
  for (const [k, v] of Object.entries(node)) {
    if (k === 'default' || k === 'example' || k === 'enum') continue;
    checkRefs(v, types, file, jsonPathChild(at, k));
  }
}

/** Splits `/api/v1/...` and `/apis/{group}/{version}/...` paths; undefined for other paths. */
function splitApiPath(path: string): { group: string; version: string; rest: string[] } | undefined {
  const parts = path.split('/').slice(1);
  if (parts[0] === 'api' && parts.length >= 3) return { group: '', version: parts[1]!, rest: parts.slice(2) };
  if (parts[0] === 'apis' && parts.length >= 4) return { group: parts[1]!, version: parts[2]!, rest: parts.slice(3) };
  return undefined;
}

function collectPath(file: string, path: string, item: unknown, groupVersions: Map<string, { group: string; version: string; resources: Map<string, ResourceDraft> }>): void {
  const at = jsonPathChild('$.paths', path);
  if (!isRecord(item)) throw new SchemaInputError(file, at, 'a path item must be an object');
  const split = splitApiPath(path);
  if (split === undefined) return;
  let rest = split.rest;
  if (rest[0] === 'watch') rest = rest.slice(1);
  let namespaced = false;
  if (rest[0] === 'namespaces' && rest[1] === '{namespace}' && rest.length > 2) {
    namespaced = true;
    rest = rest.slice(2);
  }
  const [resourceName, name, subresource, ...more] = rest;
  if (resourceName === undefined || resourceName.startsWith('{')) return;
  if (name !== undefined && name !== '{name}') return;
  if (more.length > 0) return; // proxy/{path}: the same subresource as proxy
  const key = `${split.group}/${split.version}`;
  let gv = groupVersions.get(key);
  if (gv === undefined) groupVersions.set(key, (gv = { group: split.group, version: split.version, resources: new Map() }));
  let draft = gv.resources.get(resourceName);
  if (draft === undefined) gv.resources.set(resourceName, (draft = { name: resourceName, namespaced: false, verbs: new Set(), subresources: new Map() }));
  if (namespaced) draft.namespaced = true;

  for (const method of httpMethods) {
    const op = item[method];
    if (op === undefined) continue;
    const opAt = jsonPathChild(at, method);
    if (!isRecord(op)) throw new SchemaInputError(file, opAt, 'an operation must be an object');
    const action = op['x-kubernetes-action'];
    if (action === undefined) continue;
    if (typeof action !== 'string' || actionVerbs[action] === undefined) throw new SchemaInputError(file, jsonPathChild(opAt, 'x-kubernetes-action'), `unknown action ${JSON.stringify(action)}`);
    const verb = actionVerbs[action];
    const gvk = op['x-kubernetes-group-version-kind'] === undefined ? undefined : gvkOf(op['x-kubernetes-group-version-kind'], jsonPathChild(opAt, 'x-kubernetes-group-version-kind'), file);
    if (subresource === undefined) {
      draft.verbs.add(verb);
      if (gvk !== undefined && gvk.group === split.group && gvk.version === split.version) draft.kind ??= gvk.kind;
    } else {
      let sub = draft.subresources.get(subresource);
      if (sub === undefined) draft.subresources.set(subresource, (sub = { verbs: new Set(), text: false }));
      sub.verbs.add(verb);
      if (gvk !== undefined) sub.gvk ??= gvk;
      const response = responseSchema(op);
      if (response !== undefined) {
        if (response.type === 'string' && response.ref === undefined && verb !== 'connect') sub.text = true;
        else if (response.ref !== undefined && verb !== 'connect') sub.type ??= response.ref;
      }
    }
  }
}

/** The schema of the 200 response's JSON (or only) content: its `$ref` name, or its type. */
function responseSchema(op: Record<string, unknown>): { ref?: string; type?: string } | undefined {
  const responses = op['responses'];
  if (!isRecord(responses)) return undefined;
  const ok = responses['200'];
  if (!isRecord(ok) || !isRecord(ok['content'])) return undefined;
  const content = ok['content'];
  const media = (content['application/json'] ?? content['*/*'] ?? Object.values(content)[0]) as unknown;
  if (!isRecord(media) || !isRecord(media['schema'])) return undefined;
  const schema = media['schema'];
  const out: { ref?: string; type?: string } = {};
  if (typeof schema['$ref'] === 'string') out.ref = schema['$ref'].replace('#/components/schemas/', '');
  if (typeof schema['type'] === 'string') out.type = schema['type'];
  return out;
}

/** Serialises a model deterministically: sorted keys, one type per line, a final newline. */
export function serializeModel(model: ApiModel): string {
  const head = sortKeys({ format: model.format, source: model.source });
  const lines: string[] = ['{'];
  lines.push(`"format": ${JSON.stringify(head.format)},`);
  lines.push(`"source": ${JSON.stringify(head.source)},`);
  lines.push('"groupVersions": [');
  model.groupVersions.forEach((gv, i) => lines.push(`${JSON.stringify(sortKeys(gv))}${i < model.groupVersions.length - 1 ? ',' : ''}`));
  lines.push('],');
  lines.push('"types": {');
  const names = Object.keys(model.types).sort(compare);
  names.forEach((name, i) => lines.push(`${JSON.stringify(name)}: ${JSON.stringify(sortKeys(model.types[name]))}${i < names.length - 1 ? ',' : ''}`));
  lines.push('}');
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
