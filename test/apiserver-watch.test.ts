import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../src/util/clock/index.ts';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/testing/index.ts';
import { call, create, configMap, watch, brief, type Json } from './apiserver-helpers.ts';

async function withServer(fn: (s: ApiServer) => Promise<void>, options: ApiServerOptions = {}): Promise<void> {
  const s = await startApiServer(options);
  try {
    await fn(s);
  } finally {
    await s.stop();
  }
}

const cms = '/api/v1/namespaces/default/configmaps';

async function update(s: ApiServer, name: string, change: (o: Json) => Json): Promise<Json> {
  const cur = (await call(s, 'GET', `${cms}/${name}`)).body;
  const r = await call(s, 'PUT', `${cms}/${name}`, { body: change(cur) });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

test('watch from a resourceVersion streams ADDED, MODIFIED and DELETED as NDJSON over chunked encoding', async () => {
  await withServer(async (s) => {
    const start = s.revision();
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${start}`);
    assert.equal(w.status, 200);
    const a = await create(s, cms, configMap('a'));
    const a2 = await update(s, 'a', (o) => ({ ...o, data: { x: '1' } }));
    const del = await call(s, 'DELETE', `${cms}/a`);
    const events = [await w.next(), await w.next(), await w.next()];
    assert.deepEqual(events.map(brief), [`ADDED a ${a.metadata.resourceVersion}`, `MODIFIED a ${a2.metadata.resourceVersion}`, `DELETED a ${s.revision()}`]);
    // DELETED carries the final state stamped with the deletion's own revision.
    assert.equal(events[2].object.data.x, '1');
    // ConfigMaps answer a DELETE with a Success Status naming the object, as kube-apiserver's generic registry.
    assert.deepEqual(del.body.details, { name: 'a', kind: 'configmaps', uid: a.metadata.uid });
    await w.close();
  });
});

test('watch with resourceVersion N replays every change after N', async () => {
  await withServer(async (s) => {
    const base = s.revision();
    await create(s, cms, configMap('a'));
    await create(s, cms, configMap('b'));
    await update(s, 'a', (o) => ({ ...o, data: { v: '2' } }));
    await create(s, '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated' } });
    const w = await watch(s, `${cms}?watch=1&resourceVersion=${base + 1}`);
    assert.deepEqual([brief(await w.next()), brief(await w.next())], [`ADDED b ${base + 2}`, `MODIFIED a ${base + 3}`]);
    await create(s, cms, configMap('c'));
    assert.equal(brief(await w.next()), `ADDED c ${base + 5}`);
    await w.close();
  });
});

test('a resourceVersion older than the history gets one ERROR event with 410 Expired, then the stream ends', async () => {
  await withServer(
    async (s) => {
      const base = s.revision();
      for (let i = 0; i < 5; i++) await create(s, cms, configMap(`c${i}`));
      const w = await watch(s, `${cms}?watch=true&resourceVersion=${base}`);
      assert.equal(w.status, 200);
      const e = await w.next();
      assert.equal(e.type, 'ERROR');
      assert.equal(e.object.kind, 'Status');
      assert.equal(e.object.code, 410);
      assert.equal(e.object.reason, 'Expired');
      assert.match(e.object.message, /^too old resource version: \d+ \(\d+\)$/);
      assert.equal(await w.next(), undefined);
    },
    { watchHistorySize: 2 },
  );
});

test('compactionIntervalMs compacts periodically up to the revision the previous tick saw', async () => {
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  await withServer(
    async (s) => {
      const exact = async (rv: number): Promise<number> => (await call(s, 'GET', `${cms}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).status;
      await create(s, cms, configMap('a'));
      const first = s.revision();
      await clock.step(10_000); // the first tick only notes the revision
      assert.equal(await exact(first), 200);
      await create(s, cms, configMap('b'));
      const second = s.revision();
      await clock.step(10_000); // compacts up to `first`: the history after it stays
      assert.deepEqual([await exact(first - 1), await exact(first), await exact(second)], [410, 200, 200]);
      await clock.step(10_000);
      assert.deepEqual([await exact(second - 1), await exact(second)], [410, 200]);
    },
    { clock, compactionIntervalMs: 10_000 },
  );
});

