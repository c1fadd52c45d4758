import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Node, Pod } from '../src/api/core/v1.ts';
import type { Deployment } from '../src/api/apps/v1.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { isAlreadyExists, isConflict, isNotFound, StatusError } from '../src/apimachinery/errors.ts';
import { PatchType } from '../src/apimachinery/options.ts';
import { builtinGroupVersions, newClientset, resourceTableRows, type ResourceClient } from '../src/kubernetes/index.ts';
import { DefaultRetry, retryOnConflict } from '../src/util/retry/index.ts';
import { ListPager } from '../src/tools/pager/index.ts';
import { Capability, e2eTest } from './support/backend.ts';

const deployment = (name: string, replicas = 1): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

test('the table covers the required groups and every accessor maps to its resource', () => {
  const groups = new Set(resourceTableRows().map((r) => `${r.group}/${r.version}`));
  for (const gv of ['/v1', 'apps/v1', 'batch/v1', 'coordination.k8s.io/v1', 'events.k8s.io/v1', 'rbac.authorization.k8s.io/v1', 'apiextensions.k8s.io/v1', 'networking.k8s.io/v1', 'policy/v1', 'storage.k8s.io/v1', 'autoscaling/v2', 'discovery.k8s.io/v1', 'admissionregistration.k8s.io/v1', 'certificates.k8s.io/v1']) {
    assert.ok(groups.has(gv), gv);
  }
  const cs = newClientset({ host: 'http://127.0.0.1:1' });
  for (const row of resourceTableRows()) {
    const group = (cs as unknown as Record<string, () => Record<string, (ns?: string) => { resource: string; group: string; namespaced: boolean; kind: string }>>)[row.groupAccessor]!();
    const client = group[row.resourceAccessor]!('x');
    assert.deepEqual([client.group, client.resource, client.namespaced, client.kind], [row.group, row.resource, row.namespaced, row.kind]);
  }
  assert.equal(builtinGroupVersions.find((gv) => gv.accessor === 'coreV1')?.resources.find((r) => r.resource === 'pods')?.namespaced, true);
  // The accessors are typed from the table: these lines are checked by tsc.
  const pods: ResourceClient<Pod> = cs.coreV1().pods('ns');
  const deployments: ResourceClient<Deployment> = cs.appsV1().deployments();
  const nodes: ResourceClient<Node> = cs.coreV1().nodes();
  // Never called: tsc must reject both marked lines.
  const _mistakes = (): void => {
    // @ts-expect-error cluster-scoped accessors take no namespace
    cs.coreV1().nodes('ns');
    // @ts-expect-error a Pod client does not accept a ConfigMap
    void pods.create({ metadata: { name: 'x' }, data: { a: 'b' } } satisfies ConfigMap);
  };
  assert.deepEqual([pods.targetNamespace, deployments.targetNamespace, nodes.targetNamespace], ['ns', '', '']);
  void cs.close();
});

for (const tls of [false, true]) {
  const scheme = tls ? 'HTTPS' : 'HTTP';
  e2eTest(`${scheme}: typed create/get/list/update/updateStatus/delete/deleteCollection with plain JSON shapes`, { tls }, async ({ cs, namespace }) => {
    const cms = cs.coreV1().configMaps(namespace);
    const created = await cms.create({ metadata: { name: 'one', labels: { tier: 'a' } }, data: { k: 'v' } });
    assert.equal(created.metadata?.namespace, namespace);
    await cms.create({ metadata: { name: 'two', labels: { tier: 'b' } } });
    await assert.rejects(cms.create({ metadata: { name: 'one' } }), (e) => isAlreadyExists(e));
    const got = await cms.get('one');
    const listed = await cms.list({ labelSelector: 'tier=a' });
    // List items carry no TypeMeta (the server leaves it out; typed clients keep them as sent).
    const { kind, apiVersion, ...untyped } = got;
    assert.deepEqual([kind, apiVersion], ['ConfigMap', 'v1']);
    assert.deepEqual(listed.items, [untyped]);

    // All namespaces (a cluster may hold others' objects: only this test's namespace is checked).
    const all = await cs.coreV1().configMaps().list({ labelSelector: 'tier' });
    assert.deepEqual(all.items.filter((c) => c.metadata?.namespace === namespace).map((c) => c.metadata?.name).sort(), ['one', 'two']);

    got.data = { k: 'v2' };
    const updated = await cms.update(got);
    assert.equal(updated.data?.['k'], 'v2');
    await assert.rejects(cms.update({ ...got, data: { k: 'stale' } }), (e) => isConflict(e));
    const dry = await cms.update({ ...updated, data: { k: 'dry' } }, { dryRun: ['All'] });
    assert.equal(dry.data?.['k'], 'dry');
    assert.equal((await cms.get('one')).data?.['k'], 'v2');

    const deps = cs.appsV1().deployments(namespace);
    const d = await deps.create(deployment('web'));
    const withStatus = await deps.updateStatus({ ...d, status: { replicas: 1, readyReplicas: 1 } });
    assert.equal(withStatus.status?.readyReplicas, 1);

    await cms.delete('one');
    await assert.rejects(cms.get('one'), (e) => e instanceof StatusError && isNotFound(e));
    await cms.deleteCollection({}, { labelSelector: 'tier=b' });
    assert.deepEqual((await cms.list({ labelSelector: 'tier' })).items, []);
    // With options, DeleteOptions go in the body (kube-apiserver 1.24 refuses them as meta.k8s.io/v1 there).
    await deps.deleteCollection({ propagationPolicy: 'Background', gracePeriodSeconds: 0 });
    assert.deepEqual((await deps.list()).items, []);
  });
}

