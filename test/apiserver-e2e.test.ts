/**
 * Answers of the API server that the real-cluster lane found the embedded server giving differently,
 * asserted as kube-apiserver v1.24 gives them: these run on both backends (docs/testing-real-cluster.md).
 */
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import type { Status } from '../src/api/meta/v1.ts';
import type { CustomResourceDefinition } from '../src/api/apiextensions/v1.ts';
import { isNotFound, statusOf } from '../src/apimachinery/errors.ts';
import type { KubeList } from '../src/apimachinery/object.ts';
import { PatchType } from '../src/apimachinery/options.ts';
import { RestClient } from '../src/rest/index.ts';
import { e2eTest, type E2eEnv } from './support/backend.ts';

/** The Status of a failed request (code, reason and message only). */
async function failure(request: Promise<unknown>): Promise<Pick<Status, 'code' | 'reason' | 'message'>> {
  const err = await request.then(
    () => assert.fail('the request succeeded'),
    (e: unknown) => e,
  );
  const s = statusOf(err);
  assert.ok(s !== undefined, `expected a Status, got ${String(err)}`);
  return { code: s.code, reason: s.reason, message: s.message };
}

/** PATCH with an apply patch of `body` (sent as JSON, which is YAML) to `path` as field manager `t`. */
function applyTo(rest: RestClient, path: string, body: unknown): Promise<unknown> {
  return rest.json({ verb: 'PATCH', path, query: [['fieldManager', 't']], headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(body) });
}

function restOf(env: E2eEnv): RestClient {
  const rest = new RestClient(env.restConfig());
  env.defer(() => rest.close());
  return rest;
}

e2eTest('an apply patch must declare its apiVersion and kind: nothing is taken from the URL', async (env) => {
  const rest = restOf(env);
  const cms = `/api/v1/namespaces/${env.namespace}/configmaps`;
  const incorrectVersion = (specified: string) => ({ code: 400, reason: 'BadRequest', message: `Incorrect version specified in apply patch. Specified patch version: ${specified}, expected: v1` });
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { kind: 'ConfigMap', metadata: { name: 'a' } })), incorrectVersion(''));
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { metadata: { name: 'a' } })), incorrectVersion(''));
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'a' } })), incorrectVersion('apps/v1'));
  // The version is checked before managedFields, managedFields before the kind.
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'a', managedFields: [{ manager: 'x' }] } })), incorrectVersion('v2'));
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', managedFields: [{ manager: 'x' }] } })), { code: 400, reason: 'BadRequest', message: 'metadata.managedFields must be nil' });
  // A kind without a type in v1 (none, a list, a kind of no resource) is an untyped error: 500 without a reason.
  for (const kind of [undefined, 'ConfigMapList', 'Gadget']) {
    const got = await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'v1', ...(kind === undefined ? {} : { kind }), metadata: { name: 'a' } }));
    assert.deepEqual(got, { code: 500, reason: undefined, message: `failed to create typed patch object (/a; /v1, Kind=${kind ?? ''}): no corresponding type for /v1, Kind=${kind ?? ''}` });
  }
  // Another resource's kind fails to merge (kube-apiserver prints the Go addresses of the two types there).
  const other = await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: env.namespace } }));
  assert.deepEqual({ ...other, message: other.message?.replace(/but got .*/, 'but got …') }, { code: 500, reason: undefined, message: 'failed to merge config: expected objects of the same type, but got …' });
  // A new object's name comes from the configuration only; the namespace is checked first.
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'v1', kind: 'ConfigMap' })), { code: 400, reason: 'BadRequest', message: 'the name of the object (a based on URL) was undeterminable: name must be provided' });
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'elsewhere' } })), { code: 400, reason: 'BadRequest', message: 'the namespace of the provided object does not match the namespace sent on the request' });
  assert.deepEqual(await failure(applyTo(rest, `${cms}/a`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } })), { code: 400, reason: 'BadRequest', message: 'the name of the object (b) does not match the name on the URL (a)' });
  // Nothing was created by any of these; a complete configuration is.
  await assert.rejects(env.cs.coreV1().configMaps(env.namespace).get('a'), (e) => isNotFound(e));
  await applyTo(rest, `${cms}/a`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
  // An existing object keeps its name when the configuration leaves it out.
  const updated = (await applyTo(rest, `${cms}/a`, { apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'w' } })) as ConfigMap;
  assert.deepEqual(updated.data, { k: 'w' });
});

