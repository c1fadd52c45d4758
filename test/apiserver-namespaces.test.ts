/**
 * Namespace lifecycle in the embedded API server: what kube-apiserver does (the namespace registry's
 * Terminating phase and finalize subresource, NamespaceLifecycle admission — bodies as v1.24 answers
 * them) and what kube-controller-manager's namespace controller does (pkg/controller/namespace/deletion:
 * the 5 s grace period, content deletion, conditions, the 8 s recheck while finalizers hold content, the
 * `kubernetes` finalizer removed last). The controller runs on a FakeClock here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import type { ApiServer, ApiServerOptions } from '../src/testing/index.ts';
import { call, configMap, create, watch, withControllers, type Json } from './apiserver-helpers.ts';

const start = Date.parse('2024-06-01T00:00:00Z');

function withServer(fn: (s: ApiServer, clock: FakeClock) => Promise<void>, options: ApiServerOptions = {}): Promise<void> {
  const clock = new FakeClock(start);
  return withControllers({ clock, ...options }, (s) => fn(s, clock));
}

async function namespace(s: ApiServer, name: string, spec?: Json): Promise<Json> {
  return create(s, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...(spec === undefined ? {} : { spec }) });
}

/** Steps the clock and lets the controllers finish what became due. */
async function advance(s: ApiServer, clock: FakeClock, ms: number): Promise<void> {
  await clock.step(ms);
  await s.controllers.waitForIdle();
}

test('DELETE marks a namespace Terminating and answers with it; nothing new may be created in it (403 as NamespaceLifecycle)', async () => {
  await withServer(
    async (s) => {
      const created = await namespace(s, 'doomed');
      assert.deepEqual(created.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual(created.status, { phase: 'Active' });
      await create(s, '/api/v1/namespaces/doomed/configmaps', configMap('old'));
      const r = await call(s, 'DELETE', '/api/v1/namespaces/doomed');
      assert.equal(r.status, 200);
      assert.equal(r.body.kind, 'Namespace');
      assert.equal(r.body.metadata.deletionTimestamp, '2024-06-01T00:00:00Z');
      assert.equal(r.body.metadata.deletionGracePeriodSeconds, undefined);
      assert.deepEqual(r.body.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual(r.body.status, { phase: 'Terminating' });
      const again = await call(s, 'DELETE', '/api/v1/namespaces/doomed');
      assert.equal(again.body.metadata.resourceVersion, r.body.metadata.resourceVersion);

      const named = await call(s, 'POST', '/api/v1/namespaces/doomed/configmaps', { body: configMap('new') });
      assert.equal(named.status, 403);
      assert.deepEqual(named.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "new" is forbidden: unable to create new content in namespace doomed because it is being terminated',
        reason: 'Forbidden',
        details: { name: 'new', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }] },
        code: 403,
      });
      // Admission runs before name generation and validation.
      const generated = await call(s, 'POST', '/api/v1/namespaces/doomed/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } } });
      assert.equal(generated.body.message, 'configmaps "cm-" is forbidden: unable to create new content in namespace doomed because it is being terminated');
      const unnamed = await call(s, 'POST', '/api/v1/namespaces/doomed/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } });
      assert.equal(unnamed.body.details.name, 'Unknown');
      const invalid = await call(s, 'POST', '/api/v1/namespaces/doomed/configmaps', { body: configMap('BAD_NAME') });
      assert.equal(invalid.status, 403);
      const apps = await call(s, 'POST', '/apis/apps/v1/namespaces/doomed/deployments', { body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } } });
      assert.equal(apps.body.message, 'deployments.apps "d" is forbidden: unable to create new content in namespace doomed because it is being terminated');
      assert.deepEqual(apps.body.details, { name: 'd', group: 'apps', kind: 'deployments', causes: [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }] });
      // What exists may still change.
      const put = await call(s, 'PUT', '/api/v1/namespaces/doomed/configmaps/old', { body: configMap('old', { a: '1' }) });
      assert.equal(put.status, 200);
    },
    { controllers: { namespace: false } },
  );
});

test('a missing namespace is 404 before anything else is checked, for creates and create-on-update', async () => {
  await withServer(async (s) => {
    const bad = await call(s, 'POST', '/api/v1/namespaces/nowhere/configmaps', { body: configMap('BAD_NAME') });
    assert.equal(bad.status, 404);
    assert.equal(bad.body.message, 'namespaces "nowhere" not found');
    assert.deepEqual(bad.body.details, { name: 'nowhere', kind: 'namespaces' });
    const lease = await call(s, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/nowhere/leases/l', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' } } });
    assert.equal(lease.status, 404);
    assert.equal(lease.body.message, 'namespaces "nowhere" not found');
  });
});

