/**
 * Go's `%#v` of the internal apiextensions.CustomResourceDefinitionVersion values kube-apiserver prints in
 * CRD validation errors (`spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{…}`,
 * `status.storedVersions: Invalid value: apiextensions.CustomResourceDefinitionVersion{…}`), after the v1 →
 * internal conversion of apiextensions/v1/conversion.go: a schema, subresources or printer columns that are
 * identical in every version move to the spec and are nil in each version. Pointers that stay set print their
 * address in Go, which cannot be reproduced: here `0xc000000000`.
 */
import { deepEqual } from '../../object-meta.ts';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const goString = (v: unknown): string => JSON.stringify(typeof v === 'string' ? v : '');
const goBool = (v: unknown): string => (v === true ? 'true' : 'false');
const pointer = (type: string, set: boolean): string => `(*${type})(${set ? '0xc000000000' : 'nil'})`;

function columnsString(columns: unknown): string {
  if (!Array.isArray(columns)) return '[]apiextensions.CustomResourceColumnDefinition(nil)';
  const items = columns.filter(isObj).map((c) => {
    const priority = typeof c.priority === 'number' ? c.priority : 0;
    return `apiextensions.CustomResourceColumnDefinition{Name:${goString(c.name)}, Type:${goString(c.type)}, Format:${goString(c.format)}, Description:${goString(c.description)}, Priority:${priority}, JSONPath:${goString(c.jsonPath)}}`;
  });
  return `[]apiextensions.CustomResourceColumnDefinition{${items.join(', ')}}`;
}

/** Which per-version fields the internal conversion hoists (identical in every version). */
export interface Hoisted {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
}

/** What Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec hoists. */
export function hoistedOf(versions: readonly Obj[]): Hoisted {
  const first = versions[0] ?? {};
  const same = (f: string): boolean => versions.every((v) => deepEqual(v[f], first[f]));
  return { schema: same('schema'), subresources: same('subresources'), columns: same('additionalPrinterColumns') };
}

/** `%#v` of one internal version. */
export function goVersionString(v: Obj, hoisted: Hoisted): string {
  const schema = pointer('apiextensions.CustomResourceValidation', !hoisted.schema && v.schema !== undefined && v.schema !== null);
  const subresources = pointer('apiextensions.CustomResourceSubresources', !hoisted.subresources && v.subresources !== undefined && v.subresources !== null);
  const columns = hoisted.columns ? columnsString(undefined) : columnsString(v.additionalPrinterColumns);
  return `apiextensions.CustomResourceDefinitionVersion{Name:${goString(v.name)}, Served:${goBool(v.served)}, Storage:${goBool(v.storage)}, Deprecated:${goBool(v.deprecated)}, DeprecationWarning:${pointer('string', typeof v.deprecationWarning === 'string')}, Schema:${schema}, Subresources:${subresources}, AdditionalPrinterColumns:${columns}}`;
}

/** `%#v` of the internal versions list. */
export function goVersionsString(versions: readonly Obj[]): string {
  const hoisted = hoistedOf(versions);
  return `[]apiextensions.CustomResourceDefinitionVersion{${versions.map((v) => goVersionString(v, hoisted)).join(', ')}}`;
}
