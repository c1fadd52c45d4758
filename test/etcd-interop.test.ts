// The real kube-apiserver and `kubeloom apiserver` on one etcd (opt-in): kube-apiserver writes a ConfigMap, a
// Deployment and a custom resource; a kubeloom server started on its etcd reads, lists, watches and updates
// them; kubeloom writes, kube-apiserver reads, lists, watches and updates; each sees the other's changes in
// its watches; a CRD kubeloom creates is served by kube-apiserver; unconditional patches racing on one object
// from both servers all succeed. Runs when KUBELOOM_TEST_ETCD (the etcd's client URL) and KUBELOOM_TEST_KUBECONFIG (a
// kube-apiserver on that etcd, with the default `/registry` prefix) are set, e.g. by `npm run test:real`:
//
//   KUBELOOM_TEST_ETCD=http://127.0.0.1:23790 KUBELOOM_TEST_KUBECONFIG=$HOME/realk8s/kubeconfig \
//     node --test test/etcd-interop.test.ts
//
// It works in a namespace `etcd-lane-<random>` and a CRD group `etcd-lane.kubeloom.dev`, deleted afterwards;
// the kubeloom server runs without its in-server controllers, so it changes nothing else on that etcd
// except the `kubernetes` Service's Endpoints and EndpointSlice, which kube-apiserver's endpoint reconciler
// (and kubeloom's bootstrap) keep pointing at the server that writes them last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { loadKubeConfig, restConfigFrom } from '../src/clientcmd/index.ts';
import { DynamicClient } from '../src/dynamic/index.ts';
import { RestClient } from '../src/rest/index.ts';
import { startApiServer } from '../src/apiserver/server.ts';
import { KubeconfigEnvVar } from './support/backend-env.ts';
import type { Unstructured } from '../src/apimachinery/object.ts';
import { PatchType } from '../src/apimachinery/options.ts';

const etcdUrl = process.env.KUBELOOM_TEST_ETCD;
const kubeconfig = process.env[KubeconfigEnvVar];
const skip = etcdUrl === undefined || etcdUrl === '' || kubeconfig === undefined || kubeconfig === '' ? `set KUBELOOM_TEST_ETCD and ${KubeconfigEnvVar} (a kube-apiserver on that etcd) to run` : undefined;

const group = 'etcd-lane.kubeloom.dev';
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
  },
};

