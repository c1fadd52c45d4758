import assert from 'node:assert/strict';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { isNotFound, StatusError } from '../src/apimachinery/errors.ts';
import type { RequestOptions } from '../src/apimachinery/options.ts';
import { RestClient, type RestRequest } from '../src/rest/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { DynamicClient, ObjectClient } from '../src/dynamic/index.ts';
import { MetadataClient } from '../src/metadata/index.ts';
import { DiscoveryCacheNotFoundError, DiscoveryClient, NoKindMatchError, NoResourceMatchError, RestMapper } from '../src/discovery/index.ts';
import { Capability, e2eTest, type E2eEnv } from './support/backend.ts';

/** Records the paths of every request, to observe caching. */
class RecordingRestClient extends RestClient {
  readonly paths: string[] = [];
  override async do(req: RestRequest, options?: RequestOptions): ReturnType<RestClient['do']> {
    this.paths.push(req.path);
    return super.do(req, options);
  }
}

/** A Widget CRD whose names carry the test's suffix, so that it collides with nothing on a shared cluster. */
function widgets(sfx: string) {
  const group = `${sfx}.example.com`;
  const plural = `widgets${sfx}`;
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: `widget${sfx}`, kind: `Widget${sfx}`, listKind: `Widget${sfx}List`, shortNames: [`wg${sfx}`] },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as never } }],
    },
  };
  return { crd, group, plural, kind: `Widget${sfx}`, apiVersion: `${group}/v1`, gvr: { group, version: 'v1', resource: plural } };
}

function recordingClient(env: E2eEnv): RecordingRestClient {
  const rest = new RecordingRestClient(env.restConfig());
  env.defer(() => rest.close());
  return rest;
}

for (const tls of [false, true]) {
  e2eTest(`${tls ? 'HTTPS' : 'HTTP'}: the dynamic client works on a CRD created after start, cluster-wide and per namespace`, { tls }, async (env) => {
    const rest = recordingClient(env);
    const ns = env.namespace;
    const w = widgets(env.suffix);
    await env.createCrd(w.crd);
    const dyn = new DynamicClient(rest);
    const resource = dyn.resource(w.gvr);
    const created = await resource.namespace(ns).create({ apiVersion: w.apiVersion, kind: w.kind, metadata: { name: 'w1' }, spec: { size: 3 } });
    assert.equal(created.metadata?.namespace, ns);
    assert.deepEqual(created['spec'], { size: 3 });
    const all = await resource.list();
    assert.deepEqual(all.items, [await resource.namespace(ns).get('w1')]);
    const patched = await resource.namespace(ns).patch('w1', 'application/merge-patch+json', { spec: { size: 4 } });
    assert.deepEqual(patched['spec'], { size: 4 });
    await resource.namespace(ns).delete('w1');
    await assert.rejects(resource.namespace(ns).get('w1'), (e) => isNotFound(e));
    const namespaces = dyn.resource({ group: '', version: 'v1', resource: 'namespaces' });
    assert.equal((await namespaces.get(ns)).kind, 'Namespace');
    // A built-in list decoded as an UnstructuredList: items get the list's apiVersion and kind.
    const cms = dyn.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace(ns);
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.deepEqual((await cms.list()).items.map((i) => [i.apiVersion, i.kind, i.metadata?.name]), [['v1', 'ConfigMap', 'c']]);
  });
}

