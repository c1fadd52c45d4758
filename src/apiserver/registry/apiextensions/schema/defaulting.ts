/**
 * `default` of structural schemas, as apiextensions-apiserver applies it when a custom resource is decoded
 * from a request or from storage (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go
 * and prunenulls.go): a missing property, or a null one that is not nullable, takes a deep copy of its
 * default, and defaulting then descends into it; nulls of non-nullable fields without a default are dropped.
 */
import { additionalOf, cloneJson, fieldSchema, isObj, itemsOf, type JSONSchemaProps } from './json-schema-props.ts';

/** Applies defaults in place. */
export function applyDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  if (isObj(value)) {
    for (const [k, p] of Object.entries(schema.properties ?? {})) {
      if (p.default === undefined) continue;
      if (!(k in value) || (value[k] === null && p.nullable !== true)) value[k] = cloneJson(p.default);
    }
    const props = schema.properties ?? {};
    const additional = additionalOf(schema);
    for (const [k, x] of Object.entries(value)) {
      const p = props[k] ?? additional;
      if (p !== undefined) applyDefaults(x, p);
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    for (const x of value) applyDefaults(x, items);
  }
}

/** Drops, in place, null values of fields that are neither nullable nor defaulted (PruneNonNullableNullsWithoutDefaults). */
export function pruneNonNullableNulls(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (isObj(value)) {
    for (const [k, x] of Object.entries(value)) {
      const p = fieldSchema(schema, k);
      if (x === null && p !== undefined && p.nullable !== true && p.default === undefined) delete value[k];
      else pruneNonNullableNulls(x, p);
    }
  } else if (Array.isArray(value)) {
    const items = schema === undefined ? undefined : itemsOf(schema);
    for (const x of value) pruneNonNullableNulls(x, items);
  }
}
