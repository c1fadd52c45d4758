/**
 * Garbage collection by ownerReferences in the embedded API server: background, foreground and orphan
 * deletion, for built-ins and custom resources, cluster- and namespace-scoped owners, as kube-controller-
 * manager's garbage collector does it (pkg/controller/garbagecollector/garbagecollector.go,
 * graph_builder.go). The deletion side (which finalizers a DELETE sets) is kube-apiserver's and was checked
 * against v1.24. Every wait is `server.controllers.waitForIdle()`: the collector runs inside the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiServer, ApiServerOptions } from '../src/testing/index.ts';
import { call, configMap, create, withControllers, type Json } from './apiserver-helpers.ts';

const cms = '/api/v1/namespaces/default/configmaps';
const secrets = '/api/v1/namespaces/default/secrets';

function withServer(fn: (s: ApiServer) => Promise<void>, options: ApiServerOptions = {}): Promise<void> {
  return withControllers(options, fn);
}

function ownerRef(owner: Json, extra: Record<string, unknown> = {}): Json {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, ...extra };
}

/** A ConfigMap owned by `owners`. */
function dependent(name: string, owners: Json[]): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners } };
}

async function exists(s: ApiServer, path: string): Promise<boolean> {
  const r = await call(s, 'GET', path);
  if (r.status !== 200 && r.status !== 404) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.status === 200;
}

test('background deletion: deleting an owner deletes its dependents, transitively, and leaves others alone', async () => {
  await withServer(async (s) => {
    const owner = await create(s, cms, configMap('owner'));
    const child = await create(s, cms, dependent('child', [ownerRef(owner)]));
    await create(s, cms, dependent('grandchild', [ownerRef(child)]));
    await create(s, cms, configMap('bystander'));
    const r = await call(s, 'DELETE', `${cms}/owner`);
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'Success');
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/child`), false);
    assert.equal(await exists(s, `${cms}/grandchild`), false);
    assert.equal(await exists(s, `${cms}/bystander`), true);
  });
});

test('foreground deletion: the owner stays, marked, until every blocking dependent is gone', async () => {
  await withServer(async (s) => {
    const owner = await create(s, cms, configMap('owner'));
    // A blocking dependent held by its own finalizer, a blocking one without, and a non-blocking one.
    await create(s, cms, { ...dependent('held', [ownerRef(owner, { blockOwnerDeletion: true })]), metadata: { name: 'held', finalizers: ['example.com/hold'], ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] } });
    await create(s, cms, dependent('blocking', [ownerRef(owner, { blockOwnerDeletion: true })]));
    await create(s, cms, dependent('loose', [ownerRef(owner)]));
    const r = await call(s, 'DELETE', `${cms}/owner?propagationPolicy=Foreground`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(typeof r.body.metadata.deletionTimestamp, 'string');
    await s.controllers.waitForIdle();
    // Everything that can go went; the held dependent is marked and keeps the owner.
    assert.equal(await exists(s, `${cms}/blocking`), false);
    assert.equal(await exists(s, `${cms}/loose`), false);
    const held = (await call(s, 'GET', `${cms}/held`)).body;
    assert.equal(typeof held.metadata.deletionTimestamp, 'string');
    const still = (await call(s, 'GET', `${cms}/owner`)).body;
    assert.deepEqual(still.metadata.finalizers, ['foregroundDeletion']);
    // Releasing the held dependent lets the owner go.
    await call(s, 'PATCH', `${cms}/held`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/held`), false);
    assert.equal(await exists(s, `${cms}/owner`), false);
  });
});

test('foreground deletion cascades: a dependent with dependents of its own is deleted in the foreground too', async () => {
  await withServer(async (s) => {
    const owner = await create(s, cms, configMap('owner'));
    const middle = await create(s, cms, dependent('middle', [ownerRef(owner, { blockOwnerDeletion: true })]));
    await create(s, cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'leaf', finalizers: ['example.com/hold'], ownerReferences: [ownerRef(middle, { blockOwnerDeletion: true })] } });
    await call(s, 'DELETE', `${cms}/owner`, { body: { propagationPolicy: 'Foreground' } });
    await s.controllers.waitForIdle();
    // The middle object waits for its leaf in the foreground, and the owner waits for the middle.
    assert.deepEqual((await call(s, 'GET', `${cms}/middle`)).body.metadata.finalizers, ['foregroundDeletion']);
    assert.deepEqual((await call(s, 'GET', `${cms}/owner`)).body.metadata.finalizers, ['foregroundDeletion']);
    await call(s, 'PATCH', `${cms}/leaf`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    await s.controllers.waitForIdle();
    for (const name of ['leaf', 'middle', 'owner']) assert.equal(await exists(s, `${cms}/${name}`), false, name);
  });
});

