/**
 * The schema side of the custom resource strategy (k8s.io/apiextensions-apiserver/pkg/registry/customresource
 * and the CR handler's decoding): on every write the object is cleared of non-nullable nulls, defaulted and
 * pruned (the pruned paths are the unknown fields fieldValidation reports), then validated against the schema,
 * list-type uniqueness, embedded resources and, unless an error of type, size or a missing field makes them
 * pointless, the CEL rules (with the old object for transition rules).
 * Reads default and prune objects written before the schema last changed, as upstream does when decoding
 * from storage (k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go,
 * crdConversionRESTOptionsGetter).
 */
import { FieldErrorType, invalidRendered, toCauses, type FieldError } from '../field-errors.ts';
import type { CompiledSchema } from './cel/compilation.ts';
import { validateRules } from './cel/validation.ts';
import { validateScaleValues, type ScalePaths } from './scale.ts';
import { applyDefaults, pruneNonNullableNulls } from './schema/defaulting.ts';
import { validateEmbeddedResources } from './schema/embedded-resource.ts';
import { cloneJson, isObj, type JSONSchemaProps } from './schema/json-schema-props.ts';
import { validateListSetsAndMaps } from './schema/list-type.ts';
import { prune } from './schema/pruning.ts';
import { validateValue } from './schema/validation.ts';
import type { StorageDecoder, StoredObject } from '../../storage.ts';

// The error types after which the CEL rules are not run (registry/customresource/strategy.go, hasBlockingErr).
const blockingErrorTypes: ReadonlySet<string> = new Set([FieldErrorType.Required, FieldErrorType.TooLong, FieldErrorType.TooMany, FieldErrorType.TypeInvalid]);

/** The schema of one served version of a custom resource. */
export interface CustomResourceSchema {
  readonly schema: JSONSchemaProps;
  readonly compiled: CompiledSchema;
  /** The storage revision when this schema started to be served: older objects are defaulted and pruned on read. */
  readonly since: number;
}

/** Makes the served schema of a version. */
export function customResourceSchema(schema: JSONSchemaProps, compiled: CompiledSchema, since: number): CustomResourceSchema {
  return { schema, compiled, since };
}

/** Options of {@link admitCustomResource}. */
export interface AdmitOptions {
  /** Run schema validation and CEL rules (default true); pruning and defaulting always happen. */
  validate?: boolean;
  /** The scale subresource's paths, whose values every write checks. */
  scale?: ScalePaths | undefined;
  /** The write goes through /status: spec replicas are not checked (ValidateStatusUpdate). */
  status?: boolean;
  /** The errors of the generic metadata checks, reported first (they are not schema validation: always reported). */
  objectMeta?: readonly FieldError[];
}

/**
 * What decoding a request body does to a custom resource, in place: non-nullable nulls dropped, defaults
 * applied, unknown fields pruned. Upstream this happens in the decoder, before the managed fields are
 * computed, so defaulted fields are owned by the writer and pruned ones never are. Returns the pruned paths.
 */
export function decodeCustomResource(cs: CustomResourceSchema, obj: Record<string, unknown>): string[] {
  pruneNonNullableNulls(obj, cs.schema);
  applyDefaults(obj, cs.schema);
  return prune(obj, cs.schema, true);
}

/**
 * Converts a custom resource (conversion strategy None) to the version `apiVersion` whose schema is `cs`:
 * the apiVersion is replaced and fields that version does not know are pruned, as the CR handler's
 * schemaCoercingConverter does after every conversion (apiextensions-apiserver
 * pkg/apiserver/customresource_handler.go). On writes to the storage version the storage version's
 * defaults are applied as well, which every read from storage would apply. Returns `obj` when it is
 * already in that version.
 */
export function convertCustomResource(obj: Record<string, unknown>, apiVersion: string, cs: CustomResourceSchema | undefined, defaults = false): Record<string, unknown> {
  if (obj.apiVersion === apiVersion) return obj;
  const { apiVersion: _old, ...rest } = obj;
  const out: Record<string, unknown> = { apiVersion, ...cloneJson(rest) };
  if (cs !== undefined) {
    prune(out, cs.schema, true);
    if (defaults) applyDefaults(out, cs.schema);
  }
  return out;
}

