/**
 * Embedded resources (`x-kubernetes-embedded-resource: true`): apiVersion and kind must be set, kind must be
 * a DNS-1035 label but for its case, and metadata, when present, is validated as ObjectMeta (names as
 * path segments: any name but `.`/`..` or one with `/` or `%`), as apiextensions-apiserver's objectmeta
 * validation does (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta/validation.go).
 */
import { child, index, invalidValue, required, type FieldError } from '../../field-errors.ts';
import { pathSegmentName } from '../../name-validation.ts';
import { validateObjectMetaAccessor } from '../../object-meta-validation.ts';
import { isDNS1035Label } from '../../validation/names.ts';
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
    else if (f === 'apiVersion' && x.split('/').length > 2) errs.push(invalidValue(child(path, f), x, `unexpected GroupVersion string: ${x}`));
    else if (f === 'kind') {
      const bad = isDNS1035Label(x.toLowerCase());
      if (bad.length > 0) errs.push(invalidValue(child(path, f), x, `may have mixed case, but should otherwise match: ${bad.join(',')}`));
    }
  }
  const meta = v.metadata;
  if (isObj(meta)) {
    // A missing name is set to a placeholder before ValidateObjectMeta (it would otherwise be required).
    const named = typeof meta.name === 'string' && meta.name !== '' ? meta : { ...meta, name: 'fakename' };
    const namespaced = typeof meta.namespace === 'string' && meta.namespace !== '';
    errs.push(...validateObjectMetaAccessor(named, namespaced, pathSegmentName, child(path, 'metadata')));
  }
}
