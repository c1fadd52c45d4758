import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import { startApiServer, type ApiServer } from '../src/testing/index.ts';
import { call, create, pod, configMap, type Json } from './apiserver-helpers.ts';

async function withServer(fn: (s: ApiServer) => Promise<void>, options: Parameters<typeof startApiServer>[0] = {}): Promise<void> {
  const s = await startApiServer(options);
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

const cms = '/api/v1/namespaces/default/configmaps';
const names = (r: { body: Json }): string[] => r.body.items.map((i: Json) => i.metadata.name);

test('LIST returns items in key order with the current revision as resourceVersion', async () => {
  await withServer(async (s) => {
    for (const n of ['b', 'c', 'a']) await create(s, cms, configMap(n));
    await create(s, '/api/v1/namespaces/kube-system/configmaps', configMap('z'));
    const r = await call(s, 'GET', cms);
    assert.equal(r.body.kind, 'ConfigMapList');
    assert.equal(r.body.apiVersion, 'v1');
    assert.deepEqual(names(r), ['a', 'b', 'c']);
    assert.equal(r.body.metadata.resourceVersion, String(s.revision()));
    // All namespaces: ordered by namespace, then name (with the two kube-apiserver writes at start).
    const all = await call(s, 'GET', '/api/v1/configmaps');
    assert.deepEqual(
      all.body.items.map((i: Json) => `${i.metadata.namespace}/${i.metadata.name}`),
      ['default/a', 'default/b', 'default/c', 'kube-system/extension-apiserver-authentication', 'kube-system/kube-apiserver-legacy-service-account-token-tracking', 'kube-system/z'],
    );
  });
});

test('items of a built-in LIST and of a deletecollection answer carry no kind/apiVersion; custom resources keep theirs', async () => {
  await withServer(async (s) => {
    await create(s, cms, configMap('a', { k: 'v' }));
    // kube-apiserver encodes typed lists without each item's TypeMeta (the List says what they are).
    const list = await call(s, 'GET', cms);
    assert.deepEqual(Object.keys(list.body.items[0]).sort(), ['data', 'metadata']);
    const single = await call(s, 'GET', `${cms}/a`);
    assert.deepEqual([single.body.kind, single.body.apiVersion], ['ConfigMap', 'v1']);
    const deleted = await call(s, 'DELETE', cms);
    assert.deepEqual([deleted.body.kind, deleted.body.items.map((i: Json) => [i.kind, i.apiVersion, i.metadata.name])], ['ConfigMapList', [[undefined, undefined, 'a']]]);

    await create(s, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    await create(s, '/apis/example.com/v1/namespaces/default/gadgets', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } });
    // Custom resources are unstructured: their items keep apiVersion and kind.
    const gadgets = await call(s, 'GET', '/apis/example.com/v1/namespaces/default/gadgets');
    assert.deepEqual(gadgets.body.items.map((i: Json) => [i.apiVersion, i.kind]), [['example.com/v1', 'Gadget']]);
  });
});