/**
 * Normalises `obj` in place (nulls, defaults, pruning) and validates it; `old` is the stored object on updates.
 * Returns the pruned paths and the validation errors (metadata validation is the caller's).
 */
export function admitCustomResource(cs: CustomResourceSchema, obj: Record<string, unknown>, old: Record<string, unknown> | undefined, options: AdmitOptions = {}): { unknown: string[]; errors: FieldError[] } {
  const unknown = decodeCustomResource(cs, obj);
  const errors = [...(options.objectMeta ?? [])];
  if (options.validate === false) return { unknown, errors };
  const body = withoutMeta(obj, cs.schema);
  errors.push(...validateValue(cs.schema, body));
  if (options.scale !== undefined) errors.push(...validateScaleValues(obj, options.scale, options.status === true));
  errors.push(...validateEmbeddedResources(cs.schema, body));
  // Updates ratchet list-type uniqueness: an old object that already broke it does not fail the update.
  if (old === undefined || validateListSetsAndMaps(cs.schema, withoutMeta(old, cs.schema)).length === 0) errors.push(...validateListSetsAndMaps(cs.schema, body));
  // hasBlockingErr: the CEL rules do not run over values of the wrong type, size or shape.
  if (cs.compiled.rules.size === 0) return { unknown, errors };
  if (errors.some((e) => blockingErrorTypes.has(e.type))) errors.push(invalidRendered('<nil>', '"null"', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
  else errors.push(...validateRules(cs.compiled, cs.schema, obj, old === undefined ? undefined : old));
  return { unknown, errors };
}

// The root's type and object meta are validated by the generic registry; of metadata, the schema may only
// constrain name and generateName (the structural checks refuse anything else), which the schema validator checks.
function withoutMeta(obj: Record<string, unknown>, schema: JSONSchemaProps): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj;
  if (schema.properties?.metadata === undefined || !isObj(metadata)) return rest;
  const names: Record<string, unknown> = {};
  for (const k of ['name', 'generateName']) if (metadata[k] !== undefined) names[k] = metadata[k];
  return { metadata: names, ...rest };
}

/** The paths of the fields of `obj` the schema does not declare (what pruning would remove), sorted; `obj` is left alone. */
export function unknownFieldPaths(cs: CustomResourceSchema, obj: Record<string, unknown>): string[] {
  return prune(cloneJson(obj), cs.schema, true);
}

/**
 * The object as a read returns it: a copy pruned and defaulted by the schema, as the storage codec's
 * schemaCoercingDecoder and unstructuredDefaulter treat what they decode from etcd.
 */
export function readView(cs: CustomResourceSchema, obj: Record<string, unknown>): Record<string, unknown> {
  const copy = cloneJson(obj);
  prune(copy, cs.schema, true);
  pruneNonNullableNulls(copy, cs.schema);
  applyDefaults(copy, cs.schema);
  return copy;
}

/**
 * The storage decoder of a custom resource (see {@link StorageDecoder}): objects written before their
 * version's schema was last changed are read as {@link readView} makes them; later ones went through
 * {@link admitCustomResource} and are returned as stored. `schemas` maps versions to their schema; an object
 * stored in a version no longer served is read with `fallback`'s schema. Views are made once per stored state.
 */
export function customResourceDecoder(schemas: ReadonlyMap<string, CustomResourceSchema>, fallback: CustomResourceSchema | undefined): StorageDecoder {
  const views = new WeakMap<StoredObject, StoredObject>();
  return (s) => {
    const apiVersion = typeof s.obj.apiVersion === 'string' ? s.obj.apiVersion : '';
    const cs = schemas.get(apiVersion.slice(apiVersion.indexOf('/') + 1)) ?? fallback;
    if (cs === undefined || s.rv >= cs.since) return s;
    let view = views.get(s);
    if (view === undefined) {
      const obj = readView(cs, s.obj);
      view = { obj, json: JSON.stringify(obj), rv: s.rv, key: s.key };
      views.set(s, view);
    }
    return view;
  };
}

export { toCauses };