e2eTest('patches: JSON patch, merge patch, strategic merge patch and server-side apply with force', async ({ cs, namespace }) => {
  const deps = cs.appsV1().deployments(namespace);
  await deps.create(deployment('web'));
  const jp = await deps.patch('web', PatchType.JSON, [{ op: 'replace', path: '/spec/replicas', value: 2 }]);
  assert.equal(jp.spec?.replicas, 2);
  const mp = await deps.patch('web', PatchType.Merge, { metadata: { labels: { team: 'x' } } });
  assert.deepEqual(mp.metadata?.labels, { team: 'x' });
  const smp = await deps.patch('web', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } });
  assert.deepEqual(smp.spec?.template.spec?.containers.map((c) => c.name).sort(), ['c', 'sidecar']);

  const cms = cs.coreV1().configMaps(namespace);
  const applied = await cms.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace }, data: { a: '1' } }, { fieldManager: 'alice' });
  assert.deepEqual(applied.data, { a: '1' });
  await assert.rejects(cms.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace }, data: { a: '2' } }, { fieldManager: 'bob' }), (e) => isConflict(e));
  const forced = await cms.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace }, data: { a: '2' } }, { fieldManager: 'bob', force: true });
  assert.deepEqual(forced.data, { a: '2' });
  assert.ok(forced.metadata?.managedFields?.some((m) => m.manager === 'bob'));

  const dep = await deps.applyStatus({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace }, status: { observedGeneration: 7 } }, { fieldManager: 'ctrl' });
  assert.equal(dep.status?.observedGeneration, 7);
});

e2eTest('typed watch yields the same object shapes as get', async ({ cs, namespace }) => {
  const pods = cs.coreV1().pods(namespace);
  const rv = (await pods.list()).metadata!.resourceVersion!;
  const w = await pods.watch({ resourceVersion: rv });
  const created = await pods.create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  for await (const e of w) {
    assert.equal(e.type, 'ADDED');
    assert.deepEqual(e.object, created as Pod);
    break;
  }
});

e2eTest('retryOnConflict re-runs a read-modify-write that conflicted, on the injected clock', async ({ cs, namespace }) => {
  const cms = cs.coreV1().configMaps(namespace);
  await cms.create({ metadata: { name: 'counter' }, data: { n: '0' } });
  const clock = new FakeClock(0);
  let attempts = 0;
  // Settles when the first attempt's write has been answered (the conflict), however long the network takes.
  let answered!: () => void;
  const firstAnswered = new Promise<void>((resolve) => (answered = resolve));
  const done = retryOnConflict(
    { ...DefaultRetry, random: () => 0 },
    async () => {
      attempts++;
      const cm: ConfigMap = await cms.get('counter');
      if (attempts === 1) await cms.update({ ...cm, data: { n: 'other-writer' } });
      try {
        return await cms.update({ ...cm, data: { n: String(attempts) } });
      } finally {
        if (attempts === 1) answered();
      }
    },
    { clock },
  );
  await firstAnswered;
  await clock.waitForWaiters(1);
  assert.equal(clock.nextTimerIn(), 10);
  await clock.step(10);
  assert.equal((await done).data?.['n'], '2');
  assert.equal(attempts, 2);

  let calls = 0;
  await assert.rejects(
    retryOnConflict({ durationMs: 10, steps: 3 }, async () => {
      calls++;
      throw new Error('not a conflict');
    }),
    /not a conflict/,
  );
  assert.equal(calls, 1);
});

