import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, configMap, pod, watch, brief, type Json } from './apiserver-helpers.ts';

// Without the garbage collector, the finalizers a DELETE sets stay for the test to see (as on v1.24 with no
// kube-controller-manager).
async function withServer(fn: (s: ApiServer) => Promise<void>, clock?: FakeClock): Promise<void> {
  const s = await startApiServer({ ...(clock === undefined ? {} : { clock }), controllers: { garbageCollector: false } });
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

const cms = '/api/v1/namespaces/default/configmaps';

test('DELETE without finalizers removes the object at once and answers as its registry does: a Success Status, or the object for pods, services, ...', async () => {
  await withServer(async (s) => {
    const created = await create(s, cms, configMap('a'));
    const r = await call(s, 'DELETE', `${cms}/a`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'a', kind: 'configmaps', uid: created.metadata.uid } });
    assert.equal((await call(s, 'GET', `${cms}/a`)).status, 404);
    const deploy = await create(s, '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    const d = await call(s, 'DELETE', '/apis/apps/v1/namespaces/default/deployments/d');
    assert.deepEqual(d.body.details, { name: 'd', group: 'apps', kind: 'deployments', uid: deploy.metadata.uid });
    const p = await create(s, '/api/v1/namespaces/default/pods', pod('p'));
    const pr = await call(s, 'DELETE', '/api/v1/namespaces/default/pods/p');
    assert.equal(pr.body.kind, 'Pod');
    assert.equal(pr.body.metadata.uid, p.metadata.uid);
    // The pod is marked for deletion first (its own write), then removed: the answer is the marked pod, a
    // revision before the removal's (as kube-apiserver v1.24 answers for a pod with no node).
    assert.equal(pr.body.metadata.resourceVersion, String(s.revision() - 1));
    assert.equal(pr.body.metadata.deletionGracePeriodSeconds, 0);
    assert.ok(pr.body.metadata.deletionTimestamp !== undefined);
  });
});

test('with finalizers DELETE sets deletionTimestamp; the object goes when the last finalizer is removed', async () => {
  const clock = new FakeClock(Date.parse('2024-06-01T00:00:00Z'));
  await withServer(async (s) => {
    await create(s, cms, { ...configMap('f'), metadata: { name: 'f', finalizers: ['example.com/a', 'example.com/b'] } });
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
    const marked = await call(s, 'DELETE', `${cms}/f`);
    assert.equal(marked.status, 200);
    assert.equal(marked.body.metadata.deletionTimestamp, '2024-06-01T00:00:00Z');
    assert.equal(marked.body.metadata.deletionGracePeriodSeconds, 0);
    // Deleting again changes nothing.
    const again = await call(s, 'DELETE', `${cms}/f`);
    assert.equal(again.body.metadata.resourceVersion, marked.body.metadata.resourceVersion);
    const one = await call(s, 'PUT', `${cms}/f`, { body: { ...marked.body, metadata: { ...marked.body.metadata, finalizers: ['example.com/b'] } } });
    assert.equal(one.status, 200);
    assert.equal((await call(s, 'GET', `${cms}/f`)).status, 200);
    const last = await call(s, 'PATCH', `${cms}/f`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    assert.equal(last.status, 200);
    assert.equal((await call(s, 'GET', `${cms}/f`)).status, 404);
    const events = [await w.next(), await w.next(), await w.next()];
    assert.deepEqual(
      events.map((e: Json) => e.type),
      ['MODIFIED', 'MODIFIED', 'DELETED'],
    );
    assert.equal(brief(events[2]), `DELETED f ${s.revision()}`);
    await w.close();
  }, clock);
});

test('preconditions on uid and resourceVersion are 409 Conflict when they do not hold', async () => {
  await withServer(async (s) => {
    const created = await create(s, cms, configMap('p'));
    const uid = await call(s, 'DELETE', `${cms}/p`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } } });
    assert.equal(uid.status, 409);
    assert.equal(uid.body.reason, 'Conflict');
    // rest.BeforeDelete's wording, against the kind (as v1.24 answers).
    assert.equal(uid.body.message, `Operation cannot be fulfilled on ConfigMap "p": the UID in the precondition (not-the-uid) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`);
    assert.deepEqual(uid.body.details, { name: 'p', kind: 'ConfigMap' });
    const rv = await call(s, 'DELETE', `${cms}/p`, { body: { preconditions: { resourceVersion: '1' } } });
    assert.equal(rv.status, 409);
    assert.equal(rv.body.message, `Operation cannot be fulfilled on ConfigMap "p": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${created.metadata.resourceVersion}). The object might have been modified`);
    const ok = await call(s, 'DELETE', `${cms}/p`, { body: { preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion } } });
    assert.equal(ok.status, 200);
    // kube-apiserver answers an undecodable DeleteOptions body with an untyped 500.
    const badBody = await call(s, 'DELETE', `${cms}/p`, { raw: '{nope' });
    assert.equal(badBody.status, 500);
    const badGrace = await call(s, 'DELETE', `${cms}/p?gracePeriodSeconds=soon`);
    assert.equal(badGrace.status, 400);
    assert.equal(badGrace.body.message, 'strconv.ParseInt: parsing "soon": invalid syntax');
  });
});

