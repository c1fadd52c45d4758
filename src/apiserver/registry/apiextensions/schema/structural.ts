/**
 * Whether a CRD schema is structural, as apiextensions-apiserver decides it
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/validation.go and complete.go): every field has a
 * type (or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields), arrays have items, the root is
 * an object, metadata is only constrained in name and generateName, and the logical junctors (allOf,
 * anyOf, oneOf, not) only add value validations over fields the structural part already declares.
 * The errors are upstream's, sorted by their text as upstream sorts them.
 */
import { child, forbidden, index, invalidValue, key, required, sortErrors, type FieldError } from '../../field-errors.ts';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps } from './json-schema-props.ts';

type Level = 'root' | 'item' | 'field';

/**
 * The structural-schema errors of a version's openAPIV3Schema at `path`
 * (e.g. `spec.validation.openAPIV3Schema`); empty when the schema is structural.
 */
export function validateStructural(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs = [...invariants(schema, 'root', path), ...completeness(schema, path)];
  return sortErrors(errs);
}

function invariants(s: JSONSchemaProps, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const items = itemsOf(s);
  if (s.type === 'array' && items === undefined) errs.push(required(child(path, 'items'), 'must be specified'));
  if (items !== undefined) errs.push(...invariants(items, 'item', child(path, 'items')));
  for (const [k, v] of Object.entries(s.properties ?? {})) if (isObj(v)) errs.push(...invariants(v, 'field', key(child(path, 'properties'), k)));
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    const ap = additionalOf(s);
    if (ap !== undefined) errs.push(...invariants(ap, 'field', child(path, 'additionalProperties')));
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) errs.push(invalidValue(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(invalidValue(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  errs.push(...valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s), lvl, path));
  const type = s.type ?? '';
  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    errs.push(type === '' ? required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true') : invalidValue(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(required(child(path, 'type'), detail));
  }
  if (embedded && s.additionalProperties !== undefined) errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(invalidValue(child(path, 'type'), type, 'must be object at the root'));
  const props = s.properties ?? {};
  if (checkMetadata) {
    for (const name of ['kind', 'apiVersion']) {
      const p = props[name];
      if (p !== undefined && p.type !== 'string') errs.push(invalidValue(child(key(child(path, 'properties'), name), 'type'), p.type ?? '', 'must be string'));
    }
  }
  const metadata = props.metadata;
  if (metadata !== undefined) errs.push(...metadataInvariants(metadata, checkMetadata, lvl, key(child(path, 'properties'), 'metadata')));
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

// At the root, metadata may only narrow name and generateName (apiextensions validates those itself).
function metadataInvariants(s: JSONSchemaProps, checkMetadata: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && s.type !== 'object') errs.push(invalidValue(child(path, 'type'), s.type ?? '', 'must be object'));
  if (lvl === 'root') {
    const onlyNames = Object.keys(s.properties ?? {}).every((n) => n === 'name' || n === 'generateName');
    const others = Object.keys(s).filter((k) => k !== 'type' && k !== 'properties' && k !== 'default');
    if (!onlyNames || others.length > 0) errs.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  return errs;
}

const intOrStringAnyOf = [{ type: 'integer' }, { type: 'string' }];

function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return anyOf !== undefined && anyOf.length === 2 && anyOf.every((a, i) => Object.keys(a).length === 1 && a.type === intOrStringAnyOf[i]!.type);
}

function isIntOrStringAllOf(s: JSONSchemaProps): boolean {
  return s.allOf !== undefined && s.allOf.length >= 1 && isIntOrStringAnyOf(s.allOf[0]!.anyOf);
}

// The value validations of a schema node: its junctors, each checked as a nested value validation, and its pattern.
function valueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) (s.anyOf ?? []).forEach((v, i) => errs.push(...nested(v, false, lvl, index(child(path, 'anyOf'), i))));
  (s.allOf ?? []).forEach((v, i) => errs.push(...nested(v, skipFirstAllOfAnyOf && i === 0, lvl, index(child(path, 'allOf'), i))));
  (s.oneOf ?? []).forEach((v, i) => errs.push(...nested(v, false, lvl, index(child(path, 'oneOf'), i))));
  if (isObj(s.not)) errs.push(...nested(s.not, false, lvl, child(path, 'not')));
  return errs;
}

