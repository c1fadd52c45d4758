/**
 * The type meta of embedded resources (`x-kubernetes-embedded-resource: true`): apiVersion and kind must be
 * set, as apiextensions-apiserver's objectmeta validation requires
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta/validation.go).
 */
import { child, index, invalidValue, required, type FieldError } from '../../field-errors.ts';
import { additionalOf, isObj, itemsOf, type JSONSchemaProps } from './json-schema-props.ts';

/** The errors of every embedded resource under `value` (the resource root itself is not embedded). */
export function validateEmbeddedResources(schema: JSONSchemaProps, value: unknown, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, value, path, errs);
  return errs;
}

function walk(s: JSONSchemaProps | undefined, v: unknown, path: string, errs: FieldError[]): void {
  if (s === undefined) return;
  if (isObj(v)) {
    if (s['x-kubernetes-embedded-resource'] === true) embedded(v, path, errs);
    const props = s.properties ?? {};
    const additional = additionalOf(s);
    for (const [k, x] of Object.entries(v)) walk(props[k] ?? additional, x, child(path, k), errs);
  } else if (Array.isArray(v)) {
    const items = itemsOf(s);
    v.forEach((x, i) => walk(items, x, index(path, i), errs));
  }
}

function embedded(v: Record<string, unknown>, path: string, errs: FieldError[]): void {
  for (const f of ['apiVersion', 'kind'] as const) {
    const x = v[f];
    if (x === undefined || x === null) errs.push(required(child(path, f), 'must not be empty'));
    else if (typeof x !== 'string') errs.push(invalidValue(child(path, f), x, 'must be a string'));
    else if (x === '') errs.push(invalidValue(child(path, f), x, 'must not be empty'));
  }
}
