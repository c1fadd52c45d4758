/**
 * Normalises one JSON schema — a component schema of a Kubernetes OpenAPI v3 document, or the
 * `openAPIV3Schema` of a CRD version — into a model {@link SchemaNode}: references become `ref`
 * type names, the `allOf: [{$ref}]` wrapper the OpenAPI v3 documents put around references with a
 * description or default is unwrapped, keys are sorted, and anything the model cannot represent is
 * rejected with a {@link SchemaInputError} naming the file and JSON path.
 *
 * CRD schemas are additionally checked to be structural, as the API server requires
 * (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/validation.go): no `$ref`, a
 * `type` on every node unless `x-kubernetes-int-or-string` or `x-kubernetes-preserve-unknown-fields`
 * says otherwise, no `properties` together with `additionalProperties`, and no types, defaults or
 * descriptions inside `allOf`/`anyOf`/`oneOf`/`not`. Formats must be ones the API server knows
 * (staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/validation/formats.go) or the OpenAPI
 * numeric formats.
 */
import { SchemaInputError, jsonPathChild } from './errors.ts';
import type { SchemaNode } from './model.ts';

/** How to read the schema. */
export interface NormalizeContext {
  /** Named in errors. */
  file: string;
  /** `openapi`: references allowed (`#/components/schemas/...`); `crd`: structural rules apply. */
  mode: 'openapi' | 'crd';
}

/** Formats the API server validates for CRDs (formats.go), with go-openapi's normalisation (no dashes). */
const crdFormats: ReadonlySet<string> = new Set([
  'bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5',
  'isbn', 'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password', 'date', 'duration', 'datetime',
  // OpenAPI's numeric formats: accepted (and ignored for validation) by the API server.
  'int32', 'int64', 'float', 'double',
]);

/** Formats the built-in OpenAPI documents use beyond those. */
const openapiFormats: ReadonlySet<string> = new Set([...crdFormats, 'intorstring']);

const refPrefix = '#/components/schemas/';

const scalarKeys = [
  'type', 'format', 'title', 'description', 'nullable', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties',
  'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-type', 'x-kubernetes-map-type',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy', 'x-kubernetes-preserve-unknown-fields',
] as const;

/** Keys copied as JSON values (checked for type, not interpreted). */
const valueKeys = ['default', 'example', 'enum', 'required', 'externalDocs', 'x-kubernetes-list-map-keys', 'x-kubernetes-unions', 'x-kubernetes-validations'] as const;

const expectedType: Record<string, 'string' | 'number' | 'boolean'> = {
  type: 'string', format: 'string', title: 'string', description: 'string', nullable: 'boolean', maximum: 'number', minimum: 'number',
  exclusiveMaximum: 'boolean', exclusiveMinimum: 'boolean', multipleOf: 'number', maxLength: 'number', minLength: 'number', pattern: 'string',
  maxItems: 'number', minItems: 'number', uniqueItems: 'boolean', maxProperties: 'number', minProperties: 'number',
  'x-kubernetes-embedded-resource': 'boolean', 'x-kubernetes-int-or-string': 'boolean', 'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string', 'x-kubernetes-patch-merge-key': 'string', 'x-kubernetes-patch-strategy': 'string',
  'x-kubernetes-preserve-unknown-fields': 'boolean',
};

const types = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const junctors = ['allOf', 'anyOf', 'oneOf'] as const;
/** What a node inside allOf/anyOf/oneOf/not may not set in a structural schema. */
const forbiddenInJunctor = ['type', 'description', 'default', 'additionalProperties', 'nullable', 'title', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sorts object keys recursively so the output is byte-stable. */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeys(value[k]);
  return out as T;
}

/** Normalises `raw` (found at `path` in `ctx.file`). */
export function normalizeSchema(raw: unknown, path: string, ctx: NormalizeContext): SchemaNode {
  return normalize(raw, path, ctx, false);
}

