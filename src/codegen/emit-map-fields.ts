/**
 * Stage 2 output for the embedded API server: where the built-in kinds have Go maps. Every map field of
 * k8s.io/api is `omitempty`, and kube-apiserver stores objects as protobuf, so an empty map written
 * (`data: {}`, `selector: {}`) is decoded as a nil map and never comes back; the embedded server drops
 * empty maps with this table (src/testing/apiserver/omit-empty-maps.ts). Only types that hold a map,
 * directly or through their fields, are listed.
 */
import type { EmittedFile } from './emit-clients.ts';
import type { ApiModel, SchemaNode } from './model.ts';

/** Where the file goes, relative to src/. */
export const mapFieldsPath = 'testing/apiserver/generated/map-fields.ts';

/**
 * How one field leads to maps: `''` it is a map (its values hold none), `map:<type>` a map whose values
 * are of `<type>`, `<type>` an object or a list of objects of `<type>`.
 */
function fieldShape(node: SchemaNode, holdsMaps: (type: string) => boolean): string | undefined {
  const values = node.additionalProperties;
  if (node.type === 'object' && values !== undefined && values !== false) {
    const valueRef = typeof values === 'object' ? (values.ref ?? values.items?.ref) : undefined;
    return valueRef !== undefined && holdsMaps(valueRef) ? `map:${valueRef}` : '';
  }
  const ref = node.ref ?? (node.type === 'array' ? node.items?.ref : undefined);
  return ref !== undefined && holdsMaps(ref) ? ref : undefined;
}

/** The table of the built-in kinds' map fields. */
export function emitMapFields(model: ApiModel, header: string): EmittedFile {
  // Which types hold a map: a fixpoint over the references (types refer to each other in cycles).
  const holding = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, t] of Object.entries(model.types)) {
      if (holding.has(name)) continue;
      const props = Object.values(t.schema.properties ?? {});
      if (props.some((p) => fieldShape(p, (ref) => holding.has(ref)) !== undefined)) {
        holding.add(name);
        grew = true;
      }
    }
  }
  const types: string[] = [];
  for (const name of [...holding].sort()) {
    const fields: string[] = [];
    for (const [field, p] of Object.entries(model.types[name]!.schema.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const shape = fieldShape(p, (ref) => holding.has(ref));
      if (shape !== undefined) fields.push(`${JSON.stringify(field)}: ${JSON.stringify(shape)}`);
    }
    types.push(`  ${JSON.stringify(name)}: { ${fields.join(', ')} },`);
  }
  const kinds: string[] = [];
  for (const [name, t] of Object.entries(model.types)) {
    if (!holding.has(name)) continue;
    for (const gvk of t.gvk ?? []) kinds.push(`  ${JSON.stringify(`${gvk.group}/${gvk.version}/${gvk.kind}`)}: ${JSON.stringify(name)},`);
  }
  kinds.sort();
  const text = `${header}/**
 * Where the built-in kinds hold Go maps (all \`omitempty\`), for dropping empty ones as kube-apiserver's
 * protobuf round trip does. See src/codegen/emit-map-fields.ts.
 */

/** The type of each built-in kind that holds a map, by \`group/version/Kind\` (core group: \`/v1/Kind\`). */
export const mapHoldingKinds: Readonly<Record<string, string>> = {
${kinds.join('\n')}
};

/**
 * Per type, its fields that lead to maps: \`''\` a map, \`map:<type>\` a map of \`<type>\` values, \`<type>\`
 * an object or a list of objects of \`<type>\`.
 */
export const mapFieldsOfType: Readonly<Record<string, Readonly<Record<string, string>>>> = {
${types.join('\n')}
};
`;
  return { path: mapFieldsPath, text };
}