test('orphan deletion: dependents lose the reference to the owner (and keep their others), then the owner goes', async () => {
  await withServer(async (s) => {
    const owner = await create(s, cms, configMap('owner'));
    const other = await create(s, cms, configMap('other'));
    await create(s, cms, dependent('a', [ownerRef(owner, { controller: true, blockOwnerDeletion: true })]));
    await create(s, cms, dependent('b', [ownerRef(owner), ownerRef(other)]));
    const r = await call(s, 'DELETE', `${cms}/owner?propagationPolicy=Orphan`);
    assert.deepEqual(r.body.metadata.finalizers, ['orphan']);
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/owner`), false);
    const a = (await call(s, 'GET', `${cms}/a`)).body;
    assert.equal(a.metadata.ownerReferences, undefined);
    const b = (await call(s, 'GET', `${cms}/b`)).body;
    assert.deepEqual(b.metadata.ownerReferences, [ownerRef(other)]);
  });
});

test('batch/v1 Jobs orphan their dependents by default (their strategy), unless the request asks otherwise', async () => {
  await withServer(async (s) => {
    const jobs = '/apis/batch/v1/namespaces/default/jobs';
    const job = (name: string): Json => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } });
    const kept = await create(s, jobs, job('kept'));
    const gone = await create(s, jobs, job('gone'));
    await create(s, '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'kept-pod', ownerReferences: [ownerRef(kept, { controller: true, blockOwnerDeletion: true })] }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await create(s, '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gone-pod', ownerReferences: [ownerRef(gone, { controller: true, blockOwnerDeletion: true })] }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const d = await call(s, 'DELETE', `${jobs}/kept`);
    assert.deepEqual(d.body.metadata.finalizers, ['orphan']);
    // markAsDeleting bumps the generation of objects that have one.
    assert.equal(d.body.metadata.generation, 2);
    await call(s, 'DELETE', `${jobs}/gone?propagationPolicy=Background`);
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${jobs}/kept`), false);
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/default/pods/kept-pod')).body.metadata.ownerReferences, undefined);
    assert.equal(await exists(s, '/api/v1/namespaces/default/pods/gone-pod'), false);
  });
});

test('an owner that is gone, or exists with another uid, is absent: its dependents are collected', async () => {
  await withServer(async (s) => {
    // Created before the dependent names it, deleted and recreated: same name, new uid.
    const first = await create(s, cms, configMap('owner'));
    await call(s, 'DELETE', `${cms}/owner`);
    await create(s, cms, configMap('owner'));
    await create(s, cms, dependent('stale', [ownerRef(first)]));
    await create(s, cms, dependent('never', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000000' }]));
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/stale`), false);
    assert.equal(await exists(s, `${cms}/never`), false);
    assert.equal(await exists(s, `${cms}/owner`), true);
  });
});

test('with one owner alive, only the dangling references are removed', async () => {
  await withServer(async (s) => {
    const alive = await create(s, cms, configMap('alive'));
    const doomed = await create(s, cms, configMap('doomed'));
    await create(s, cms, dependent('shared', [ownerRef(alive), ownerRef(doomed)]));
    await call(s, 'DELETE', `${cms}/doomed`);
    await s.controllers.waitForIdle();
    assert.deepEqual((await call(s, 'GET', `${cms}/shared`)).body.metadata.ownerReferences, [ownerRef(alive)]);
  });
});

test('scopes: a cluster-scoped owner of namespaced dependents is honoured; a namespaced owner of a cluster-scoped dependent is ignored', async () => {
  await withServer(async (s) => {
    const ns = await create(s, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'owner-ns' } });
    const role = await create(s, '/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'owner-role' }, rules: [] });
    await create(s, cms, dependent('of-role', [ownerRef(role)]));
    const owner = await create(s, cms, configMap('ns-owner'));
    // A ClusterRole cannot be owned by a namespaced object: the collector leaves it alone.
    await create(s, '/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'odd', ownerReferences: [ownerRef(owner)] }, rules: [] });
    await create(s, secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'of-ns', ownerReferences: [ownerRef(ns)] } });
    await call(s, 'DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/owner-role');
    await call(s, 'DELETE', `${cms}/ns-owner`);
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/of-role`), false);
    assert.equal(await exists(s, '/apis/rbac.authorization.k8s.io/v1/clusterroles/odd'), true);
    assert.equal(await exists(s, `${secrets}/of-ns`), true, 'its cluster-scoped owner lives');
  });
});