test('DELETE of a collection honours label and field selectors and returns the deleted items', async () => {
  await withServer(async (s) => {
    await create(s, cms, configMap('a', {}, { app: 'web' }));
    await create(s, cms, configMap('b', {}, { app: 'web' }));
    await create(s, cms, configMap('c', {}, { app: 'db' }));
    await create(s, '/api/v1/namespaces/kube-system/configmaps', configMap('d', {}, { app: 'web' }));
    const r = await call(s, 'DELETE', `${cms}?labelSelector=app%3Dweb`);
    assert.equal(r.status, 200);
    assert.equal(r.body.kind, 'ConfigMapList');
    assert.deepEqual(
      r.body.items.map((i: Json) => i.metadata.name),
      ['a', 'b'],
    );
    const left = (await call(s, 'GET', '/api/v1/configmaps?labelSelector=app')).body.items.map((i: Json) => `${i.metadata.namespace}/${i.metadata.name}`);
    assert.deepEqual(left, ['default/c', 'kube-system/d']);
    const byField = await call(s, 'DELETE', `${cms}?fieldSelector=metadata.name%3Dc`);
    assert.equal(byField.body.items.length, 1);
    assert.equal((await call(s, 'GET', cms)).body.items.length, 0);
  });
});

test('DeleteOptions put the garbage-collection finalizers on the object; a later DELETE changes them; Background removes them', async () => {
  const clock = new FakeClock(Date.parse('2024-06-01T00:00:00Z'));
  await withServer(async (s) => {
    await create(s, cms, configMap('fg'));
    const fg = await call(s, 'DELETE', `${cms}/fg?propagationPolicy=Foreground`);
    assert.equal(fg.status, 200);
    assert.deepEqual(fg.body.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(fg.body.metadata.deletionTimestamp, '2024-06-01T00:00:00Z');
    assert.equal(fg.body.metadata.deletionGracePeriodSeconds, 0);
    await clock.step(60_000);
    const orphan = await call(s, 'DELETE', `${cms}/fg`, { body: { propagationPolicy: 'Orphan' } });
    assert.deepEqual(orphan.body.metadata.finalizers, ['orphan']);
    assert.equal(orphan.body.metadata.deletionTimestamp, '2024-06-01T00:00:00Z', 'the first mark is kept');
    const gone = await call(s, 'DELETE', `${cms}/fg`, { body: { propagationPolicy: 'Background' } });
    assert.equal(gone.body.kind, 'Status');
    assert.equal((await call(s, 'GET', `${cms}/fg`)).status, 404);
    // The deprecated orphanDependents: true orphans; false means "not in the foreground", so nothing is set.
    await create(s, cms, configMap('od'));
    assert.deepEqual((await call(s, 'DELETE', `${cms}/od`, { body: { orphanDependents: true } })).body.metadata.finalizers, ['orphan']);
    await create(s, cms, configMap('od2'));
    assert.equal((await call(s, 'DELETE', `${cms}/od2`, { body: { orphanDependents: false } })).body.status, 'Success');
    // Other finalizers stay, in their order, ahead of the collector's.
    await create(s, cms, { ...configMap('mixed'), metadata: { name: 'mixed', finalizers: ['example.com/a'] } });
    assert.deepEqual((await call(s, 'DELETE', `${cms}/mixed?propagationPolicy=Foreground`)).body.metadata.finalizers, ['example.com/a', 'foregroundDeletion']);
    // Events never take them (their strategy's policy is Unsupported).
    await create(s, '/api/v1/namespaces/default/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'x', namespace: 'default' }, reason: 'R', message: 'm' });
    assert.equal((await call(s, 'DELETE', '/api/v1/namespaces/default/events/e?propagationPolicy=Foreground')).body.status, 'Success');
  }, clock);
});

test('a dry-run DELETE answers with the object as the deletion would leave it, and stores nothing', async () => {
  await withServer(async (s) => {
    const created = await create(s, cms, configMap('dry'));
    const r = await call(s, 'DELETE', `${cms}/dry?dryRun=All&propagationPolicy=Foreground`);
    assert.deepEqual(r.body.metadata.finalizers, ['foregroundDeletion']);
    const after = (await call(s, 'GET', `${cms}/dry`)).body;
    assert.equal(after.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(after.metadata.finalizers, undefined);
  });
});

test('DeleteOptions that contradict themselves or name an unknown policy are 422, as ValidateDeleteOptions words it', async () => {
  await withServer(async (s) => {
    await create(s, cms, configMap('x'));
    const both = await call(s, 'DELETE', `${cms}/x`, { body: { orphanDependents: true, propagationPolicy: 'Foreground' } });
    assert.equal(both.status, 422);
    assert.equal(both.body.message, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set');
    const bogus = await call(s, 'DELETE', `${cms}/x?propagationPolicy=Bogus`);
    assert.equal(bogus.status, 422);
    assert.equal(bogus.body.details.causes[0].message, 'Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"');
  });
});

test('default, kube-system and kube-public may not be deleted (403, as NamespaceLifecycle answers)', async () => {
  await withServer(async (s) => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      const r = await call(s, 'DELETE', `/api/v1/namespaces/${ns}`);
      assert.equal(r.status, 403);
      assert.equal(r.body.reason, 'Forbidden');
      assert.equal(r.body.message, `namespaces "${ns}" is forbidden: this namespace may not be deleted`);
      assert.deepEqual(r.body.details, { name: ns, kind: 'namespaces' });
    }
  });
});

test('dryRun DELETE leaves the object in place', async () => {
  await withServer(async (s) => {
    await create(s, cms, configMap('keep'));
    const r = await call(s, 'DELETE', `${cms}/keep?dryRun=All`);
    assert.equal(r.status, 200);
    assert.equal((await call(s, 'GET', `${cms}/keep`)).status, 200);
  });
});