test('resourceVersion unset or "0" starts with synthetic ADDED events for current objects', async () => {
  await withServer(async (s) => {
    await create(s, cms, configMap('b'));
    await create(s, cms, configMap('a'));
    await create(s, '/api/v1/namespaces/kube-system/configmaps', configMap('other'));
    for (const query of ['watch=true', 'watch=true&resourceVersion=0']) {
      const current = (await call(s, 'GET', cms)).body.items.map((i: Json) => `ADDED ${i.metadata.name}`);
      const w = await watch(s, `${cms}?${query}`);
      const first: string[] = [];
      for (const _ of current) first.push(brief(await w.next()).split(' ').slice(0, 2).join(' '));
      assert.deepEqual(first, current);
      assert.deepEqual(current.slice(0, 2), ['ADDED a', 'ADDED b']);
      const c = await create(s, cms, configMap(`c-${query.length}`));
      assert.equal(brief(await w.next()), `ADDED ${c.metadata.name} ${c.metadata.resourceVersion}`);
      await w.close();
    }
  });
});

test('selectors apply to watches; objects moving in or out are seen as ADDED or DELETED', async () => {
  await withServer(async (s) => {
    const start = s.revision();
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${start}&labelSelector=app%3Dweb`);
    await create(s, cms, configMap('x', {}, { app: 'db' }));
    await update(s, 'x', (o) => ({ ...o, metadata: { ...o.metadata, labels: { app: 'web' } } }));
    await update(s, 'x', (o) => ({ ...o, data: { k: 'v' } }));
    const out = await update(s, 'x', (o) => ({ ...o, metadata: { ...o.metadata, labels: { app: 'db' } } }));
    await update(s, 'x', (o) => ({ ...o, data: { k: 'w' } }));
    await create(s, cms, configMap('y', {}, { app: 'web' }));
    const events = [await w.next(), await w.next(), await w.next(), await w.next()];
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.metadata.labels.app}`),
      ['ADDED x web', 'MODIFIED x web', 'DELETED x web', 'ADDED y web'],
    );
    // Leaving the selection is a DELETED of the previous state, stamped with the change's resourceVersion (cacher).
    assert.equal(events[2].object.metadata.resourceVersion, out.metadata.resourceVersion);
    await w.close();
  });
});

test('field selectors and the legacy /watch/ path with a name', async () => {
  await withServer(async (s) => {
    const start = s.revision();
    const byField = await watch(s, `${cms}?watch=true&resourceVersion=${start}&fieldSelector=metadata.name%3Db`);
    const legacy = await watch(s, `/api/v1/watch/namespaces/default/configmaps/b?resourceVersion=${start}`);
    const legacyAll = await watch(s, `/api/v1/watch/configmaps?resourceVersion=${start}`);
    await create(s, cms, configMap('a'));
    await create(s, cms, configMap('b'));
    assert.equal((await byField.next()).object.metadata.name, 'b');
    assert.equal((await legacy.next()).object.metadata.name, 'b');
    assert.deepEqual([(await legacyAll.next()).object.metadata.name, (await legacyAll.next()).object.metadata.name], ['a', 'b']);
    await Promise.all([byField.close(), legacy.close(), legacyAll.close()]);
  });
});

test('allowWatchBookmarks sends periodic BOOKMARKs with only kind, apiVersion and resourceVersion', async () => {
  const clock = new FakeClock();
  await withServer(
    async (s) => {
      const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}&allowWatchBookmarks=true`);
      await create(s, cms, configMap('a'));
      assert.equal((await w.next()).type, 'ADDED');
      await clock.step(5_000);
      // The watch cache encodes an empty object of the kind: Go's metav1.Time zero value is null.
      assert.deepEqual(await w.next(), { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(s.revision()), creationTimestamp: null } } });
      await clock.step(5_000);
      assert.equal((await w.next()).type, 'BOOKMARK');
      await w.close();
      // Without allowWatchBookmarks no bookmark is sent: the next event is the next change.
      const plain = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
      await clock.step(5_000);
      await create(s, cms, configMap('b'));
      assert.equal((await plain.next()).type, 'ADDED');
      await plain.close();
    },
    { clock, bookmarkIntervalMs: 5_000 },
  );
});

test('timeoutSeconds ends the stream cleanly; so does the default timeout', async () => {
  const clock = new FakeClock();
  await withServer(
    async (s) => {
      const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}&timeoutSeconds=30`);
      const dflt = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
      await create(s, cms, configMap('a'));
      assert.equal((await w.next()).type, 'ADDED');
      assert.equal((await dflt.next()).type, 'ADDED');
      await clock.step(30_000);
      assert.deepEqual(await w.rest(), { lines: [], error: undefined });
      await clock.step(30_000);
      assert.deepEqual(await dflt.rest(), { lines: [], error: undefined });
    },
    { clock, defaultWatchTimeoutSeconds: 60 },
  );
});