function nested(v: JSONSchemaProps, skipAnyOf: boolean, lvl: Level, path: string): FieldError[] {
  const errs: FieldError[] = [...valueValidation(v, skipAnyOf, false, lvl, path)];
  const items = itemsOf(v);
  if (items !== undefined) errs.push(...nested(items, false, lvl, child(path, 'items')));
  for (const [k, p] of Object.entries(v.properties ?? {})) if (isObj(p)) errs.push(...nested(p, false, 'field', key(child(path, 'properties'), k)));
  if (v.type !== undefined && v.type !== '') errs.push(forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (v.additionalProperties !== undefined) errs.push(forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (v.default !== undefined) errs.push(forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (v.title !== undefined && v.title !== '') errs.push(forbidden(child(path, 'title'), 'must be empty to be structural'));
  if (v.description !== undefined && v.description !== '') errs.push(forbidden(child(path, 'description'), 'must be empty to be structural'));
  if (v.nullable === true) errs.push(forbidden(child(path, 'nullable'), 'must be false to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields'] === true) errs.push(forbidden(child(path, 'x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  if (v['x-kubernetes-embedded-resource'] === true) errs.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (v['x-kubernetes-int-or-string'] === true) errs.push(forbidden(child(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  if ((v['x-kubernetes-list-map-keys'] ?? []).length > 0) errs.push(forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (v['x-kubernetes-list-type'] !== undefined) errs.push(forbidden(child(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (v['x-kubernetes-map-type'] !== undefined) errs.push(forbidden(child(path, 'x-kubernetes-map-type'), 'must be undefined to be structural'));
  if ((v['x-kubernetes-validations'] ?? []).length > 0) errs.push(forbidden(child(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  if (v.properties?.metadata !== undefined) errs.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  return errs;
}

// complete.go: every property and items a junctor mentions must exist in the structural part too.
// validateStructuralCompleteness starts from the root's value validation only: the allOf/anyOf/oneOf/not of
// nested properties, items and additionalProperties are not checked for completeness (complete.go, v1.24 to
// v1.32 alike).
function completeness(s: JSONSchemaProps, path: string): FieldError[] {
  return junctorCompleteness(s, s, path, path);
}

function junctorCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string): FieldError[] {
  const errs: FieldError[] = [];
  (v.allOf ?? []).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, index(child(vPath, 'allOf'), i))));
  (v.anyOf ?? []).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, index(child(vPath, 'anyOf'), i))));
  (v.oneOf ?? []).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, index(child(vPath, 'oneOf'), i))));
  if (isObj(v.not)) errs.push(...nestedCompleteness(v.not, s, sPath, child(vPath, 'not')));
  return errs;
}

function nestedCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string): FieldError[] {
  if (s === undefined) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [...junctorCompleteness(v, s, sPath, vPath)];
  const items = itemsOf(v);
  if (items !== undefined) errs.push(...nestedCompleteness(items, itemsOf(s), child(sPath, 'items'), child(vPath, 'items')));
  for (const [k, p] of Object.entries(v.properties ?? {})) {
    if (!isObj(p)) continue;
    const sp = s.properties?.[k] ?? additionalOf(s);
    if (sp === undefined && s['x-kubernetes-preserve-unknown-fields'] !== true) {
      errs.push(required(key(child(sPath, 'properties'), k), `because it is defined in ${key(child(vPath, 'properties'), k)}`));
      continue;
    }
    if (sp !== undefined) errs.push(...nestedCompleteness(p, sp, key(child(sPath, 'properties'), k), key(child(vPath, 'properties'), k)));
  }
  return errs;
}
