/**
 * The schema side of the custom resource strategy (k8s.io/apiextensions-apiserver/pkg/registry/customresource
 * and the CR handler's decoding): on every write the object is cleared of non-nullable nulls, defaulted and
 * pruned (the pruned paths are the unknown fields fieldValidation reports), then validated against the schema,
 * list-type uniqueness, embedded resources and the CEL rules (with the old object for transition rules).
 * Reads default and prune objects written before the schema last changed, as upstream does when decoding
 * from storage.
 */
import { toCauses, type FieldError } from '../field-errors.ts';
import type { CompiledSchema } from './cel/compilation.ts';
import { validateRules } from './cel/validation.ts';
import { applyDefaults, hasDefaults, pruneNonNullableNulls } from './schema/defaulting.ts';
import { validateEmbeddedResources } from './schema/embedded-resource.ts';
import { cloneJson, type JSONSchemaProps } from './schema/json-schema-props.ts';
import { validateListSetsAndMaps } from './schema/list-type.ts';
import { prune } from './schema/pruning.ts';
import { validateValue } from './schema/validation.ts';

/** The schema of one served version of a custom resource. */
export interface CustomResourceSchema {
  readonly schema: JSONSchemaProps;
  readonly compiled: CompiledSchema;
  /** Whether any property has a default (objects are defaulted on read only then). */
  readonly hasDefaults: boolean;
  /** The storage revision when this schema started to be served: older objects are defaulted and pruned on read. */
  readonly since: number;
}

/** Makes the served schema of a version. */
export function customResourceSchema(schema: JSONSchemaProps, compiled: CompiledSchema, since: number): CustomResourceSchema {
  return { schema, compiled, hasDefaults: hasDefaults(schema), since };
}

/** Options of {@link admitCustomResource}. */
export interface AdmitOptions {
  /** Run schema validation and CEL rules (default true); pruning and defaulting always happen. */
  validate?: boolean;
}

/**
 * Normalises `obj` in place (nulls, defaults, pruning) and validates it; `old` is the stored object on updates.
 * Returns the pruned paths and the validation errors (metadata validation is the caller's).
 */
export function admitCustomResource(cs: CustomResourceSchema, obj: Record<string, unknown>, old: Record<string, unknown> | undefined, options: AdmitOptions = {}): { unknown: string[]; errors: FieldError[] } {
  pruneNonNullableNulls(obj, cs.schema);
  applyDefaults(obj, cs.schema);
  const unknown = prune(obj, cs.schema, true);
  if (options.validate === false) return { unknown, errors: [] };
  const body = withoutMeta(obj);
  const errors = validateValue(cs.schema, body);
  errors.push(...validateListSetsAndMaps(cs.schema, body), ...validateEmbeddedResources(cs.schema, body));
  if (errors.length === 0) errors.push(...validateRules(cs.compiled, cs.schema, obj, old === undefined ? undefined : old));
  return { unknown, errors };
}

// The root's type and object meta are validated by the generic registry, not by the schema.
function withoutMeta(obj: Record<string, unknown>): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = obj;
  return rest;
}

/** The object as a read at `rv` returns it: defaulted and pruned when it predates the schema. */
export function readView(cs: CustomResourceSchema, obj: Record<string, unknown>, rv: number): Record<string, unknown> | undefined {
  if (rv >= cs.since) return undefined;
  const copy = cloneJson(obj);
  pruneNonNullableNulls(copy, cs.schema);
  applyDefaults(copy, cs.schema);
  prune(copy, cs.schema, true);
  return copy;
}

export { toCauses };
