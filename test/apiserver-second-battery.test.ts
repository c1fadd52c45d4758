/**
 * Differences the second fidelity battery found, checked on both backends: the causes of an invalid CRD
 * (two storage versions also fail status.storedVersions, printed with Go's %#v of the internal version;
 * metadata errors are reported with the spec's), and a pod's graceful deletion (the fields it sets, in
 * ObjectMeta's order).
 */
import assert from 'node:assert/strict';
import { statusOf } from '../src/apimachinery/errors.ts';
import { RestClient } from '../src/rest/index.ts';
import { e2eTest } from './support/backend.ts';

type Obj = Record<string, unknown>;

e2eTest('an invalid CRD reports every cause v1.24 reports: status.storedVersions for a second storage version, spec.names.plural with an invalid name', async (env) => {
  const crds = env.cs.apiextensionsV1().customResourceDefinitions();
  const sfx = env.suffix;
  const group = `${sfx}.example.com`;
  const schema = { openAPIV3Schema: { type: 'object' } } as never;
  const causes = async (body: unknown): Promise<[string | undefined, string | undefined][]> => {
    try {
      await crds.create(body as never, { dryRun: ['All'] });
    } catch (err) {
      return (statusOf(err)?.details?.causes ?? []).map((c) => [c.field, c.message]);
    }
    assert.fail('expected 422');
  };
  const version = (name: string): string =>
    `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}`;
  const twoStorage = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, schema }, { name: 'v2', served: true, storage: true, schema }] },
  };
  assert.deepEqual(await causes(twoStorage), [
    ['spec.versions', `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${version('v1')}, ${version('v2')}}: must have exactly one version marked as storage version`],
    ['status.storedVersions', `Invalid value: ${version('v2')}: must have the storage version v2`],
  ]);
  const upper = { ...twoStorage, metadata: { name: `Things.${group}` }, spec: { ...twoStorage.spec, names: { plural: 'Things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, schema }] } };
  assert.deepEqual(
    (await causes(upper)).map(([f]) => f),
    ['metadata.name', 'spec.names.plural'],
  );
});

e2eTest('a pod bound to a node is deleted gracefully: deletionTimestamp and deletionGracePeriodSeconds in ObjectMeta\'s order, no generation', async (env) => {
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  const path = `/api/v1/namespaces/${env.namespace}/pods`;
  const json = async (verb: 'GET' | 'POST' | 'DELETE', p: string, body?: unknown): Promise<Obj> => {
    const r = await rest.do({ verb, path: p, query: [], headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return JSON.parse(r.body.toString()) as Obj;
  };
  await json('POST', path, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'nowhere', containers: [{ name: 'c', image: 'busybox' }] } });
  const deleted = await json('DELETE', `${path}/p`);
  const meta = deleted.metadata as Obj;
  assert.deepEqual(Object.keys(meta), ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields']);
  assert.equal(meta.deletionGracePeriodSeconds, 30);
  assert.equal(Date.parse(meta.deletionTimestamp as string) - Date.parse(meta.creationTimestamp as string) >= 30_000, true);
  assert.deepEqual(Object.keys((await json('GET', `${path}/p`)).metadata as Obj), Object.keys(meta));
});