e2eTest('discovery is cached until invalidated; the RESTMapper refreshes on an unknown kind and finds a new CRD', async (env) => {
  const rest = recordingClient(env);
  const w = widgets(env.suffix);
  const discovery = new DiscoveryClient(rest);
  const mapper = new RestMapper(discovery, { refreshOnMiss: true });
  const reader = discovery.rest as RecordingRestClient;
  const pods = await mapper.restMapping({ group: '', kind: 'Pod' });
  assert.deepEqual(pods.resource, { group: '', version: 'v1', resource: 'pods' });
  assert.equal(pods.namespaced, true);
  if (env.has(Capability.AggregatedDiscovery)) {
    // Aggregated discovery: two requests for everything.
    assert.deepEqual(reader.paths.sort(), ['/api', '/apis']);
  } else {
    // Kubernetes before 1.30 (1.24 here) answers /api and /apis with the legacy documents: one more request per group version.
    assert.ok(reader.paths.includes('/api/v1') && reader.paths.includes('/apis/apps/v1'), reader.paths.join());
  }
  const reads = reader.paths.length;
  assert.deepEqual((await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).resource, { group: 'apps', version: 'v1', resource: 'deployments' });
  assert.equal((await mapper.resourceFor({ resource: 'ns' })).groupVersionKind.kind, 'Namespace');
  assert.equal(reader.paths.length, reads, 'known kinds are served from the cache');

  await env.createCrd(w.crd);
  const widget = await mapper.restMapping({ group: w.group, kind: w.kind });
  assert.deepEqual(widget.resource, w.gvr);
  assert.ok(reader.paths.length > reads, 'the miss re-read discovery');
  for (const name of [w.plural, `widget${env.suffix}`, `wg${env.suffix}`, w.kind, `${w.plural}.${w.group}`, `${w.plural}.v1.${w.group}`]) {
    assert.deepEqual((await mapper.resourceFor({ resource: name })).resource, widget.resource, name);
  }
  assert.deepEqual(await mapper.kindFor({ resource: 'deploy' }), { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.equal((await mapper.resourceFor({ resource: 'events' })).resource.group, '', 'the core group wins ties');
  await assert.rejects(mapper.restMapping({ group: 'nope.io', kind: 'Nothing' }), NoKindMatchError);
  await assert.rejects(mapper.resourceFor({ resource: 'nothings' }), NoResourceMatchError);

  const groups = await discovery.serverGroups();
  assert.equal(groups[0]!.name, '');
  assert.ok(groups.some((g) => g.name === 'apps'));
  const v1 = await discovery.serverResourcesForGroupVersion('v1');
  assert.ok(v1.resources.some((r) => r.name === 'pods/status'));
  await assert.rejects(discovery.serverResourcesForGroupVersion('nope.io/v1'), DiscoveryCacheNotFoundError);
  assert.deepEqual(await mapper.kindFor({ resource: 'deployment' }), { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.deepEqual((await mapper.restMapping({ group: 'apps', kind: 'deployment' })).resource.resource, 'deployments', 'kinds match lower-cased');

  // Legacy discovery reads the same mapping, one request per group version.
  const legacy = new DiscoveryClient(rest, { legacy: true });
  const legacyReader = legacy.rest as RecordingRestClient;
  const legacyMapper = new RestMapper(legacy);
  // (Built-in groups and this test's only: on a shared cluster other CRDs come and go meanwhile.)
  const stable = (ms: Awaited<ReturnType<RestMapper['allMappings']>>) => ms.filter((m) => !m.resource.group.includes('.') || m.resource.group.endsWith('k8s.io') || m.resource.group === w.group);
  assert.deepEqual(stable(await legacyMapper.allMappings()), stable(await mapper.allMappings()));
  assert.ok(legacyReader.paths.includes('/apis/apps/v1'));
  assert.equal((await discovery.serverVersion()).major, '1');
});

e2eTest('the object client reads and writes any object by apiVersion/kind; applyManifest reports per object', async (env) => {
  const rest = recordingClient(env);
  const ns = env.namespace;
  const w = widgets(env.suffix);
  const objects = new ObjectClient(rest);
  const cm = await objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: ns }, data: { a: '1' } });
  assert.equal(cm.metadata?.uid !== undefined, true);
  assert.deepEqual((await objects.get({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: ns } }))['data'], { a: '1' });
  const nsObject = await objects.get({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  assert.equal(nsObject.metadata?.namespace, undefined);

  const crdDoc = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${w.plural}.${w.group}
spec:
  group: ${w.group}
  scope: Namespaced
  names: { plural: ${w.plural}, singular: widget${env.suffix}, kind: ${w.kind}, listKind: ${w.kind}List }
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;
  const rest_ = `
apiVersion: ${w.apiVersion}
kind: ${w.kind}
metadata: { name: w1 }
spec: { size: 2 }
---
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${ns} }
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: c, image: nginx }] }
---
apiVersion: nope.io/v1
kind: Gadget
metadata: { name: g }
---
kind: [unbalanced
`;
  const crdResults = await objects.applyManifest(crdDoc, { fieldManager: 'kubeloom-test', namespace: ns });
  assert.deepEqual(
    crdResults.map((r) => [r.index, r.kind, r.namespace, r.name, r.error === undefined ? 'ok' : r.error.constructor.name]),
    [[0, 'CustomResourceDefinition', '', `${w.plural}.${w.group}`, 'ok']],
  );
  // A real apiserver serves a new CRD's resource a moment after accepting it (as with kubectl apply,
  // custom resources go in once the CRD is Established).
  await env.adoptCrd(`${w.plural}.${w.group}`);
  const results = await objects.applyManifest(rest_, { fieldManager: 'kubeloom-test', namespace: ns });
  assert.deepEqual(
    results.map((r) => [r.index, r.kind, r.namespace, r.name, r.error === undefined ? 'ok' : r.error.constructor.name]),
    [
      [0, w.kind, ns, 'w1', 'ok'],
      [2, 'Deployment', ns, 'web', 'ok'],
      [3, 'Gadget', '', 'g', 'NoKindMatchError'],
      [4, '', '', '', 'InvalidObjectError'],
    ],
  );
  assert.deepEqual(results[0]!.object?.['spec'], { size: 2 });
  const again = await objects.applyManifest(crdDoc, { fieldManager: 'kubeloom-test' });
  assert.equal(again[0]!.error, undefined);
  const deleted = await objects.delete({ apiVersion: w.apiVersion, kind: w.kind, metadata: { name: 'w1', namespace: ns } });
  assert.ok(deleted !== undefined);
  await assert.rejects(objects.get({ apiVersion: w.apiVersion, kind: w.kind, metadata: { name: 'w1', namespace: ns } }), (e) => e instanceof StatusError && isNotFound(e));
});

e2eTest('the metadata client lists, gets and watches PartialObjectMetadata only', async (env) => {
  const rest = recordingClient(env);
  const ns = env.namespace;
  const secrets = newClientset(rest).coreV1().secrets(ns);
  await secrets.create({ metadata: { name: 's1', labels: { a: 'b' } }, stringData: { password: 'hunter2' } });
  const meta = new MetadataClient(rest).resource({ group: '', version: 'v1', resource: 'secrets' });
  const list = await meta.namespace(ns).list();
  assert.equal(list.kind, 'PartialObjectMetadataList');
  assert.deepEqual(list.items.map((i) => [i.kind, i.apiVersion, i.metadata?.name, i.metadata?.labels]), [['PartialObjectMetadata', 'meta.k8s.io/v1', 's1', { a: 'b' }]]);
  assert.ok(!JSON.stringify(list).includes('hunter2') && !JSON.stringify(list).includes('aHVudGVyMg'));
  const one = await meta.namespace(ns).get('s1');
  assert.deepEqual(Object.keys(one).sort(), ['apiVersion', 'kind', 'metadata']);
  const w = await meta.namespace(ns).list().then((l) => meta.namespace(ns).watch({ resourceVersion: l.metadata!.resourceVersion! }));
  await secrets.create({ metadata: { name: 's2' }, stringData: { password: 'x' } });
  for await (const e of w) {
    assert.equal(e.type, 'ADDED');
    assert.equal(e.object.kind, 'PartialObjectMetadata');
    assert.equal(e.object.metadata?.name, 's2');
    break;
  }
});