e2eTest('an apply patch to a custom resource names the URL\'s version: another served version is refused, not converted', async (env) => {
  const group = `${env.suffix}.example.com`;
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } };
  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v2', served: true, storage: false, schema },
      ],
    },
  };
  await env.createCrd(crd);
  const rest = restOf(env);
  const widgets = `/apis/${group}/v1/namespaces/${env.namespace}/widgets`;
  assert.deepEqual(await failure(applyTo(rest, `${widgets}/w`, { apiVersion: `${group}/v2`, kind: 'Widget', metadata: { name: 'w' } })), {
    code: 400,
    reason: 'BadRequest',
    message: `Incorrect version specified in apply patch. Specified patch version: ${group}/v2, expected: ${group}/v1`,
  });
  assert.deepEqual(await failure(applyTo(rest, `${widgets}/w`, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'w' } })), {
    code: 500,
    reason: undefined,
    message: `failed to create typed patch object (/w; ${group}/v1, Kind=Gadget): no corresponding type for ${group}/v1, Kind=Gadget`,
  });
  // Custom resources keep empty objects and lists (they are not Go structs with omitempty fields).
  const created = (await applyTo(rest, `${widgets}/w`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { a: {}, b: [] } })) as { spec?: unknown };
  assert.deepEqual(created.spec, { a: {}, b: [] });
});

e2eTest('deletecollection answers with the objects as listed: each at its last write\'s resourceVersion, the list at the revision it was read at', async (env) => {
  const cms = env.cs.coreV1().configMaps(env.namespace);
  // Selected by label: a cluster may publish ConfigMaps of its own into every namespace (kube-root-ca.crt).
  const labels = { set: 'deleted' };
  const a = await cms.create({ metadata: { name: 'a', labels }, data: { k: '1' } });
  const updated = await cms.update({ ...a, data: { k: '2' } });
  const held = await cms.create({ metadata: { name: 'held', labels, finalizers: ['example.com/hold'] } });
  // The finalizer is removed again whatever happens: nothing on a real cluster would remove it.
  env.defer(async () => {
    await cms.patch('held', PatchType.Merge, { metadata: { finalizers: null } }).catch(() => undefined);
  });
  const rest = restOf(env);
  const answer = await rest.json<KubeList<ConfigMap>>({ verb: 'DELETE', path: `/api/v1/namespaces/${env.namespace}/configmaps`, query: [['labelSelector', 'set=deleted']], headers: {} });
  assert.deepEqual(
    answer.items.map((cm) => [cm.metadata?.name, cm.metadata?.resourceVersion, cm.metadata?.deletionTimestamp]),
    [
      ['a', updated.metadata?.resourceVersion, undefined],
      ['held', held.metadata?.resourceVersion, undefined],
    ],
  );
  // The finalizer kept `held`, now marked for deletion by a later write than the LIST the answer was.
  const marked = await cms.get('held');
  assert.ok(marked.metadata?.deletionTimestamp !== undefined);
  assert.ok(Number(answer.metadata?.resourceVersion) >= Number(held.metadata?.resourceVersion), 'the list is read after the last write');
  assert.ok(Number(answer.metadata?.resourceVersion) < Number(marked.metadata?.resourceVersion), 'the list is read before the deletions');
});

