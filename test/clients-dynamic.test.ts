import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { isNotFound, StatusError } from '../src/apimachinery/errors.ts';
import type { RequestOptions } from '../src/apimachinery/options.ts';
import { RestClient, type RestConfig, type RestRequest } from '../src/rest/index.ts';
import { newClientset } from '../src/kubernetes/index.ts';
import { DynamicClient, ObjectClient } from '../src/dynamic/index.ts';
import { MetadataClient } from '../src/metadata/index.ts';
import { DiscoveryCacheNotFoundError, DiscoveryClient, NoKindMatchError, NoResourceMatchError, RestMapper } from '../src/discovery/index.ts';

function configFor(s: ApiServer): RestConfig {
  const cfg: RestConfig = { host: s.url, qps: -1 };
  if (s.caCertPem !== undefined) cfg.tls = { caData: s.caCertPem };
  return cfg;
}

/** Records the paths of every request, to observe caching. */
class RecordingRestClient extends RestClient {
  readonly paths: string[] = [];
  override async do(req: RestRequest, options?: RequestOptions): ReturnType<RestClient['do']> {
    this.paths.push(req.path);
    return super.do(req, options);
  }
}

const widgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wg'] },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as never } }],
  },
};

async function withServer(tls: boolean, fn: (s: ApiServer, rest: RecordingRestClient) => Promise<void>): Promise<void> {
  const s = await startApiServer({ tls });
  const rest = new RecordingRestClient(configFor(s));
  try {
    await newClientset(rest).coreV1().namespaces().create({ metadata: { name: 'ns' } });
    await fn(s, rest);
  } finally {
    await rest.close();
    await s.stop();
  }
}

for (const tls of [false, true]) {
  test(`${tls ? 'HTTPS' : 'HTTP'}: the dynamic client works on a CRD created after start, cluster-wide and per namespace`, async () => {
    await withServer(tls, async (_s, rest) => {
      await newClientset(rest).apiextensionsV1().customResourceDefinitions().create(widgetCrd);
      const dyn = new DynamicClient(rest);
      const widgets = dyn.resource({ group: 'example.com', version: 'v1', resource: 'widgets' });
      const created = await widgets.namespace('ns').create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } });
      assert.equal(created.metadata?.namespace, 'ns');
      assert.deepEqual(created['spec'], { size: 3 });
      const all = await widgets.list();
      assert.deepEqual(all.items, [await widgets.namespace('ns').get('w1')]);
      const patched = await widgets.namespace('ns').patch('w1', 'application/merge-patch+json', { spec: { size: 4 } });
      assert.deepEqual(patched['spec'], { size: 4 });
      await widgets.namespace('ns').delete('w1');
      await assert.rejects(widgets.namespace('ns').get('w1'), (e) => isNotFound(e));
      const nodes = await dyn.resource({ group: '', version: 'v1', resource: 'namespaces' }).get('ns');
      assert.equal(nodes.kind, 'Namespace');
    });
  });
}

