/**
 * The fields built-in kinds know, for fieldValidation's unknown-field reports: kube-apiserver decodes a
 * request into the kind's Go struct and the strict decoder names every key the struct lacks
 * (k8s.io/apimachinery/pkg/runtime/serializer/json, sigs.k8s.io/json). Here the structs are the schemas
 * of the generated API model (src/codegen/model/kubernetes.json, from Kubernetes' OpenAPI v3 documents),
 * indexed once, the first time a built-in write is checked. An object schema with properties knows exactly
 * those; one with additionalProperties is a map whose keys are free; a schema with neither (RawExtension,
 * FieldsV1, JSON, IntOrString, Quantity) or with x-kubernetes-preserve-unknown-fields takes anything.
 */
import type { ApiModel, SchemaNode } from '../../codegen/model.ts';
import { apiModel } from '../api-model.ts';
import type { KnownFields } from './field-validation.ts';

interface Loaded {
  types: ApiModel['types'];
  /** `group/version/resource` → the type name of its objects. */
  resources: Map<string, string>;
}

let loaded: Loaded | null | undefined;

function load(): Loaded | null {
  if (loaded !== undefined) return loaded;
  const resources = new Map<string, string>();
  for (const gv of apiModel.groupVersions) for (const r of gv.resources) if (r.type !== undefined) resources.set(`${gv.group}/${gv.version}/${r.name}`, r.type);
  loaded = { types: apiModel.types, resources };
  return loaded;
}

/** What the model knows about a value of `node`. */
function knownOf(types: ApiModel['types'], node: SchemaNode | undefined, depth = 0): KnownFields | 'any' {
  let s = node;
  // Named types may stand for other named types; a bound keeps a malformed model from looping.
  for (let i = 0; s?.ref !== undefined && i < 16; i++) s = types[s.ref]?.schema;
  if (s === undefined || s['x-kubernetes-preserve-unknown-fields'] === true || depth > 200) return 'any';
  const schema = s;
  if (schema.properties !== undefined) {
    return {
      field: (key) => (key in schema.properties! ? knownOf(types, schema.properties![key], depth + 1) : undefined),
      items: () => 'any',
    };
  }
  if (typeof schema.additionalProperties === 'object') {
    const value = schema.additionalProperties;
    return { field: () => knownOf(types, value, depth + 1), items: () => 'any' };
  }
  if (schema.items !== undefined) {
    const items = schema.items;
    return { field: () => 'any', items: () => knownOf(types, items, depth + 1) };
  }
  return 'any';
}

/**
 * The fields objects of a built-in resource may have, or undefined when the model does not describe the
 * resource (or is not available).
 */
export function builtinKnownFields(group: string, version: string, resource: string): KnownFields | undefined {
  const m = load();
  const type = m?.resources.get(`${group}/${version}/${resource}`);
  if (m === null || m === undefined || type === undefined) return undefined;
  const known = knownOf(m.types, { ref: type });
  return known === 'any' ? undefined : known;
}
