/**
 * The names a kind goes by in a scaffolded project (kubebuilder's pkg/model/resource: the resource's
 * plural from its kind, lower-cased; validation of group, version and kind as kubebuilder does).
 */
import { ScaffoldError } from './errors.ts';

/** A kind's names, from `create api --group G --version V --kind K` and the project's domain. */
export interface KindNames {
  /** The full API group, `<group>.<domain>` (or the domain alone when the group is empty). */
  group: string;
  /** The version, e.g. `v1`. */
  version: string;
  /** The kind, UpperCamelCase. */
  kind: string;
  /** The plural resource name, lower case. */
  plural: string;
  /** The kind in lower case: file names and the singular resource name. */
  lower: string;
  /** The kind in lowerCamelCase: variables. */
  camel: string;
  /** Whether objects live in namespaces. */
  namespaced: boolean;
}

// kubebuilder's flect-based pluralization, for the regular English endings kinds use.
function pluralize(lower: string): string {
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** Checks the flags of `create api` and derives the kind's names. */
export function kindNames(options: { group: string; version: string; kind: string; domain: string; namespaced: boolean }): KindNames {
  const { group, version, kind, domain } = options;
  if (group !== '' && !/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(group)) throw new ScaffoldError(`group ${JSON.stringify(group)} must be a DNS label (lower case letters, digits and '-')`);
  // kubebuilder's version validation: v1, v1alpha1, v2beta3.
  if (!/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(version)) throw new ScaffoldError(`version ${JSON.stringify(version)} must look like v1, v1alpha1 or v2beta1`);
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) throw new ScaffoldError(`kind ${JSON.stringify(kind)} must be UpperCamelCase (letters and digits)`);
  const fullGroup = group === '' ? domain : domain === '' ? group : `${group}.${domain}`;
  if (fullGroup === '') throw new ScaffoldError('the API group is empty: pass --group, or init the project with --domain');
  const lower = kind.toLowerCase();
  return { group: fullGroup, version, kind, plural: pluralize(lower), lower, camel: kind[0]!.toLowerCase() + kind.slice(1), namespaced: options.namespaced };
}

/** Version names in the order kubeloom lists them (as they were added). */
export function versionSuffix(version: string): string {
  return version[0]!.toUpperCase() + version.slice(1);
}