test('discovery is cached until invalidated; the RESTMapper refreshes on an unknown kind and finds a new CRD', async () => {
  await withServer(false, async (_s, rest) => {
    const discovery = new DiscoveryClient(rest);
    const mapper = new RestMapper(discovery);
    const reader = discovery.rest as RecordingRestClient;
    const pods = await mapper.restMapping({ group: '', kind: 'Pod' });
    assert.deepEqual(pods.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(pods.namespaced, true);
    // Aggregated discovery: two requests for everything.
    assert.deepEqual(reader.paths.sort(), ['/api', '/apis']);
    const reads = reader.paths.length;
    assert.deepEqual((await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).resource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal((await mapper.resourceFor({ resource: 'ns' })).groupVersionKind.kind, 'Namespace');
    assert.equal(reader.paths.length, reads, 'known kinds are served from the cache');

    await newClientset(rest).apiextensionsV1().customResourceDefinitions().create(widgetCrd);
    const widget = await mapper.restMapping({ group: 'example.com', kind: 'Widget' });
    assert.deepEqual(widget.resource, { group: 'example.com', version: 'v1', resource: 'widgets' });
    assert.ok(reader.paths.length > reads, 'the miss re-read discovery');
    for (const name of ['widgets', 'widget', 'wg', 'Widget', 'widgets.example.com', 'widgets.v1.example.com']) {
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
    assert.deepEqual(await legacyMapper.allMappings(), await mapper.allMappings());
    assert.ok(legacyReader.paths.includes('/apis/apps/v1'));
    assert.equal((await discovery.serverVersion()).major, '1');
  });
});

test('the object client reads and writes any object by apiVersion/kind; applyManifest reports per object', async () => {
  await withServer(false, async (_s, rest) => {
    const objects = new ObjectClient(rest);
    const cm = await objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'ns' }, data: { a: '1' } });
    assert.equal(cm.metadata?.uid !== undefined, true);
    assert.deepEqual((await objects.get({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'ns' } }))['data'], { a: '1' });
    const ns = await objects.get({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
    assert.equal(ns.metadata?.namespace, undefined);

    const manifest = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
---
apiVersion: example.com/v1
kind: Widget
metadata: { name: w1 }
spec: { size: 2 }
---
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ns }
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
    const results = await objects.applyManifest(manifest, { fieldManager: 'kubeloom-test', namespace: 'ns' });
    assert.deepEqual(
      results.map((r) => [r.index, r.kind, r.namespace, r.name, r.error === undefined ? 'ok' : r.error.constructor.name]),
      [
        [0, 'CustomResourceDefinition', '', 'widgets.example.com', 'ok'],
        [1, 'Widget', 'ns', 'w1', 'ok'],
        [3, 'Deployment', 'ns', 'web', 'ok'],
        [4, 'Gadget', '', 'g', 'NoKindMatchError'],
        [5, '', '', '', 'InvalidObjectError'],
      ],
    );
    assert.deepEqual(results[1]!.object?.['spec'], { size: 2 });
    const again = await objects.applyManifest(manifest.split('---').slice(0, 2).join('---'), { fieldManager: 'kubeloom-test' });
    assert.equal(again[0]!.error, undefined);
    const deleted = await objects.delete({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' } });
    assert.ok(deleted !== undefined);
    await assert.rejects(objects.get({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' } }), (e) => e instanceof StatusError && isNotFound(e));
  });
});

test('the metadata client lists, gets and watches PartialObjectMetadata only', async () => {
  await withServer(false, async (_s, rest) => {
    const secrets = newClientset(rest).coreV1().secrets('ns');
    await secrets.create({ metadata: { name: 's1', labels: { a: 'b' } }, stringData: { password: 'hunter2' } });
    const meta = new MetadataClient(rest).resource({ group: '', version: 'v1', resource: 'secrets' });
    const list = await meta.namespace('ns').list();
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.items.map((i) => [i.kind, i.apiVersion, i.metadata?.name, i.metadata?.labels]), [['PartialObjectMetadata', 'meta.k8s.io/v1', 's1', { a: 'b' }]]);
    assert.ok(!JSON.stringify(list).includes('hunter2') && !JSON.stringify(list).includes('aHVudGVyMg'));
    const one = await meta.namespace('ns').get('s1');
    assert.deepEqual(Object.keys(one).sort(), ['apiVersion', 'kind', 'metadata']);
    const w = await meta.list().then((l) => meta.watch({ resourceVersion: l.metadata!.resourceVersion! }));
    await secrets.create({ metadata: { name: 's2' }, stringData: { password: 'x' } });
    for await (const e of w) {
      assert.equal(e.type, 'ADDED');
      assert.equal(e.object.kind, 'PartialObjectMetadata');
      assert.equal(e.object.metadata?.name, 's2');
      break;
    }
  });
});