function fail(ctx: NormalizeContext, path: string, message: string): never {
  throw new SchemaInputError(ctx.file, path, message);
}

function normalize(raw: unknown, path: string, ctx: NormalizeContext, inJunctor: boolean): SchemaNode {
  if (!isRecord(raw)) fail(ctx, path, `a schema must be an object, not ${Array.isArray(raw) ? 'an array' : typeof raw}`);
  let src = raw;
  const node: Record<string, unknown> = {};

  if ('$ref' in src) {
    if (ctx.mode === 'crd') fail(ctx, jsonPathChild(path, '$ref'), '$ref is not allowed in a CRD schema (schemas must be self-contained and structural)');
    node['ref'] = refName(src['$ref'], jsonPathChild(path, '$ref'), ctx);
    const { $ref: _ref, ...rest } = src;
    src = rest;
  } else if (ctx.mode === 'openapi' && Array.isArray(src['allOf']) && src['allOf'].length === 1 && isRecord(src['allOf'][0]) && Object.keys(src['allOf'][0]).length === 1 && '$ref' in src['allOf'][0]) {
    // The v3 documents wrap a reference in allOf when they add a description or default to it.
    node['ref'] = refName(src['allOf'][0]['$ref'], `${path}.allOf[0].$ref`, ctx);
    const { allOf: _allOf, ...rest } = src;
    src = rest;
  }

  for (const [key, value] of Object.entries(src)) {
    const at = jsonPathChild(path, key);
    if ((scalarKeys as readonly string[]).includes(key)) {
      if (typeof value !== expectedType[key]) fail(ctx, at, `must be a ${expectedType[key]}, not ${value === null ? 'null' : typeof value}`);
      node[key] = value;
      continue;
    }
    if ((valueKeys as readonly string[]).includes(key)) {
      checkValue(key, value, at, ctx);
      node[key] = value;
      continue;
    }
    switch (key) {
      case 'properties': {
        if (!isRecord(value)) fail(ctx, at, 'properties must be an object');
        const props: Record<string, SchemaNode> = {};
        for (const [name, prop] of Object.entries(value)) props[name] = normalize(prop, jsonPathChild(at, name), ctx, inJunctor);
        node[key] = props;
        break;
      }
      case 'additionalProperties':
        node[key] = typeof value === 'boolean' ? value : normalize(value, at, ctx, inJunctor);
        break;
      case 'items':
        if (Array.isArray(value)) fail(ctx, at, 'items must be a single schema (tuple schemas are not supported by Kubernetes)');
        node[key] = normalize(value, at, ctx, inJunctor);
        break;
      case 'not':
        node[key] = normalize(value, at, ctx, true);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        if (!Array.isArray(value)) fail(ctx, at, `${key} must be an array of schemas`);
        // Built-in documents use oneOf to describe int-or-string and quantity leaves, with types inside.
        node[key] = value.map((v, i) => normalize(v, jsonPathChild(at, i), ctx, ctx.mode === 'crd'));
        break;
      default:
        fail(ctx, at, `unsupported schema keyword "${key}"`);
    }
  }

  const n = node as SchemaNode;
  if (n.type !== undefined && !types.has(n.type)) fail(ctx, jsonPathChild(path, 'type'), `unknown type "${n.type}"`);
  if (n.format !== undefined && n.format !== '') {
    const known = ctx.mode === 'crd' ? crdFormats : openapiFormats;
    if (!known.has(n.format.replaceAll('-', ''))) fail(ctx, jsonPathChild(path, 'format'), `unknown format "${n.format}"`);
  }
  if (n['x-kubernetes-list-type'] !== undefined && !['atomic', 'set', 'map'].includes(n['x-kubernetes-list-type'])) {
    fail(ctx, jsonPathChild(path, 'x-kubernetes-list-type'), `unknown list type "${n['x-kubernetes-list-type']}"`);
  }
  if (n['x-kubernetes-map-type'] !== undefined && !['atomic', 'granular'].includes(n['x-kubernetes-map-type'])) {
    fail(ctx, jsonPathChild(path, 'x-kubernetes-map-type'), `unknown map type "${n['x-kubernetes-map-type']}"`);
  }
  if (n['x-kubernetes-list-type'] === 'map') {
    const keys = n['x-kubernetes-list-map-keys'];
    if (keys === undefined || keys.length === 0) fail(ctx, path, 'x-kubernetes-list-type "map" needs x-kubernetes-list-map-keys');
  }
  if (ctx.mode === 'crd') checkStructural(n, path, ctx, inJunctor);
  return sortKeys(n);
}