test('a reference to an owner in another namespace does not resolve: the dependent goes, with an OwnerRefInvalidNamespace event', async () => {
  await withServer(async (s) => {
    const owner = await create(s, '/api/v1/namespaces/kube-public/configmaps', configMap('elsewhere'));
    const dep = await create(s, cms, dependent('cross', [ownerRef(owner)]));
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/cross`), false);
    assert.equal(await exists(s, '/api/v1/namespaces/kube-public/configmaps/elsewhere'), true);
    const events = (await call(s, 'GET', '/api/v1/namespaces/default/events')).body.items as Json[];
    const e = events.find((x) => x.reason === 'OwnerRefInvalidNamespace');
    assert.ok(e !== undefined, 'an OwnerRefInvalidNamespace event');
    assert.equal(e.type, 'Warning');
    assert.deepEqual(e.involvedObject, { kind: 'ConfigMap', namespace: 'default', name: 'cross', uid: dep.metadata.uid, apiVersion: 'v1' });
    assert.equal(e.message, `ownerRef [v1/ConfigMap, namespace: default, name: elsewhere, uid: ${owner.metadata.uid}] does not exist in namespace "default"`);
    assert.deepEqual(e.source, { component: 'garbage-collector-controller' });
  });
});

test('custom resources own and are owned, namespaced and cluster-scoped', async () => {
  await withServer(async (s) => {
    const crd = (plural: string, kind: string, scope: string): Json => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.gc.example.com` },
      spec: {
        group: 'gc.example.com',
        scope,
        names: { plural, singular: kind.toLowerCase(), kind },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('apps', 'App', 'Namespaced'));
    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('tenants', 'Tenant', 'Cluster'));
    const tenant = await create(s, '/apis/gc.example.com/v1/tenants', { apiVersion: 'gc.example.com/v1', kind: 'Tenant', metadata: { name: 't' } });
    const app = await create(s, '/apis/gc.example.com/v1/namespaces/default/apps', { apiVersion: 'gc.example.com/v1', kind: 'App', metadata: { name: 'a', ownerReferences: [ownerRef(tenant)] } });
    await create(s, cms, dependent('app-config', [ownerRef(app, { controller: true, blockOwnerDeletion: true })]));
    const r = await call(s, 'DELETE', '/apis/gc.example.com/v1/tenants/t', { body: { propagationPolicy: 'Foreground' } });
    assert.deepEqual(r.body.metadata.finalizers, ['foregroundDeletion']);
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, '/apis/gc.example.com/v1/tenants/t'), false);
    assert.equal(await exists(s, '/apis/gc.example.com/v1/namespaces/default/apps/a'), false);
    assert.equal(await exists(s, `${cms}/app-config`), false);
  });
});

test('switched off, nothing is collected; started again, it catches up from a full list', async () => {
  await withServer(
    async (s) => {
      assert.equal(s.controllers.isRunning('garbageCollector'), false);
      const owner = await create(s, cms, configMap('owner'));
      await create(s, cms, dependent('child', [ownerRef(owner)]));
      // The API server still sets the finalizers a DELETE asks for; nothing acts on them.
      const fg = await create(s, cms, configMap('fg'));
      await call(s, 'DELETE', `${cms}/fg?propagationPolicy=Foreground`);
      await call(s, 'DELETE', `${cms}/owner`);
      await s.controllers.waitForIdle();
      assert.equal(await exists(s, `${cms}/child`), true);
      assert.deepEqual((await call(s, 'GET', `${cms}/fg`)).body.metadata.finalizers, ['foregroundDeletion']);
      s.controllers.start('garbageCollector');
      await s.controllers.waitForIdle();
      assert.equal(await exists(s, `${cms}/child`), false);
      assert.equal(await exists(s, `${cms}/fg`), false, `${fg.metadata.name} had no dependents left to wait for`);
      await s.controllers.stop('garbageCollector');
      const owner2 = await create(s, cms, configMap('owner2'));
      await create(s, cms, dependent('child2', [ownerRef(owner2)]));
      await call(s, 'DELETE', `${cms}/owner2`);
      await s.controllers.waitForIdle();
      assert.equal(await exists(s, `${cms}/child2`), true);
    },
    { controllers: { garbageCollector: false } },
  );
});

test('a reference whose kind or version is not served is never resolved, and the dependent stays', async () => {
  await withServer(async (s) => {
    await create(s, cms, dependent('unresolved', [{ apiVersion: 'apps/v1beta1', kind: 'Deployment', name: 'old', uid: '11111111-1111-1111-1111-111111111111' }]));
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/unresolved`), true);
  });
});

test('owner references that name nothing are refused or skipped, without errors', async () => {
  await withServer(async (s) => {
    await create(s, cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'odd', ownerReferences: 'nonsense' } });
    // Incomplete references never reach the collector: ValidateOwnerReferences refuses them, as kube-apiserver does.
    await assert.rejects(
      create(s, cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'partial', ownerReferences: [{ uid: 'u' }, { apiVersion: 'v1', kind: 'ConfigMap', name: '', uid: 'x' }] } }),
      /422 .*metadata\.ownerReferences\.apiVersion: Invalid value: \\"\\": version must not be empty/,
    );
    await s.controllers.waitForIdle();
    assert.equal(await exists(s, `${cms}/odd`), true);
    assert.equal(await exists(s, `${cms}/partial`), false);
  });
});
