/**
 * The loops the embedded API server runs in place of kube-controller-manager (garbage collector,
 * namespace controller) and the scheduler and kubelet stand-ins, with installCrds and eventually
 * from kubeloom/testing (envtest's InstallCRDs and Gomega's Eventually). Run with
 * `node --test examples/server-controllers.test.ts`; see docs/apiserver.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { newClientset } from 'kubeloom/kubernetes';
import { eventually, installCrds, startApiServer } from 'kubeloom/testing';
import { FakeClock } from 'kubeloom/util/clock';

test('owners, namespaces and pods on a fake clock: the controllers inside the server', async () => {
  // #region controllers
  const clock = new FakeClock();
  const server = await startApiServer({ clock, controllers: { scheduler: true, kubelet: true } });
  // #endregion
  try {
    const cs = newClientset({ host: server.url, qps: -1 });
    const cms = cs.coreV1().configMaps('default');
    const owner = await cms.create({ metadata: { name: 'owner' } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }];
    await cms.create({ metadata: { name: 'dependent', ownerReferences } });
    await cs.coreV1().namespaces().create({ metadata: { name: 'scratch' } });
    await cs.coreV1().pods('default').create({ metadata: { name: 'web-0' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await cms.delete('owner');
    await cs.coreV1().namespaces().delete('scratch');
    // #region controllers
    // ... delete an owner, a namespace, create pods ...
    await clock.step(5_000);                   // the namespace controller's grace period, if a test needs it
    await server.controllers.waitForIdle();    // nothing left to do now: assert
    // #endregion
    assert.deepEqual((await cms.list()).items.map((cm) => cm.metadata?.name), []); // the dependent went with its owner
    await assert.rejects(cs.coreV1().namespaces().get('scratch'), /not found/);
    const pod = await cs.coreV1().pods('default').get('web-0');
    assert.deepEqual([pod.spec?.nodeName, pod.status?.phase], ['kubeloom-node', 'Running']);

    // #region controllers
    await server.controllers.stop('garbageCollector'); // this test wants dependents to stay
    // #endregion
    const second = await cms.create({ metadata: { name: 'owner-2' } });
    await cms.create({ metadata: { name: 'dependent-2', ownerReferences: [{ ...ownerReferences[0]!, name: 'owner-2', uid: second.metadata!.uid! }] } });
    await cms.delete('owner-2');
    await server.controllers.waitForIdle();
    assert.deepEqual((await cms.list()).items.map((cm) => cm.metadata?.name), ['dependent-2']);
    await cs.close();
  } finally {
    await server.stop();
  }
});

test('installCrds reads CRDs from a directory; eventually waits for a pod to run', async () => {
  // A project layout as kubebuilder makes it: the CRDs in config/crd/bases, paths relative to the project.
  const project = await mkdtemp(path.join(tmpdir(), 'kubeloom-crds-'));
  await mkdir(path.join(project, 'config', 'crd', 'bases'), { recursive: true });
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  };
  await writeFile(path.join(project, 'config', 'crd', 'bases', 'example.com_widgets.yaml'), stringify(crd));
  const cwd = process.cwd();
  process.chdir(project);
  // #region install-eventually
  const server = await startApiServer({ controllers: { scheduler: true, kubelet: true } });
  await installCrds(server, { paths: ['config/crd/bases'], errorIfPathMissing: true });
  // #endregion
  const cs = newClientset({ host: server.url, qps: -1 });
  try {
    const pods = cs.coreV1().pods('default');
    await pods.create({ metadata: { name: 'web-0' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    // #region install-eventually
    await eventually(async () => {
      const pod = await pods.get('web-0');
      assert.equal(pod.status?.phase, 'Running');
    }, { timeoutMs: 5_000 });
    // #endregion
    const resources = await cs.discovery().serverResourcesForGroupVersion('example.com/v1');
    assert.deepEqual(resources.resources.map((r) => r.name), ['widgets']);
  } finally {
    await cs.close();
    await server.stop();
    process.chdir(cwd);
    await rm(project, { recursive: true, force: true });
  }
});
