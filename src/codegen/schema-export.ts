/**
 * The model back to OpenAPI: the inverse of stage 1, so the same data that generates TypeScript can
 * serve `/openapi/v3/<group>/<version>` and `/openapi/v2` (what `kubectl explain` reads) and can
 * re-emit a CRD's `openAPIV3Schema` unchanged.
 *
 * v3 schemas reference types as the upstream documents do (`$ref` alone, or wrapped in `allOf` when
 * a description or default sits beside it). v2 has no oneOf/anyOf/allOf/not/nullable: they are
 * dropped, and the typeless int-or-string and quantity leaves become strings, as kube-apiserver
 * does when it publishes v2 (staging/src/k8s.io/kube-openapi/pkg/util/proto and
 * apiextensions-apiserver/pkg/controller/openapi/v2/conversion.go).
 */
import type { ApiModel, SchemaNode } from './model.ts';

/** Which OpenAPI flavour to write. */
export type OpenApiVersion = 'v2' | 'v3';

const refPrefix: Record<OpenApiVersion, string> = { v2: '#/definitions/', v3: '#/components/schemas/' };

/** Converts one model node to an OpenAPI schema object. */
export function toOpenApiSchema(node: SchemaNode, version: OpenApiVersion = 'v3'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'ref':
        break;
      case 'properties': {
        const props: Record<string, unknown> = {};
        for (const [name, prop] of Object.entries(value as Record<string, SchemaNode>)) props[name] = toOpenApiSchema(prop, version);
        out[key] = props;
        break;
      }
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : toOpenApiSchema(value as SchemaNode, version);
        break;
      case 'items':
      case 'not':
        if (version === 'v2' && key === 'not') break;
        out[key] = toOpenApiSchema(value as SchemaNode, version);
        break;
      case 'oneOf':
      case 'anyOf':
      case 'allOf':
        if (version === 'v2') break;
        out[key] = (value as SchemaNode[]).map((n) => toOpenApiSchema(n, version));
        break;
      case 'nullable':
        if (version === 'v2') break;
        out[key] = value;
        break;
      default:
        out[key] = structuredClone(value);
    }
  }
  if (version === 'v2' && out['type'] === undefined && (node.oneOf !== undefined || node['x-kubernetes-int-or-string'] === true) && node.ref === undefined) out['type'] = 'string';
  if (node.ref === undefined) return out;
  const ref = { $ref: `${refPrefix[version]}${node.ref}` };
  if (Object.keys(out).length === 0) return ref;
  return version === 'v3' ? { allOf: [ref], ...out } : { ...ref, ...out };
}

/** The names of `roots` and every type they reference, sorted. */
export function typeClosure(model: ApiModel, roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (node: SchemaNode): void => {
    if (node.ref !== undefined && !seen.has(node.ref) && model.types[node.ref] !== undefined) {
      seen.add(node.ref);
      visit(model.types[node.ref]!.schema);
    }
    for (const p of Object.values(node.properties ?? {})) visit(p);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties);
    if (node.items !== undefined) visit(node.items);
    for (const n of [...(node.oneOf ?? []), ...(node.anyOf ?? []), ...(node.allOf ?? [])]) visit(n);
  };
  for (const r of roots) visit({ ref: r });
  return [...seen].sort();
}

/** One named type as OpenAPI, with its `x-kubernetes-group-version-kind`. */
export function typeToOpenApi(model: ApiModel, typeName: string, version: OpenApiVersion = 'v3'): Record<string, unknown> {
  const type = model.types[typeName];
  if (type === undefined) throw new Error(`no type ${typeName} in the model`);
  const schema = toOpenApiSchema(type.schema, version);
  if (type.gvk !== undefined) schema['x-kubernetes-group-version-kind'] = type.gvk.map((g) => ({ group: g.group, kind: g.kind, version: g.version }));
  return schema;
}

/**
 * The schemas part of a group-version's OpenAPI v3 document (`components.schemas`): the types of its
 * resources and everything they reference, as `/openapi/v3/apis/<group>/<version>` serves them.
 */
export function openApiV3Components(model: ApiModel, group: string, version: string): Record<string, unknown> {
  const gv = model.groupVersions.find((g) => g.group === group && g.version === version);
  if (gv === undefined) throw new Error(`no group-version ${group}/${version} in the model`);
  const roots = gv.resources.flatMap((r) => [r.type, r.listType, ...r.subresources.map((s) => s.type)]).filter((t): t is string => t !== undefined);
  const schemas: Record<string, unknown> = {};
  for (const name of typeClosure(model, roots)) schemas[name] = typeToOpenApi(model, name, 'v3');
  return { schemas };
}

/** Every type of the model as OpenAPI v2 `definitions` (the `/openapi/v2` document's). */
export function openApiV2Definitions(model: ApiModel): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (const name of Object.keys(model.types).sort()) definitions[name] = typeToOpenApi(model, name, 'v2');
  return definitions;
}
