import assert from 'node:assert/strict';
import type { Pod } from '../src/api/core/v1.ts';
import type { PartialObjectMetadata, Unstructured } from '../src/apimachinery/object.ts';
import { newDynamicSharedInformerFactory, newMetadataSharedInformerFactory, newSharedInformerFactory } from '../src/informers/index.ts';
import { DeletedFinalStateUnknown, type GenericInformer } from '../src/tools/cache/index.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { e2eTest } from './support/backend.ts';

const pod = (name: string, labels: Record<string, string> = {}): Pod => ({ metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'x' }] } });

/** Resolves once `predicate` holds, checking after each event-loop turn. */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setImmediate(r));
}

for (const tls of [false, true]) {
  e2eTest(`${tls ? 'HTTPS' : 'HTTP'}: the typed factory's informers sync, follow changes and serve listers`, { tls }, async ({ cs, namespace: ns }) => {
    await cs.coreV1().pods(ns).create(pod('a', { app: 'web' }));
    await cs.coreV1().pods(ns).create(pod('b', { app: 'db' }));
    const factory = newSharedInformerFactory(cs, { namespace: ns, tweakListOptions: (o) => (o.labelSelector = 'app=web') });
    const pods: GenericInformer<Pod> = factory.coreV1().pods();
    assert.equal(factory.coreV1().pods().informer(), pods.informer(), 'one informer per resource');
    const events: string[] = [];
    pods.informer().addEventHandler({ onAdd: (p) => void events.push(`add:${p.metadata?.name}`), onDelete: (p) => void events.push(`delete:${p instanceof DeletedFinalStateUnknown ? p.key : p.metadata?.name}`) });
    const controller = new AbortController();
    factory.start({ signal: controller.signal });
    const synced = await factory.waitForCacheSync({ signal: controller.signal });
    assert.deepEqual([...synced], [['/v1/pods', true]]);
    assert.deepEqual(pods.lister().namespace(ns).list().map((p) => p.metadata?.name), ['a']);
    await cs.coreV1().pods(ns).create(pod('c', { app: 'web' }));
    await until(() => events.length === 2);
    await cs.coreV1().pods(ns).delete('a');
    await until(() => events.length === 3);
    assert.deepEqual(events, ['add:a', 'add:c', 'delete:a']);
    // Watch events carry TypeMeta (items of a LIST do not: a cache can hold both shapes).
    assert.equal(pods.lister().namespace(ns).get('c').kind, 'Pod');
    await factory.shutdown();
  });
}

e2eTest('a namespaced factory only sees its namespace; cluster-scoped accessors work', async (env) => {
  const { cs, namespace: ns } = env;
  const other = await env.createNamespace('kl-e2e-other');
  await cs.coreV1().configMaps(ns).create({ metadata: { name: 'mine' } });
  await cs.coreV1().configMaps(other).create({ metadata: { name: 'theirs' } });
  const factory = newSharedInformerFactory(cs.restClient, { namespace: ns });
  const cms = factory.coreV1().configMaps();
  const nss = factory.coreV1().namespaces();
  cms.informer();
  nss.informer();
  factory.start();
  await factory.waitForCacheSync();
  assert.deepEqual(cms.lister().list().map((c) => c.metadata?.name), ['mine']);
  assert.ok(nss.lister().get(other) !== undefined);
  await factory.shutdown();
});

e2eTest('dynamic and metadata-only factories cache any resource, CRDs included', async (env) => {
  const { cs, namespace: ns, suffix } = env;
  const group = `${suffix}.example.com`;
  await env.createCrd({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as never } }],
    },
  });
  await cs.coreV1().secrets(ns).create({ metadata: { name: 's1' }, stringData: { password: 'hunter2' } });
  const gvr = { group, version: 'v1', resource: 'widgets' };
  const dynamic = newDynamicSharedInformerFactory(cs.restClient);
  const widgets = dynamic.forResource<Unstructured>(gvr);
  widgets.informer();
  const metadata = newMetadataSharedInformerFactory(cs.restClient, { namespace: ns });
  const secrets = metadata.forResource<PartialObjectMetadata>({ group: '', version: 'v1', resource: 'secrets' });
  secrets.informer();
  dynamic.start();
  metadata.start();
  await Promise.all([dynamic.waitForCacheSync(), metadata.waitForCacheSync()]);
  await new DynamicClient(cs.restClient).resource(gvr).namespace(ns).create({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { a: 1 } });
  await until(() => widgets.lister().list().length === 1);
  assert.deepEqual(widgets.lister().namespace(ns).get('w')['spec'], { a: 1 });
  const cached = secrets.lister().namespace(ns).get('s1');
  assert.equal(cached.kind, 'PartialObjectMetadata');
  assert.deepEqual(Object.keys(cached).sort(), ['apiVersion', 'kind', 'metadata']);
  await Promise.all([dynamic.shutdown(), metadata.shutdown()]);
});