test('sendInitialEvents streams current objects, then a BOOKMARK marking the end of initial events', async () => {
  await withServer(async (s) => {
    await create(s, cms, configMap('b'));
    await create(s, cms, configMap('a'));
    const at = s.revision();
    const w = await watch(s, `${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    assert.deepEqual([brief(await w.next()).split(' ').slice(0, 2), brief(await w.next()).split(' ').slice(0, 2)], [
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    assert.deepEqual(await w.next(), {
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(at), creationTimestamp: null, annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
    await create(s, cms, configMap('c'));
    assert.equal((await w.next()).object.metadata.name, 'c');
    await w.close();
    // The protocol's preconditions are validated as kube-apiserver does.
    const noBookmarks = await call(s, 'GET', `${cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    assert.equal(noBookmarks.status, 422);
    const noMatch = await call(s, 'GET', `${cms}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true`);
    assert.equal(noMatch.status, 422);
  });
});

test('many watchers of one resource receive identical bytes', async () => {
  await withServer(async (s) => {
    const start = s.revision();
    const watchers = await Promise.all([1, 2, 3].map(() => watch(s, `${cms}?watch=true&resourceVersion=${start}`)));
    for (let i = 0; i < 20; i++) await create(s, cms, configMap(`m${i}`));
    const seen = await Promise.all(
      watchers.map(async (w) => {
        const lines: string[] = [];
        for (let i = 0; i < 20; i++) lines.push((await w.nextLine())!);
        return lines;
      }),
    );
    assert.deepEqual(seen[1], seen[0]);
    assert.deepEqual(seen[2], seen[0]);
    assert.equal(seen[0]!.length, 20);
    await Promise.all(watchers.map((w) => w.close()));
  });
});

test('watch in Table form (kubectl get -w) sends column definitions once', async () => {
  await withServer(async (s) => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`, { accept });
    await create(s, cms, configMap('a'));
    await create(s, cms, configMap('b'));
    const [e1, e2] = [await w.next(), await w.next()];
    assert.equal(e1.object.kind, 'Table');
    assert.deepEqual(
      e1.object.columnDefinitions.map((c: Json) => c.name),
      ['Name', 'Data', 'Age'],
    );
    assert.equal(e2.object.columnDefinitions, null);
    assert.equal(e2.object.rows[0].cells[0], 'b');
    await w.close();
  });
});

test('the watch cache window: a watch from before it gets 410 Expired without any compaction, as kube-apiserver answers', async () => {
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  await withServer(
    async (s) => {
      const started = s.revision();
      // Before the server started: older than any cache (upstream: the revision its cacher listed at).
      const before = await watch(s, `${cms}?watch=true&resourceVersion=1`);
      const gone = await before.next();
      assert.equal(gone.type, 'ERROR');
      assert.equal(gone.object.code, 410);
      // The window begins once the bootstrap objects are written; the default/kubernetes Service and its
      // endpoints follow once the server listens, inside the window.
      const oldest = /^too old resource version: 1 \((\d+)\)$/.exec(String(gone.object.message));
      assert.ok(oldest !== null, String(gone.object.message));
      assert.ok(Number(oldest[1]) > 1 && Number(oldest[1]) <= started, String(gone.object.message));
      const base = s.revision();
      for (let i = 0; i < 4; i++) await create(s, cms, configMap(`c${i}`));
      // The window (4 events) is full of events younger than 75 s: it grows instead of dropping one.
      await create(s, cms, configMap('c4'));
      const fresh = await watch(s, `${cms}?watch=true&resourceVersion=${base}`);
      assert.equal(brief(await fresh.next()), `ADDED c0 ${base + 1}`);
      await fresh.close();
      // Once its oldest event is older than 75 s, a full window drops one event per write.
      await clock.step(76_000);
      for (let i = 5; i < 9; i++) await create(s, cms, configMap(`c${i}`));
      const stale = await watch(s, `${cms}?watch=true&resourceVersion=${base}`);
      const e = await stale.next();
      assert.equal(e.object.code, 410);
      assert.equal(e.object.message, `too old resource version: ${base} (${base + 1})`);
      assert.equal(await stale.next(), undefined);
      // Other resources have windows of their own.
      const secrets = await watch(s, `/api/v1/namespaces/default/secrets?watch=true&resourceVersion=${base}`);
      await create(s, '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
      assert.equal(brief(await secrets.next()), `ADDED s ${s.revision()}`);
      await secrets.close();
    },
    { clock, watchCache: { lowerBoundCapacity: 4, upperBoundCapacity: 8 } },
  );
});

test('watchCache: false lets a watch start from any revision the history holds', async () => {
  await withServer(
    async (s) => {
      const w = await watch(s, `${cms}?watch=true&resourceVersion=1`);
      await create(s, cms, configMap('a'));
      assert.equal(brief(await w.next()), `ADDED a ${s.revision()}`);
      await w.close();
    },
    { watchCache: false },
  );
});

test('a watch from a resourceVersion in the future sends only the events after it', async () => {
  await withServer(async (s) => {
    const w = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision() + 2}`);
    await create(s, cms, configMap('a'));
    await create(s, cms, configMap('b'));
    await create(s, cms, configMap('c'));
    assert.equal(brief(await w.next()), `ADDED c ${s.revision()}`);
    await w.close();
  });
});

