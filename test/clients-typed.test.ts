import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Node, Pod } from '../src/api/core/v1.ts';
import type { Deployment } from '../src/api/apps/v1.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { FakeClock } from '../src/util/clock/clock.ts';
import { isAlreadyExists, isConflict, isNotFound, StatusError } from '../src/apimachinery/errors.ts';
import { PatchType } from '../src/apimachinery/options.ts';
import type { RestConfig } from '../src/rest/index.ts';
import { builtinGroupVersions, newClientset, resourceTableRows, type Clientset, type ResourceClient } from '../src/kubernetes/index.ts';
import { DefaultRetry, retryOnConflict } from '../src/util/retry/index.ts';
import { ListPager } from '../src/tools/pager/index.ts';

function configFor(s: ApiServer): RestConfig {
  const cfg: RestConfig = { host: s.url, qps: -1 };
  if (s.caCertPem !== undefined) cfg.tls = { caData: s.caCertPem };
  return cfg;
}

async function withClientset(tls: boolean, fn: (cs: Clientset, s: ApiServer) => Promise<void>): Promise<void> {
  const s = await startApiServer({ tls });
  const cs = newClientset(configFor(s));
  try {
    await cs.coreV1().namespaces().create({ metadata: { name: 'ns' } });
    await fn(cs, s);
  } finally {
    await cs.close();
    await s.stop();
  }
}

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
  test(`${scheme}: typed create/get/list/update/updateStatus/delete/deleteCollection with plain JSON shapes`, async () => {
    await withClientset(tls, async (cs) => {
      const cms = cs.coreV1().configMaps('ns');
      const created = await cms.create({ metadata: { name: 'one', labels: { tier: 'a' } }, data: { k: 'v' } });
      assert.equal(created.metadata?.namespace, 'ns');
      await cms.create({ metadata: { name: 'two', labels: { tier: 'b' } } });
      await assert.rejects(cms.create({ metadata: { name: 'one' } }), (e) => isAlreadyExists(e));
      const got = await cms.get('one');
      const listed = await cms.list({ labelSelector: 'tier=a' });
      assert.deepEqual(listed.items, [got]);
      assert.equal(listed.items[0]!.kind, 'ConfigMap');
      assert.equal(listed.items[0]!.apiVersion, 'v1');

      const all = await cs.coreV1().configMaps().list();
      assert.deepEqual(all.items.map((c) => c.metadata?.name).sort(), ['one', 'two']);

      got.data = { k: 'v2' };
      const updated = await cms.update(got);
      assert.equal(updated.data?.['k'], 'v2');
      await assert.rejects(cms.update({ ...got, data: { k: 'stale' } }), (e) => isConflict(e));
      const dry = await cms.update({ ...updated, data: { k: 'dry' } }, { dryRun: ['All'] });
      assert.equal(dry.data?.['k'], 'dry');
      assert.equal((await cms.get('one')).data?.['k'], 'v2');

      const deps = cs.appsV1().deployments('ns');
      const d = await deps.create(deployment('web'));
      const withStatus = await deps.updateStatus({ ...d, status: { replicas: 1, readyReplicas: 1 } });
      assert.equal(withStatus.status?.readyReplicas, 1);

      await cms.delete('one');
      await assert.rejects(cms.get('one'), (e) => e instanceof StatusError && isNotFound(e));
      await cms.deleteCollection({}, { labelSelector: 'tier=b' });
      assert.deepEqual((await cms.list()).items, []);
    });
  });
}

test('patches: JSON patch, merge patch, strategic merge patch and server-side apply with force', async () => {
  await withClientset(false, async (cs) => {
    const deps = cs.appsV1().deployments('ns');
    await deps.create(deployment('web'));
    const jp = await deps.patch('web', PatchType.JSON, [{ op: 'replace', path: '/spec/replicas', value: 2 }]);
    assert.equal(jp.spec?.replicas, 2);
    const mp = await deps.patch('web', PatchType.Merge, { metadata: { labels: { team: 'x' } } });
    assert.deepEqual(mp.metadata?.labels, { team: 'x' });
    const smp = await deps.patch('web', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } });
    assert.deepEqual(smp.spec?.template.spec?.containers.map((c) => c.name).sort(), ['c', 'sidecar']);

    const cms = cs.coreV1().configMaps('ns');
    const applied = await cms.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' }, data: { a: '1' } }, { fieldManager: 'alice' });
    assert.deepEqual(applied.data, { a: '1' });
    await assert.rejects(cms.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' }, data: { a: '2' } }, { fieldManager: 'bob' }), (e) => isConflict(e));
    const forced = await cms.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' }, data: { a: '2' } }, { fieldManager: 'bob', force: true });
    assert.deepEqual(forced.data, { a: '2' });
    assert.ok(forced.metadata?.managedFields?.some((m) => m.manager === 'bob'));

    const dep = await deps.applyStatus({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns' }, status: { observedGeneration: 7 } }, { fieldManager: 'ctrl' });
    assert.equal(dep.status?.observedGeneration, 7);
  });
});

test('typed watch yields the same object shapes as get', async () => {
  await withClientset(false, async (cs) => {
    const pods = cs.coreV1().pods('ns');
    const rv = (await pods.list()).metadata!.resourceVersion!;
    const w = await pods.watch({ resourceVersion: rv });
    const created = await pods.create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    for await (const e of w) {
      assert.equal(e.type, 'ADDED');
      assert.deepEqual(e.object, created as Pod);
      break;
    }
  });
});

test('retryOnConflict re-runs a read-modify-write that conflicted, on the injected clock', async () => {
  await withClientset(false, async (cs) => {
    const cms = cs.coreV1().configMaps('ns');
    await cms.create({ metadata: { name: 'counter' }, data: { n: '0' } });
    const clock = new FakeClock(0);
    let attempts = 0;
    const done = retryOnConflict(
      { ...DefaultRetry, random: () => 0 },
      async () => {
        attempts++;
        const cm: ConfigMap = await cms.get('counter');
        if (attempts === 1) await cms.update({ ...cm, data: { n: 'other-writer' } });
        return cms.update({ ...cm, data: { n: String(attempts) } });
      },
      { clock },
    );
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
});

test('listPager pages with limit/continue and falls back to a full list when the token expired', async () => {
  await withClientset(false, async (cs, s) => {
    const cms = cs.coreV1().configMaps('ns');
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

    // Compacting after the first page expires its continue token: the pager lists everything at once.
    limits.length = 0;
    let compactAfterFirst = true;
    const fallback = new ListPager<ConfigMap>(
      async (o) => {
        limits.push([o.limit, o.continue === undefined ? undefined : 'token']);
        const page = await cms.list(o);
        if (compactAfterFirst) {
          compactAfterFirst = false;
          await cms.create({ metadata: { name: 'late' } });
          s.faults.compact();
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
});

test('pod logs: get returns the text, follow yields lines as they are appended', async () => {
  await withClientset(false, async (cs, s) => {
    await cs.coreV1().pods('ns').create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    s.setPodLogs('ns', 'p', ['one', 'two']);
    const logs = cs.coreV1().podLogs('ns');
    assert.equal(await logs.get('p'), 'one\ntwo\n');
    const follow = await logs.follow('p');
    const lines: string[] = [];
    for await (const line of follow) {
      lines.push(line);
      if (lines.length === 2) s.appendPodLogs('ns', 'p', ['three']);
      if (lines.length === 3) break;
    }
    assert.deepEqual(lines, ['one', 'two', 'three']);
  });
});