e2eTest('a deleted object comes back at its last write\'s resourceVersion; the watch sees the deletion at a later one', async (env) => {
  const sas = env.cs.coreV1().serviceAccounts(env.namespace);
  await sas.create({ metadata: { name: 'robot' } });
  const labelled = await sas.patch('robot', PatchType.Merge, { metadata: { labels: { a: 'b' } } });
  const rv = labelled.metadata?.resourceVersion ?? '';
  const w = await sas.watch({ resourceVersion: rv, fieldSelector: 'metadata.name=robot' });
  try {
    // ServiceAccounts are among the registries that answer a DELETE with the deleted object.
    const rest = restOf(env);
    const deleted = await rest.json<{ kind?: string; metadata?: { resourceVersion?: string } }>({ verb: 'DELETE', path: `/api/v1/namespaces/${env.namespace}/serviceaccounts/robot`, query: [], headers: {} });
    assert.equal(deleted.kind, 'ServiceAccount');
    assert.equal(deleted.metadata?.resourceVersion, rv);
    for await (const e of w) {
      assert.equal(e.type, 'DELETED');
      assert.ok(Number(e.object.metadata?.resourceVersion) > Number(rv), `${e.object.metadata?.resourceVersion} > ${rv}`);
      break;
    }
  } finally {
    w.stop();
  }
});

e2eTest('a pod is marked for deletion before it goes: the DELETE answers with the mark, the watch sees MODIFIED then DELETED', async (env) => {
  const pods = env.cs.coreV1().pods(env.namespace);
  const created = await pods.create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  const rv = created.metadata?.resourceVersion ?? '';
  const w = await pods.watch({ resourceVersion: rv, fieldSelector: 'metadata.name=p' });
  try {
    const rest = restOf(env);
    // An unscheduled pod has a grace period of 0: marked, then removed at once.
    const deleted = await rest.json<{ kind?: string; metadata?: { resourceVersion?: string; deletionTimestamp?: string; deletionGracePeriodSeconds?: number } }>({ verb: 'DELETE', path: `/api/v1/namespaces/${env.namespace}/pods/p`, query: [], headers: {} });
    assert.equal(deleted.kind, 'Pod');
    assert.equal(deleted.metadata?.deletionGracePeriodSeconds, 0);
    assert.ok(deleted.metadata?.deletionTimestamp !== undefined);
    assert.ok(Number(deleted.metadata?.resourceVersion) > Number(rv));
    const seen: Array<[string, string | undefined]> = [];
    for await (const e of w) {
      seen.push([e.type, e.object.metadata?.resourceVersion]);
      if (e.type === 'DELETED') break;
    }
    assert.deepEqual(seen[0], ['MODIFIED', deleted.metadata?.resourceVersion]);
    assert.equal(seen.length, 2);
    assert.equal(seen[1]?.[0], 'DELETED');
    assert.ok(Number(seen[1]?.[1]) > Number(deleted.metadata?.resourceVersion));
  } finally {
    w.stop();
  }
});

e2eTest('empty maps of a built-in object are not kept (omitempty through the storage round trip); empty structs are', async (env) => {
  const cms = env.cs.coreV1().configMaps(env.namespace);
  const created = await cms.create({ metadata: { name: 'empty' }, data: {}, binaryData: {} });
  assert.equal(created.data, undefined);
  assert.equal(created.binaryData, undefined);
  const updated = await cms.update({ ...created, data: {} });
  assert.equal(updated.data, undefined);
  const patched = await cms.patch('empty', PatchType.Merge, { data: { k: 'v' } });
  assert.deepEqual(patched.data, { k: 'v' });
  const emptied = await cms.patch('empty', PatchType.Merge, { data: { k: null } });
  assert.equal(emptied.data, undefined);
  const rest = restOf(env);
  const applied = (await applyTo(rest, `/api/v1/namespaces/${env.namespace}/configmaps/applied`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: {} })) as ConfigMap;
  assert.equal(applied.data, undefined);
  // Nested: a Service's selector, a pod template's nodeSelector; an empty struct stays.
  const svc = await env.cs.coreV1().services(env.namespace).create({ metadata: { name: 's' }, spec: { ports: [{ port: 80 }], selector: {} } });
  assert.equal(svc.spec?.selector, undefined);
  const pod = await env.cs.coreV1().pods(env.namespace).create({ metadata: { name: 'p' }, spec: { nodeSelector: {}, securityContext: {}, containers: [{ name: 'c', image: 'busybox', resources: { limits: {} } }] } });
  assert.equal(pod.spec?.nodeSelector, undefined);
  assert.deepEqual(pod.spec?.securityContext, {});
  assert.deepEqual(pod.spec?.containers[0]?.resources, {});
});