e2eTest('listPager pages with limit/continue and falls back to a full list when the token expired', async (env) => {
  const cms = env.cs.coreV1().configMaps(env.namespace);
  for (let i = 0; i < 7; i++) await cms.create({ metadata: { name: `cm${i}` } });
  const limits: Array<[number | undefined, string | undefined]> = [];
  const pager = new ListPager<ConfigMap>(
    (o) => {
      limits.push([o.limit, o.continue === undefined ? undefined : 'token']);
      return cms.list(o);
    },
    { pageSize: 3 },
  );
  const all = await pager.list();
  assert.equal(all.items.length, 7);
  assert.equal(all.paginated, true);
  assert.deepEqual(limits, [
    [3, undefined],
    [3, 'token'],
    [3, 'token'],
  ]);

  // Compaction after the first page expires its continue token: the pager lists everything at once.
  // (A real cluster compacts periodically: the test waits for a compaction past the first page.)
  limits.length = 0;
  let compactAfterFirst = true;
  const fallback = new ListPager<ConfigMap>(
    async (o) => {
      limits.push([o.limit, o.continue === undefined ? undefined : 'token']);
      const page = await cms.list(o);
      if (compactAfterFirst) {
        compactAfterFirst = false;
        await cms.create({ metadata: { name: 'late' } });
        await env.waitForCompaction(page.metadata!.resourceVersion!);
      }
      return page;
    },
    { pageSize: 3 },
  );
  const full = await fallback.list();
  assert.deepEqual(limits, [
    [3, undefined],
    [3, 'token'],
    // No limit: one unpaginated list (upstream sets limit 0, which is not sent either).
    [undefined, undefined],
  ]);
  assert.equal(full.items.length, 8);
});

e2eTest('listItems streams every object as the server sent it, following continue tokens when a limit is set; break stops early', async ({ cs, namespace }) => {
  const cms = cs.coreV1().configMaps(namespace);
  for (let i = 0; i < 7; i++) await cms.create({ metadata: { name: `cm${i}` }, data: { text: `é-${i}-✓` } });
  const whole: string[] = [];
  for await (const cm of cms.listItems()) {
    // Items of a typed list carry no TypeMeta, as kube-apiserver sends them and client-go decodes them.
    assert.equal(cm.kind, undefined);
    whole.push(cm.metadata!.name!);
  }
  assert.deepEqual(whole, ['cm0', 'cm1', 'cm2', 'cm3', 'cm4', 'cm5', 'cm6']);
  const paged: string[] = [];
  for await (const cm of cms.listItems({ limit: 3 })) paged.push(`${cm.metadata!.name!}:${cm.data!['text']!}`);
  assert.deepEqual(paged, whole.map((n, i) => `${n}:é-${i}-✓`));
  let seen = 0;
  for await (const _ of cms.listItems({ limit: 2 })) if (++seen === 3) break;
  assert.equal(seen, 3);
  // list() decodes the same stream and collects it.
  const list = await cms.list();
  assert.equal(list.kind, 'ConfigMapList');
  assert.deepEqual(list.items.map((cm) => cm.metadata?.name), whole);
});

e2eTest('pod logs: get returns the text, follow yields lines as they are appended', { needs: [Capability.PodLogs] }, async ({ cs, namespace, embedded }) => {
  const s = embedded!;
  await cs.coreV1().pods(namespace).create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  s.setPodLogs(namespace, 'p', ['one', 'two']);
  const logs = cs.coreV1().podLogs(namespace);
  assert.equal(await logs.get('p'), 'one\ntwo\n');
  const follow = await logs.follow('p');
  const lines: string[] = [];
  for await (const line of follow) {
    lines.push(line);
    if (lines.length === 2) s.appendPodLogs(namespace, 'p', ['three']);
    if (lines.length === 3) break;
  }
  assert.deepEqual(lines, ['one', 'two', 'three']);
});