const trinkets = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `trinkets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'trinkets', singular: 'trinket', kind: 'Trinket', listKind: 'TrinketList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } } } }],
  },
};

const deployment = (name: string, ns: string): Unstructured => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: ns },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
});

type Obj = Record<string, unknown>;
const rvOf = (o: Obj): string => (o.metadata as { resourceVersion: string }).resourceVersion;
const dataOf = (o: Obj): unknown => o.data;

test('kube-apiserver v1.24 and kubeloom serve the same etcd: each reads, lists, watches and updates what the other wrote', { ...(skip === undefined ? {} : { skip }), timeout: 300_000 }, async () => {
  const realRest = new RestClient(await restConfigFrom(await loadKubeConfig({ path: kubeconfig!, env: {} })));
  const real = new DynamicClient(realRest);
  const ns = `etcd-lane-${randomBytes(3).toString('hex')}`;
  const namespaces = real.resource({ group: '', version: 'v1', resource: 'namespaces' });
  const crds = real.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
  await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  try {
    await crds.create(crd as Unstructured).catch((err: unknown) => {
      if (!String(err).includes('already exists')) throw err;
    });
    // Wait until kube-apiserver serves it.
    for (;;) {
      const got = (await crds.get(crd.metadata.name)) as Obj;
      const conditions = ((got.status as Obj | undefined)?.conditions ?? []) as Array<{ type: string; status: string }>;
      if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const realCms = real.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace(ns);
    const realDeps = real.resource({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace(ns);
    const realGadgets = real.resource({ group, version: 'v1', resource: 'gadgets' }).namespace(ns);
    const fromReal = (await realCms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-real', namespace: ns }, data: { by: 'kube-apiserver' } })) as Obj;
    const depFromReal = (await realDeps.create(deployment('dep-real', ns))) as Obj;
    const gadgetFromReal = (await realGadgets.create({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g-real', namespace: ns }, spec: { size: 3 } })) as Obj;

    const server = await startApiServer({ etcdServers: [etcdUrl!], controllers: { garbageCollector: false, namespace: false } });
    const kubeloomRest = new RestClient(server.loopbackConfig());
    try {
      const kl = new DynamicClient(kubeloomRest);
      const klCms = kl.resource({ group: '', version: 'v1', resource: 'configmaps' }).namespace(ns);
      const klDeps = kl.resource({ group: 'apps', version: 'v1', resource: 'deployments' }).namespace(ns);
      const klGadgets = kl.resource({ group, version: 'v1', resource: 'gadgets' }).namespace(ns);

      // kubeloom reads and lists what kube-apiserver wrote, at the same resourceVersions.
      const cm = (await klCms.get('from-real')) as Obj;
      assert.equal(rvOf(cm), rvOf(fromReal));
      assert.deepEqual(dataOf(cm), { by: 'kube-apiserver' });
      const dep = (await klDeps.get('dep-real')) as Obj;
      assert.equal(rvOf(dep), rvOf(depFromReal));
      assert.deepEqual((dep.spec as Obj).template, (depFromReal.spec as Obj).template);
      assert.equal(rvOf((await klGadgets.get('g-real')) as Obj), rvOf(gadgetFromReal));
      const names = async (c: { list(): Promise<{ items: unknown[] }> }): Promise<string[]> => ((await c.list()).items as Obj[]).map((o) => `${(o.metadata as { name: string }).name}@${rvOf(o)}`).sort();
      assert.deepEqual(await names(klCms), await names(realCms));

      // Each watches the other's writes.
      // (kubeloom's watch cache starts at the revision it loaded, so each watch starts from its own list.)
      const listRv = async (c: { list(): Promise<{ metadata?: { resourceVersion?: string } }> }): Promise<string> => (await c.list()).metadata?.resourceVersion ?? '';
      const klWatch = await klCms.watch({ resourceVersion: await listRv(klCms) });
      const realWatch = await realCms.watch({ resourceVersion: await listRv(realCms) });
      // kube-apiserver updates; kubeloom sees it. kubeloom updates; kube-apiserver sees it.
      const updatedByReal = (await realCms.update({ ...fromReal, data: { by: 'kube-apiserver', step: '2' } } as Unstructured)) as Obj;
      const fromKubeloom = (await klCms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-kubeloom', namespace: ns }, data: { by: 'kubeloom' } })) as Obj;
      const klSeen: string[] = [];
      for await (const e of klWatch) {
        klSeen.push(`${e.type} ${((e.object as Obj).metadata as { name: string }).name}@${rvOf(e.object as Obj)}`);
        if (klSeen.length === 2) break;
      }
      assert.deepEqual(klSeen, [`MODIFIED from-real@${rvOf(updatedByReal)}`, `ADDED from-kubeloom@${rvOf(fromKubeloom)}`]);
      const realSeen: string[] = [];
      for await (const e of realWatch) {
        if (e.type === 'BOOKMARK') continue;
        realSeen.push(`${e.type} ${((e.object as Obj).metadata as { name: string }).name}@${rvOf(e.object as Obj)}`);
        if (realSeen.length === 2) break;
      }
      assert.deepEqual(realSeen, [`MODIFIED from-real@${rvOf(updatedByReal)}`, `ADDED from-kubeloom@${rvOf(fromKubeloom)}`]);

      // kube-apiserver reads, lists and updates what kubeloom wrote: a ConfigMap, a Deployment, a custom resource.
      const back = (await realCms.get('from-kubeloom')) as Obj;
      assert.equal(rvOf(back), rvOf(fromKubeloom));
      assert.deepEqual(dataOf(back), { by: 'kubeloom' });
      const depFromKl = (await klDeps.create(deployment('dep-kubeloom', ns))) as Obj;
      const depBack = (await realDeps.get('dep-kubeloom')) as Obj;
      assert.equal(rvOf(depBack), rvOf(depFromKl));
      assert.deepEqual((depBack.spec as Obj).template, (depFromKl.spec as Obj).template);
      const scaled = (await realDeps.update({ ...depBack, spec: { ...(depBack.spec as Obj), replicas: 2 } } as Unstructured)) as Obj;
      // kubeloom applies kube-apiserver's change through its etcd watch.
      for (;;) {
        const now = (await klDeps.get('dep-kubeloom')) as Obj;
        if (rvOf(now) === rvOf(scaled)) {
          assert.equal((now.spec as { replicas: number }).replicas, 2);
          break;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const gadgetFromKl = (await klGadgets.create({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g-kubeloom', namespace: ns }, spec: { size: 5 } })) as Obj;
      const gadgetBack = (await realGadgets.get('g-kubeloom')) as Obj;
      assert.equal(rvOf(gadgetBack), rvOf(gadgetFromKl));
      assert.deepEqual(gadgetBack.spec, { size: 5 });
      assert.deepEqual(((await realGadgets.list()).items as Obj[]).map((o) => (o.metadata as { name: string }).name).sort(), ['g-kubeloom', 'g-real']);
      assert.deepEqual(((await klGadgets.list()).items as Obj[]).map((o) => (o.metadata as { name: string }).name).sort(), ['g-kubeloom', 'g-real']);
      // A CRD kubeloom creates (stored as v1) is served by kube-apiserver too, with the custom resources kubeloom wrote.
      const klCrds = kl.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' });
      await klCrds.create(trinkets as Unstructured);
      const klTrinkets = kl.resource({ group, version: 'v1', resource: 'trinkets' }).namespace(ns);
      const trinket = (await klTrinkets.create({ apiVersion: `${group}/v1`, kind: 'Trinket', metadata: { name: 't1', namespace: ns }, spec: { n: 1 } })) as Obj;
      const realTrinkets = real.resource({ group, version: 'v1', resource: 'trinkets' }).namespace(ns);
      for (;;) {
        const got = await realTrinkets.get('t1').catch(() => undefined);
        if (got !== undefined) {
          assert.equal(rvOf(got as Obj), rvOf(trinket));
          break;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      // A stale update is a Conflict on kubeloom too (compare-and-swap on the mod revision).
      await assert.rejects(klCms.update({ ...fromReal, data: { stale: 'yes' } } as Unstructured), /the object has been modified/);
      // Unconditional patches racing on one object from both servers all succeed (GuaranteedUpdate on both).
      const racers = 12;
      await klCms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raced', namespace: ns }, data: {} });
      const answers = await Promise.allSettled(
        Array.from({ length: racers }, (_, i) => [
          realCms.patch('raced', PatchType.Merge, { data: { [`real-${i}`]: 'y' } }),
          klCms.patch('raced', PatchType.Merge, { data: { [`kubeloom-${i}`]: 'y' } }),
        ]).flat(),
      );
      assert.deepEqual(answers.filter((a) => a.status === 'rejected').map((a) => String((a as PromiseRejectedResult).reason)), []);
      const raced = (await realCms.get('raced')) as Obj;
      assert.equal(Object.keys(raced.data as Obj).length, 2 * racers);
    } finally {
      await kubeloomRest.close();
      await server.stop();
    }
  } finally {
    await real.resource({ group, version: 'v1', resource: 'gadgets' }).namespace(ns).deleteCollection().catch(() => {});
    await real.resource({ group, version: 'v1', resource: 'trinkets' }).namespace(ns).deleteCollection().catch(() => {});
    await crds.delete(crd.metadata.name).catch(() => {});
    await crds.delete(trinkets.metadata.name).catch(() => {});
    await namespaces.delete(ns).catch(() => {});
    await realRest.close();
  }
});
