/**
 * The RESTMapper's offline knowledge: every built-in resource from the table generated out of
 * Kubernetes' OpenAPI documents, as mappings. The OpenAPI documents carry no short names,
 * categories or singular names, so those are empty (singular: the lower-cased kind, discovery's
 * default) and only discovery resolves `po` or `deploy`.
 */
import { StatusError } from '../apimachinery/errors.ts';
import { builtinGroupVersions } from '../kubernetes/typed/resources.ts';
import type { RestMapping } from './rest-mapper.ts';

/**
 * Orders versions as Kubernetes does (version.CompareKubeAwareVersionStrings in
 * staging/src/k8s.io/apimachinery/pkg/version/helpers.go): GA before beta before alpha, higher
 * numbers first.
 */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return [3, 0, 0];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The built-in mappings in preference order: the core group first, then groups by name, preferred versions first. */
export function builtinRestMappings(): RestMapping[] {
  const gvs = [...builtinGroupVersions].sort((a, b) => (a.group === b.group ? compareKubeVersions(a.version, b.version) : a.group === '' ? -1 : b.group === '' ? 1 : a.group < b.group ? -1 : 1));
  return gvs.flatMap((gv) =>
    gv.resources.map((r) => ({
      resource: { group: gv.group, version: gv.version, resource: r.resource },
      groupVersionKind: { group: gv.group, version: gv.version, kind: r.kind },
      namespaced: r.namespaced,
      singularName: r.kind.toLowerCase(),
      shortNames: [],
      verbs: r.verbs,
      categories: [],
    })),
  );
}

/** Whether discovery failed for want of a server (a network error), not because the server said no. */
export function isOffline(err: unknown): boolean {
  return !(err instanceof StatusError);
}