function refName(ref: unknown, at: string, ctx: NormalizeContext): string {
  if (typeof ref !== 'string' || !ref.startsWith(refPrefix)) fail(ctx, at, `unsupported reference ${JSON.stringify(ref)} (only ${refPrefix}<name> is understood)`);
  return ref.slice(refPrefix.length);
}

function checkValue(key: string, value: unknown, at: string, ctx: NormalizeContext): void {
  switch (key) {
    case 'enum':
      if (!Array.isArray(value)) fail(ctx, at, 'enum must be an array');
      break;
    case 'required':
    case 'x-kubernetes-list-map-keys':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) fail(ctx, at, `${key} must be an array of strings`);
      break;
    case 'x-kubernetes-unions':
    case 'x-kubernetes-validations':
      if (!Array.isArray(value) || value.some((v) => !isRecord(v))) fail(ctx, at, `${key} must be an array of objects`);
      break;
    case 'externalDocs':
      if (!isRecord(value)) fail(ctx, at, 'externalDocs must be an object');
      break;
    default:
      break;
  }
}

function checkStructural(n: SchemaNode, path: string, ctx: NormalizeContext, inJunctor: boolean): void {
  if (inJunctor) {
    for (const key of forbiddenInJunctor) {
      if (n[key] !== undefined) fail(ctx, jsonPathChild(path, key), `must not be set inside allOf, anyOf, oneOf or not (structural schema)`);
    }
    return;
  }
  const intOrString = n['x-kubernetes-int-or-string'] === true;
  const preserve = n['x-kubernetes-preserve-unknown-fields'] === true;
  if (n.type === undefined && !intOrString && !preserve) {
    fail(ctx, path, 'type is missing: a structural schema needs a type on every node (or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields)');
  }
  if (intOrString && n.type !== undefined) fail(ctx, jsonPathChild(path, 'type'), 'must be empty when x-kubernetes-int-or-string is true');
  if (n.properties !== undefined && n.additionalProperties !== undefined && n.additionalProperties !== false) {
    fail(ctx, path, 'properties and additionalProperties are mutually exclusive');
  }
  if (n['x-kubernetes-embedded-resource'] === true && n.type !== 'object') fail(ctx, jsonPathChild(path, 'type'), 'must be object when x-kubernetes-embedded-resource is true');
  if (n.type === 'array' && n.items === undefined) fail(ctx, path, 'items is missing: a structural array schema needs items');
  for (const junctor of junctors) {
    for (const [i, part] of (n[junctor] ?? []).entries()) checkJunctorProperties(part, n, jsonPathChild(jsonPathChild(path, junctor), i), ctx);
  }
}

/** Properties named inside a junctor must also be specified outside it (structural schema rule). */
function checkJunctorProperties(part: SchemaNode, outer: SchemaNode, path: string, ctx: NormalizeContext): void {
  for (const name of Object.keys(part.properties ?? {})) {
    if (outer.properties?.[name] === undefined && outer['x-kubernetes-preserve-unknown-fields'] !== true) {
      fail(ctx, jsonPathChild(jsonPathChild(path, 'properties'), name), 'a property inside allOf/anyOf/oneOf must also be specified outside it (structural schema)');
    }
  }
}