test('labelSelector and fieldSelector filter lists; a bad selector is 400', async () => {
  await withServer(async (s) => {
    await create(s, cms, configMap('one', {}, { app: 'web', tier: 'front' }));
    await create(s, cms, configMap('two', {}, { app: 'web', tier: 'back' }));
    await create(s, cms, configMap('three', {}, { app: 'db' }));
    const q = async (query: string): Promise<string[]> => names(await call(s, 'GET', `${cms}?${query}`));
    assert.deepEqual(await q('labelSelector=app%3Dweb'), ['one', 'two']);
    assert.deepEqual(await q('labelSelector=app%3Dweb,tier!%3Dfront'), ['two']);
    assert.deepEqual(await q('labelSelector=tier%20in%20(front,back)'), ['one', 'two']);
    assert.deepEqual(await q('labelSelector=!tier'), ['three']);
    assert.deepEqual(await q('fieldSelector=metadata.name%3Dtwo'), ['two']);
    assert.deepEqual(await q('fieldSelector=metadata.name!%3Dtwo'), ['one', 'three']);
    assert.deepEqual(names(await call(s, 'GET', '/api/v1/configmaps?fieldSelector=metadata.namespace%3Ddefault')), ['one', 'three', 'two']);
    const bad = await call(s, 'GET', `${cms}?labelSelector=a%20in%20(`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, 'BadRequest');
    const badField = await call(s, 'GET', `${cms}?fieldSelector=spec.nodeName%3Dx`);
    assert.equal(badField.status, 400);
    assert.equal(badField.body.message, '"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });
});

test('pods can be selected by status.phase and spec.nodeName', async () => {
  await withServer(async (s) => {
    const pods = '/api/v1/namespaces/default/pods';
    const containers = [{ name: 'c', image: 'busybox' }];
    await create(s, pods, pod('p1', { spec: { nodeName: 'n1', containers } }));
    await create(s, pods, pod('p2', { spec: { nodeName: 'n2', containers } }));
    await create(s, pods, pod('p3'));
    for (const name of ['p1', 'p2']) {
      // Status is not settable on create (kube resets it to Pending): it goes through /status.
      const r = await call(s, 'PATCH', `${pods}/${name}/status`, { body: { status: { phase: 'Running' } }, contentType: 'application/merge-patch+json' });
      assert.equal(r.body.status.phase, 'Running');
    }
    const q = async (query: string): Promise<string[]> => names(await call(s, 'GET', `${pods}?${query}`));
    assert.deepEqual(await q('fieldSelector=status.phase%3DRunning'), ['p1', 'p2']);
    assert.deepEqual(await q('fieldSelector=spec.nodeName%3Dn2'), ['p2']);
    assert.deepEqual(await q('fieldSelector=spec.nodeName%3D'), ['p3']);
    assert.deepEqual(await q('fieldSelector=status.phase!%3DRunning'), ['p3']);
  });
});

test('limit/continue paginate over a snapshot taken at the first page', async () => {
  await withServer(async (s) => {
    for (const n of ['a', 'b', 'c', 'd', 'e']) await create(s, cms, configMap(n, { v: '1' }));
    const first = await call(s, 'GET', `${cms}?limit=2`);
    const snapshot = first.body.metadata.resourceVersion;
    assert.deepEqual(names(first), ['a', 'b']);
    assert.equal(first.body.metadata.remainingItemCount, 3);
    assert.ok(first.body.metadata.continue);
    // Changes after the first page are not seen by the rest of the list.
    await call(s, 'DELETE', `${cms}/c`);
    await create(s, cms, configMap('cc'));
    const d = (await call(s, 'GET', `${cms}/d`)).body;
    await call(s, 'PUT', `${cms}/d`, { body: { ...d, data: { v: '2' } } });
    const second = await call(s, 'GET', `${cms}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.deepEqual(names(second), ['c', 'd']);
    assert.equal(second.body.items[1].data.v, '1');
    assert.equal(second.body.metadata.resourceVersion, snapshot);
    const third = await call(s, 'GET', `${cms}?limit=2&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    assert.deepEqual(names(third), ['e']);
    assert.equal(third.body.metadata.continue, undefined);
    // A fresh list sees the current state.
    assert.deepEqual(names(await call(s, 'GET', cms)), ['a', 'b', 'cc', 'd', 'e']);
  });
});

test('pagination with a label selector fills pages with matching items only', async () => {
  await withServer(async (s) => {
    for (let i = 0; i < 10; i++) await create(s, cms, configMap(`cm-${i}`, {}, { even: String(i % 2 === 0) }));
    const seen: string[] = [];
    let cont = '';
    for (;;) {
      const r = await call(s, 'GET', `${cms}?limit=2&labelSelector=even%3Dtrue${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`);
      seen.push(...names(r));
      assert.equal(r.body.metadata.remainingItemCount, undefined);
      cont = r.body.metadata.continue ?? '';
      if (cont === '') break;
    }
    assert.deepEqual(seen, ['cm-0', 'cm-2', 'cm-4', 'cm-6', 'cm-8']);
  });
});

test('a continue token whose revision was compacted is 410 Expired', async () => {
  await withServer(async (s) => {
    for (const n of ['a', 'b', 'c']) await create(s, cms, configMap(n));
    const first = await call(s, 'GET', `${cms}?limit=1`);
    await create(s, cms, configMap('d'));
    s.faults.compact();
    const r = await call(s, 'GET', `${cms}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.equal(r.status, 410);
    assert.equal(r.body.reason, 'Expired');
    assert.match(r.body.message, /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response/);
    // As the etcd3 store: the 410 carries a token that continues after the same key at the latest revision.
    const rest = await call(s, 'GET', `${cms}?limit=10&continue=${encodeURIComponent(r.body.metadata.continue)}`);
    assert.equal(rest.status, 200);
    assert.deepEqual(names(rest), ['b', 'c', 'd']);
    assert.equal(rest.body.metadata.resourceVersion, String(s.revision()));
    const garbage = await call(s, 'GET', `${cms}?limit=1&continue=garbage`);
    assert.equal(garbage.status, 400);
    assert.match(garbage.body.message, /^invalid continue token: /);
  });
});

test('list and watch options are validated as apimachinery ValidateListOptions: 422 ListOptions.meta.k8s.io with every cause', async () => {
  await withServer(async (s) => {
    const cases: [string, string][] = [
      ['resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersion=0&resourceVersionMatch=Exact', 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      ['resourceVersion=1&resourceVersionMatch=Newest', 'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
      ['continue=x&resourceVersionMatch=NotOlderThan', '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]'],
      ['sendInitialEvents=false', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
      ['watch=true&resourceVersionMatch=NotOlderThan', 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
      ['watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=Exact', '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'],
    ];
    for (const [query, detail] of cases) {
      const r = await call(s, 'GET', `${cms}?${query}`);
      assert.equal(r.status, 422, query);
      assert.equal(r.body.reason, 'Invalid');
      assert.equal(r.body.message, `ListOptions.meta.k8s.io "" is invalid: ${detail}`, query);
      assert.equal(r.body.details.kind, 'ListOptions');
      assert.equal(r.body.details.group, 'meta.k8s.io');
    }
    const both = await call(s, 'GET', `${cms}?resourceVersion=5&continue=x`);
    assert.equal(both.status, 400);
    assert.equal(both.body.message, 'specifying resource version is not allowed when using continue');
  });
});

test('history eviction also expires continue tokens', async () => {
  await withServer(
    async (s) => {
      for (const n of ['a', 'b', 'c']) await create(s, cms, configMap(n));
      const first = await call(s, 'GET', `${cms}?limit=1`);
      for (let i = 0; i < 5; i++) await create(s, cms, configMap(`more-${i}`));
      const r = await call(s, 'GET', `${cms}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
      assert.equal(r.status, 410);
    },
    { watchHistorySize: 3 },
  );
});

test('resourceVersion semantics: unset, "0", Exact and NotOlderThan', async () => {
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  await withServer(async (s) => {
    const a = await create(s, cms, configMap('a', { v: '1' }));
    const atA = Number(a.metadata.resourceVersion);
    await call(s, 'PUT', `${cms}/a`, { body: { ...a, data: { v: '2' } } });
    await create(s, cms, configMap('b'));
    const current = s.revision();
    const unset = await call(s, 'GET', cms);
    assert.equal(unset.body.metadata.resourceVersion, String(current));
    // "0" is served from the latest state and may ignore limit, as the watch cache does.
    const any = await call(s, 'GET', `${cms}?resourceVersion=0&limit=1`);
    assert.deepEqual(names(any), ['a', 'b']);
    const exact = await call(s, 'GET', `${cms}?resourceVersion=${atA}&resourceVersionMatch=Exact`);
    assert.equal(exact.body.metadata.resourceVersion, String(atA));
    assert.deepEqual(names(exact), ['a']);
    assert.equal(exact.body.items[0].data.v, '1');
    const notOlder = await call(s, 'GET', `${cms}?resourceVersion=${atA}&resourceVersionMatch=NotOlderThan`);
    assert.equal(notOlder.body.metadata.resourceVersion, String(current));
    assert.deepEqual(names(notOlder), ['a', 'b']);
    // The watch cache waits three seconds for a revision it has not reached, then answers 504.
    const timers = clock.waiterCount();
    const pending = call(s, 'GET', `${cms}?resourceVersion=${current + 100}&resourceVersionMatch=NotOlderThan`);
    await clock.waitForWaiters(timers + 1);
    await clock.step(3_000);
    const future = await pending;
    assert.equal(future.status, 504);
    assert.equal(future.body.details.retryAfterSeconds, 1);
    assert.equal(future.body.reason, 'Timeout');
    assert.equal(future.body.message, `Timeout: Too large resource version: ${current + 100}, current: ${current}`);
    s.faults.compact();
    const gone = await call(s, 'GET', `${cms}?resourceVersion=${atA}&resourceVersionMatch=Exact`);
    assert.equal(gone.status, 410);
    assert.equal(gone.body.reason, 'Expired');
    assert.equal(gone.body.message, 'The resourceVersion for the provided list is too old.');
    const badMatch = await call(s, 'GET', `${cms}?resourceVersionMatch=Exact`);
    assert.equal(badMatch.status, 422);
  }, { clock });
});

test('legacy resourceVersion=N&limit=M reads exactly at N and its continue token stays there; NotOlderThan with a limit reads the latest', async () => {
  await withServer(async (s) => {
    for (const n of ['a', 'b', 'c']) await create(s, cms, configMap(n, { v: n }));
    const at = s.revision();
    await call(s, 'PATCH', `${cms}/a`, { body: { data: { v: 'a2' } }, contentType: 'application/merge-patch+json' });
    await call(s, 'DELETE', `${cms}/c`);
    const first = await call(s, 'GET', `${cms}?resourceVersion=${at}&limit=2`);
    assert.equal(first.body.metadata.resourceVersion, String(at));
    assert.deepEqual(first.body.items.map((i: Json) => i.data.v), ['a', 'b']);
    assert.equal(first.body.metadata.remainingItemCount, 1);
    const rest = await call(s, 'GET', `${cms}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.deepEqual(names(rest), ['c']);
    const latest = await call(s, 'GET', `${cms}?resourceVersion=${at}&resourceVersionMatch=NotOlderThan&limit=2`);
    assert.deepEqual(latest.body.items.map((i: Json) => i.data.v), ['a2', 'b']);
    assert.equal(latest.body.metadata.continue, undefined);
  });
});

test('a full page gets a continue token when any key follows it, even one the selector drops', async () => {
  await withServer(async (s) => {
    for (const n of ['a', 'b', 'c']) await create(s, cms, configMap(n, {}, { idx: n }));
    const first = await call(s, 'GET', `${cms}?limit=2&labelSelector=idx+in+(a,b)`);
    assert.deepEqual(names(first), ['a', 'b']);
    assert.equal(first.body.metadata.remainingItemCount, undefined);
    const next = await call(s, 'GET', `${cms}?limit=2&labelSelector=idx+in+(a,b)&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.deepEqual(next.body.items, []);
    assert.equal(next.body.metadata.continue, undefined);
    const exact = await call(s, 'GET', `${cms}?limit=3`);
    assert.equal(exact.body.metadata.continue, undefined);
  });
});

test('resourceVersions past the current revision: etcd reads fail at once, NotOlderThan with a limit is 504 without retry advice', async () => {
  await withServer(async (s) => {
    const future = s.revision() + 1000;
    for (const q of [`resourceVersion=${future}&resourceVersionMatch=Exact`, `resourceVersion=${future}&limit=1`]) {
      const r = await call(s, 'GET', `${cms}?${q}`);
      assert.equal(r.status, 500);
      assert.equal(r.body.message, 'etcdserver: mvcc: required revision is a future revision');
      assert.equal(r.body.reason, undefined);
    }
    const r = await call(s, 'GET', `${cms}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=1`);
    assert.equal(r.status, 504);
    assert.equal(r.body.details.causes[0].reason, 'ResourceVersionTooLarge');
    assert.equal(r.body.details.retryAfterSeconds, undefined);
  });
});

test('a list or GET waiting for a future resourceVersion is answered once a write reaches it', async () => {
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  await withServer(async (s) => {
    const next = s.revision() + 1;
    const timers = clock.waiterCount();
    const list = call(s, 'GET', `${cms}?resourceVersion=${next}`);
    const get = call(s, 'GET', `${cms}/a?resourceVersion=${next}`);
    await clock.waitForWaiters(timers + 2);
    await clock.step(2_999);
    await create(s, cms, configMap('a'));
    assert.deepEqual(names(await list), ['a']);
    assert.equal((await get).status, 200);
    const bad = await call(s, 'GET', `${cms}/a?resourceVersion=abc`);
    assert.equal(bad.status, 500);
    assert.equal(bad.body.message, 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax');
  }, { clock });
});

test('100 objects list identically whether paged or not', async () => {
  await withServer(async (s) => {
    for (let i = 0; i < 100; i++) await create(s, cms, configMap(`n${String(i).padStart(3, '0')}`));
    const whole = names(await call(s, 'GET', cms));
    const paged: string[] = [];
    let cont = '';
    do {
      const r = await call(s, 'GET', `${cms}?limit=7${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`);
      paged.push(...names(r));
      cont = r.body.metadata.continue ?? '';
    } while (cont !== '');
    assert.equal(whole.length, 100);
    assert.deepEqual(paged, whole);
  });
});
