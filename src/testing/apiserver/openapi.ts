/**
 * A minimal OpenAPI v3 surface (/openapi/v3 and /openapi/v3/<group-version>). It publishes no schemas,
 * only one PATCH operation per kind carrying `x-kubernetes-group-version-kind` and the `fieldValidation`
 * parameter: that is what kubectl reads to decide that the server validates fields itself, so that
 * `kubectl create -f` works without a client-side schema.
 */
import { createHash } from 'node:crypto';
import type { ResourceRegistry } from './resources.ts';

type Obj = Record<string, unknown>;

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

const queryParameters = ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({ name, in: 'query', schema: { type: name === 'force' ? 'boolean' : 'string' }, uniqueItems: true }));

/** The OpenAPI v3 document of one group/version, or undefined when it is not served. */
export function openApiV3GroupVersion(registry: ResourceRegistry, group: string, version: string): Obj | undefined {
  if (!registry.hasGroupVersion(group, version)) return undefined;
  const paths: Obj = {};
  for (const r of registry.resources(group, version)) {
    const base = `/${gvPath(group, version)}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.resource}/{name}`;
    const gvk = { group, version, kind: r.kind };
    paths[base] = {
      patch: {
        operationId: `patch${r.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': gvk,
        parameters: queryParameters,
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas: {} } };
}

/** The OpenAPI v3 root: one entry per served group/version, with a content hash for client caches. */
export function openApiV3Root(registry: ResourceRegistry): Obj {
  const paths: Obj = {};
  const gvs: Array<[string, string]> = [['', 'v1'], ...registry.groups().flatMap((g) => g.versions.map((v): [string, string] => [g.name, v]))];
  for (const [group, version] of gvs) {
    const doc = openApiV3GroupVersion(registry, group, version);
    if (doc === undefined) continue;
    const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  }
  return { paths };
}