test('the namespace controller waits 5 s, deletes the contents, reports its conditions and removes the namespace', async () => {
  await withServer(async (s, clock) => {
    await namespace(s, 'team');
    await create(s, '/api/v1/namespaces/team/configmaps', configMap('a'));
    await create(s, '/api/v1/namespaces/team/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    await create(s, '/apis/apps/v1/namespaces/team/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    const w = await watch(s, `/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3Dteam&resourceVersion=${s.revision()}`);
    await call(s, 'DELETE', '/api/v1/namespaces/team');
    await advance(s, clock, 4_999);
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/team/configmaps')).body.items.length, 1, 'nothing happens during the grace period');
    await advance(s, clock, 1);
    for (const path of ['/api/v1/namespaces/team/configmaps', '/api/v1/namespaces/team/secrets', '/apis/apps/v1/namespaces/team/deployments']) {
      assert.deepEqual((await call(s, 'GET', path)).body.items, [], path);
    }
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/team')).status, 404);
    const events = [await w.next(), await w.next(), await w.next()];
    assert.deepEqual(
      events.map((e: Json) => e.type),
      ['MODIFIED', 'MODIFIED', 'DELETED'],
    );
    // The conditions went in with one status write; the last stored state goes out with DELETED.
    const conditions = events[2].object.status.conditions;
    assert.deepEqual(
      conditions.map((c: Json) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
        ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
      ],
    );
    assert.equal(conditions[0].lastTransitionTime, '2024-06-01T00:00:05Z');
    assert.deepEqual(events[2].object.spec, { finalizers: ['kubernetes'] });
    await w.close();
  });
});

test('content held by finalizers keeps the namespace Terminating, with conditions naming it, until a recheck finds it gone', async () => {
  await withServer(async (s, clock) => {
    await namespace(s, 'held');
    await create(s, '/api/v1/namespaces/held/configmaps', { ...configMap('keep'), metadata: { name: 'keep', finalizers: ['example.com/keep'] } });
    await create(s, '/api/v1/namespaces/held/configmaps', configMap('free'));
    await call(s, 'DELETE', '/api/v1/namespaces/held');
    await advance(s, clock, 5_000);
    const ns = (await call(s, 'GET', '/api/v1/namespaces/held')).body;
    assert.equal(ns.status.phase, 'Terminating');
    const byType = new Map(ns.status.conditions.map((c: Json) => [c.type, c]));
    assert.deepEqual(byType.get('NamespaceContentRemaining'), {
      type: 'NamespaceContentRemaining',
      status: 'True',
      lastTransitionTime: '2024-06-01T00:00:05Z',
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: configmaps. has 1 resource instances',
    });
    assert.deepEqual(byType.get('NamespaceFinalizersRemaining'), {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      lastTransitionTime: '2024-06-01T00:00:05Z',
      reason: 'SomeFinalizersRemain',
      message: 'Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances',
    });
    const kept = (await call(s, 'GET', '/api/v1/namespaces/held/configmaps/keep')).body;
    assert.equal(kept.metadata.deletionTimestamp, '2024-06-01T00:00:05Z');
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/held/configmaps/free')).status, 404);
    // Its own status write is a namespace event: it looks again 5 s later, finds the same, writes nothing.
    await advance(s, clock, 5_000);
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/held')).body.metadata.resourceVersion, ns.metadata.resourceVersion);
    // The finalizer goes; the next look is the remaining-content recheck, 15 s estimate / 2 + 1 = 8 s later.
    await call(s, 'PATCH', '/api/v1/namespaces/held/configmaps/keep', { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    await advance(s, clock, 7_999);
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/held')).status, 200);
    await advance(s, clock, 1);
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/held')).status, 404);
  });
});

test('spec finalizers of others outlive the controller: it removes only `kubernetes`; the rest is for whoever owns them', async () => {
  await withServer(async (s, clock) => {
    const ns = await namespace(s, 'extra', { finalizers: ['example.com/cleanup'] });
    assert.deepEqual(ns.spec.finalizers, ['example.com/cleanup', 'kubernetes']);
    await call(s, 'DELETE', '/api/v1/namespaces/extra');
    await advance(s, clock, 5_000);
    const left = (await call(s, 'GET', '/api/v1/namespaces/extra')).body;
    assert.deepEqual(left.spec.finalizers, ['example.com/cleanup']);
    assert.ok(left.metadata.managedFields.some((f: Json) => f.manager === 'kube-controller-manager' && f.subresource === 'finalize'));
    const done = await call(s, 'PUT', '/api/v1/namespaces/extra/finalize', { body: { ...left, spec: { finalizers: [] } } });
    assert.equal(done.status, 200);
    assert.equal((await call(s, 'GET', '/api/v1/namespaces/extra')).status, 404);
  });
});

test('without the namespace controller a deleted namespace stays Terminating, contents and all, until finalized by hand', async () => {
  await withServer(
    async (s, clock) => {
      await namespace(s, 'stuck');
      await create(s, '/api/v1/namespaces/stuck/configmaps', configMap('c'));
      await call(s, 'DELETE', '/api/v1/namespaces/stuck');
      await advance(s, clock, 60_000);
      assert.equal((await call(s, 'GET', '/api/v1/namespaces/stuck')).body.status.phase, 'Terminating');
      assert.equal((await call(s, 'GET', '/api/v1/namespaces/stuck/configmaps/c')).status, 200);
      // Turned on later, it picks the namespace up from its list.
      s.controllers.start('namespace');
      await advance(s, clock, 5_000);
      assert.equal((await call(s, 'GET', '/api/v1/namespaces/stuck')).status, 404);
    },
    { controllers: { namespace: false } },
  );
});

test('namespaces/finalize takes only PUT and validates finalizer names; /status keeps the phase in step with deletion; the main resource changes neither', async () => {
  await withServer(
    async (s) => {
      const ns = await namespace(s, 'rules');
      assert.equal((await call(s, 'GET', '/api/v1/namespaces/rules/finalize')).status, 405);
      assert.equal((await call(s, 'PATCH', '/api/v1/namespaces/rules/finalize', { body: {}, contentType: 'application/merge-patch+json' })).status, 405);
      const bad = await call(s, 'PUT', '/api/v1/namespaces/rules/finalize', { body: { ...ns, spec: { finalizers: ['kubernetes', 'bad finalizer'] } } });
      assert.equal(bad.status, 422);
      assert.equal(
        bad.body.message,
        `Namespace "rules" is invalid: [spec.finalizers[1]: Invalid value: "bad finalizer": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.finalizers[1]: Invalid value: "bad finalizer": name is neither a standard finalizer name nor is it fully qualified]`,
      );
      // The main resource ignores spec.finalizers and status.
      const put = await call(s, 'PUT', '/api/v1/namespaces/rules', { body: { ...ns, spec: { finalizers: [] }, status: { phase: 'Terminating' } } });
      assert.deepEqual(put.body.spec, { finalizers: ['kubernetes'] });
      assert.deepEqual(put.body.status, { phase: 'Active' });
      const status = await call(s, 'PUT', '/api/v1/namespaces/rules/status', { body: { ...put.body, status: { phase: 'Terminating' } } });
      assert.equal(status.status, 422);
      assert.equal(status.body.message, 'Namespace "rules" is invalid: status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty');
      // Finalize adds as well as removes.
      const added = await call(s, 'PUT', '/api/v1/namespaces/rules/finalize', { body: { ...put.body, spec: { finalizers: ['kubernetes', 'example.com/x'] }, status: { phase: 'Terminating' } } });
      assert.deepEqual(added.body.spec.finalizers, ['kubernetes', 'example.com/x']);
      assert.deepEqual(added.body.status, { phase: 'Active' });
      // With propagationPolicy, the namespace carries the garbage collector's finalizer too.
      const del = await call(s, 'DELETE', '/api/v1/namespaces/rules?propagationPolicy=Orphan');
      assert.deepEqual(del.body.metadata.finalizers, ['orphan']);
      const wrong = await call(s, 'PUT', '/api/v1/namespaces/rules/status', { body: { ...del.body, status: { phase: 'Active' } } });
      assert.equal(wrong.body.message, 'Namespace "rules" is invalid: status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty');
      // Once marked, a DELETE with another policy changes nothing (v1.24 answers it unchanged).
      const again = await call(s, 'DELETE', '/api/v1/namespaces/rules?propagationPolicy=Foreground');
      assert.deepEqual(again.body.metadata.finalizers, ['orphan']);
      assert.equal(again.body.metadata.resourceVersion, del.body.metadata.resourceVersion);
      // Finalized while a metadata finalizer remains, it stays; with that one gone it goes, its last state in the DELETED event.
      const w = await watch(s, `/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3Drules&resourceVersion=${s.revision()}`);
      const finalized = await call(s, 'PUT', '/api/v1/namespaces/rules/finalize', { body: { ...again.body, spec: { finalizers: [] } } });
      assert.equal(finalized.status, 200);
      assert.deepEqual(finalized.body.spec, {});
      assert.deepEqual(finalized.body.metadata.finalizers, ['orphan']);
      const gone = await call(s, 'PATCH', '/api/v1/namespaces/rules', { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
      assert.equal(gone.status, 200);
      assert.equal((await call(s, 'GET', '/api/v1/namespaces/rules')).status, 404);
      const events = [await w.next(), await w.next()];
      assert.deepEqual(
        events.map((e: Json) => [e.type, e.object.metadata.finalizers, e.object.spec, e.object.status.phase]),
        [
          ['MODIFIED', ['orphan'], {}, 'Terminating'],
          ['DELETED', ['orphan'], {}, 'Terminating'],
        ],
      );
      await w.close();
    },
    { controllers: { namespace: false, garbageCollector: false } },
  );
});

test('default, kube-system, kube-public and kube-node-lease exist at start; the first three are immortal', async () => {
  await withServer(async (s) => {
    const names = (await call(s, 'GET', '/api/v1/namespaces')).body.items.map((n: Json) => n.metadata.name);
    assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const r = await call(s, 'DELETE', '/api/v1/namespaces/kube-system');
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'namespaces "kube-system" is forbidden: this namespace may not be deleted');
  });
});