test('with upstream sizing, 100 writes then one more after 77 s drop the oldest event: the sequence observed on kube-apiserver v1.24', async () => {
  // On v1.24: list at L, create at L+1, 99 patches, 77 s, one more patch → a watch from L gets
  // "too old resource version: L (L+1)", from L+1 its events, and an Exact list at L still answers (etcd).
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  await withServer(
    async (s) => {
      const list = s.revision();
      await create(s, cms, configMap('g'));
      for (let i = 1; i <= 99; i++) await call(s, 'PATCH', `${cms}/g`, { body: { data: { n: String(i) } }, contentType: 'application/merge-patch+json' });
      await clock.step(77_000);
      await call(s, 'PATCH', `${cms}/g`, { body: { data: { n: '100' } }, contentType: 'application/merge-patch+json' });
      const old = await watch(s, `${cms}?watch=true&resourceVersion=${list}`);
      assert.equal((await old.next()).object.message, `too old resource version: ${list} (${list + 1})`);
      const kept = await watch(s, `${cms}?watch=true&resourceVersion=${list + 1}`);
      assert.equal(brief(await kept.next()), `MODIFIED g ${list + 2}`);
      await kept.close();
      assert.equal((await call(s, 'GET', `${cms}?resourceVersion=${list}&resourceVersionMatch=Exact`)).status, 200);
    },
    { clock },
  );
});

test('after faults.restart() the watch caches start again at the current revision, as a restarted kube-apiserver lists afresh', async () => {
  await withServer(async (s) => {
    const before = s.revision();
    await create(s, cms, configMap('a'));
    await s.faults.restart();
    const old = await watch(s, `${cms}?watch=true&resourceVersion=${before}`);
    assert.equal((await old.next()).object.message, `too old resource version: ${before} (${s.revision()})`);
    const now = await watch(s, `${cms}?watch=true&resourceVersion=${s.revision()}`);
    await create(s, cms, configMap('b'));
    assert.equal(brief(await now.next()), `ADDED b ${s.revision()}`);
    await now.close();
  });
});

test('a watch whose client went away while the request was held leaves no timers behind', async () => {
  const clock = new FakeClock(Date.parse('2024-05-01T10:00:00Z'));
  await withServer(
    async (s) => {
      s.faults.delay({ verb: 'watch', resource: 'configmaps', ms: 1_000 });
      const idle = clock.waiterCount();
      const aborted = new AbortController();
      const pending = fetch(`${s.url}${cms}?watch=true&allowWatchBookmarks=true`, { signal: aborted.signal }).catch(() => undefined);
      await clock.waitForWaiters(idle + 1);
      aborted.abort();
      await pending;
      // Let the server see the connection close before the delay ends.
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      await clock.step(1_000);
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      assert.equal(clock.waiterCount(), idle);
    },
    { clock, bookmarkIntervalMs: 200 },
  );
});
