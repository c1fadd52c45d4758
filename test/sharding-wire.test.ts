import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { newClientset, type Clientset } from '../src/kubernetes/index.ts';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../src/testing/index.ts';
import { newListWatchFromClient, SharedIndexInformer, waitForCacheSync } from '../src/tools/cache/index.ts';
import { evenShardSelector, ShardSelector } from '../src/apimachinery/sharding/index.ts';
import { ListPager } from '../src/tools/pager/index.ts';
import { isBadRequest } from '../src/apimachinery/errors.ts';
import { parseFeatureGates } from '../src/apiserver/sharding.ts';

async function withServer(options: ApiServerOptions, fn: (s: ApiServer, cs: Clientset) => Promise<void>): Promise<void> {
  const s = await startApiServer({ controllers: { garbageCollector: false, namespace: false }, ...options });
  try {
    await fn(s, newClientset({ host: s.url, qps: -1 }, { maxRetries: 0 }));
  } finally {
    await s.stop();
  }
}

async function seed(cs: Clientset, n: number): Promise<ConfigMap[]> {
  const out: ConfigMap[] = [];
  for (let i = 0; i < n; i++) out.push(await cs.coreV1().configMaps('default').create({ metadata: { name: `cm-${i}` } }));
  return out;
}

async function until(what: string, cond: () => boolean, signal: AbortSignal): Promise<void> {
  while (!cond()) {
    if (signal.aborted) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

const names = (items: readonly ConfigMap[]): string[] => items.map((c) => c.metadata!.name!).sort();

test('with ShardedListAndWatch on, the embedded server filters LIST and WATCH by shardSelector and echoes shardInfo', async () => {
  await withServer({ featureGates: { ShardedListAndWatch: true } }, async (_s, cs) => {
    const all = await seed(cs, 40);
    const shards = [0, 1, 2].map((i) => evenShardSelector(i, 3));
    const seen: string[] = [];
    for (const sel of shards) {
      const list = await cs.coreV1().configMaps('default').list({ shardSelector: sel.toString() });
      assert.deepEqual((list.metadata as { shardInfo?: unknown }).shardInfo, { selector: sel.toString() });
      assert.equal(list.metadata?.remainingItemCount, undefined);
      assert.deepEqual(names(list.items), names(all.filter((c) => sel.matches(c))));
      seen.push(...names(list.items));
    }
    assert.deepEqual(seen.sort(), names(all));
    // Paginated: every page filtered, and the combined list keeps shardInfo.
    const paged = await new ListPager((o) => cs.coreV1().configMaps('default').list(o), { pageSize: 3 }).list({ shardSelector: shards[1]!.toString() });
    assert.equal(paged.paginated, true);
    assert.deepEqual(names(paged.items), names(all.filter((c) => shards[1]!.matches(c))));
    assert.deepEqual((paged.metadata as { shardInfo?: unknown }).shardInfo, { selector: shards[1]!.toString() });
    // A malformed selector is a 400.
    await assert.rejects(cs.coreV1().configMaps('default').list({ shardSelector: 'shardRange(object.metadata.name, 1, 2)' }), (err: unknown) => isBadRequest(err));
    // WATCH: only events of the shard.
    const ac = new AbortController();
    const w = await cs.coreV1().configMaps('default').watch({ resourceVersion: all.at(-1)!.metadata!.resourceVersion!, shardSelector: shards[0]!.toString(), signal: ac.signal });
    const more: ConfigMap[] = [];
    for (let i = 0; i < 30; i++) more.push(await cs.coreV1().configMaps('default').create({ metadata: { name: `late-${i}` } }));
    const expected = names(more.filter((c) => shards[0]!.matches(c)));
    const got: string[] = [];
    for await (const e of w) {
      assert.equal(e.type, 'ADDED');
      got.push((e.object as ConfigMap).metadata!.name!);
      if (got.length === expected.length) break;
    }
    ac.abort();
    assert.deepEqual(got.sort(), expected);
  });
});

test('with the gate off the server ignores shardSelector and sends no shardInfo; a sharded informer then filters by the same hash', async () => {
  await withServer({}, async (_s, cs) => {
    const all = await seed(cs, 30);
    const sel = evenShardSelector(1, 2);
    const list = await cs.coreV1().configMaps('default').list({ shardSelector: sel.toString() });
    assert.equal(list.items.length, 30);
    assert.equal((list.metadata as { shardInfo?: unknown }).shardInfo, undefined);
    const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps('default')), { shardSelector: sel });
    const ac = new AbortController();
    const deleted: string[] = [];
    informer.addEventHandler({ onAdd() {}, onUpdate() {}, onDelete: (o) => void deleted.push('key' in (o as object) ? (o as { key: string }).key : (o as ConfigMap).metadata!.name!) });
    const running = informer.run({ signal: ac.signal });
    try {
      assert.equal(await waitForCacheSync({ signal: AbortSignal.timeout(20_000) }, () => informer.hasSynced()), true);
      const inShard = (cs2: readonly ConfigMap[]): string[] => names(cs2.filter((c) => sel.matches(c)));
      assert.deepEqual(names(informer.getStore().list()), inShard(all));
      // Watch events outside the shard never reach the cache.
      const later: ConfigMap[] = [];
      for (let i = 0; i < 20; i++) later.push(await cs.coreV1().configMaps('default').create({ metadata: { name: `w-${i}` } }));
      const want = inShard([...all, ...later]);
      const deadline = AbortSignal.timeout(20_000);
      await until('watch events', () => names(informer.getStore().list()).length === want.length, deadline);
      assert.deepEqual(names(informer.getStore().list()), want);
      // Moving the informer to the other half: it relists, the old half is deleted, the new half added.
      const other = evenShardSelector(0, 2);
      informer.setShardSelector(other);
      const wantOther = names([...all, ...later].filter((c) => other.matches(c)));
      await until('relist', () => names(informer.getStore().list()).join() === wantOther.join(), deadline);
      assert.equal(deleted.length, want.length);
      // No range at all: an empty cache.
      informer.setShardSelector(ShardSelector.none());
      await until('empty', () => informer.getStore().list().length === 0, deadline);
    } finally {
      ac.abort();
      await running;
    }
  });
});

test('with a client-side shard key (the controller owner uid), an object whose owner moves out of the shard is deleted from the cache, and one moving in is added', async () => {
  await withServer({}, async (_s, cs) => {
    const owners = Array.from({ length: 16 }, () => crypto.randomUUID());
    const sel = evenShardSelector(0, 2);
    const mine = owners.filter((u) => sel.matchesValue(u));
    const theirs = owners.filter((u) => !sel.matchesValue(u));
    assert.ok(mine.length > 0 && theirs.length > 0);
    const ownerRef = (uid: string) => [{ apiVersion: 'v1', kind: 'ConfigMap', name: `o-${uid.slice(0, 8)}`, uid, controller: true }];
    await cs.coreV1().configMaps('default').create({ metadata: { name: 'a', ownerReferences: ownerRef(mine[0]!) } });
    await cs.coreV1().configMaps('default').create({ metadata: { name: 'b', ownerReferences: ownerRef(theirs[0]!) } });
    const shardKey = (c: ConfigMap): string => c.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid ?? c.metadata?.uid ?? '';
    const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps('default')), { shardSelector: sel, shardKey });
    const events: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => void events.push(`add ${o.metadata!.name}`),
      onUpdate: (_o, n) => void events.push(`update ${n.metadata!.name}`),
      onDelete: (o) => void events.push(`delete ${(o as ConfigMap).metadata!.name}`),
    });
    const ac = new AbortController();
    const running = informer.run({ signal: ac.signal });
    try {
      const deadline = AbortSignal.timeout(20_000);
      await until('sync', () => informer.hasSynced() && events.length === 1, deadline);
      assert.deepEqual(events, ['add a']);
      await cs.coreV1().configMaps('default').patch('a', 'application/json-patch+json', [{ op: 'replace', path: '/metadata/ownerReferences', value: ownerRef(theirs[1] ?? theirs[0]!) }]);
      await until('delete a', () => events.length === 2, deadline);
      await cs.coreV1().configMaps('default').patch('b', 'application/json-patch+json', [{ op: 'replace', path: '/metadata/ownerReferences', value: ownerRef(mine[0]!) }]);
      await until('add b', () => events.length === 3, deadline);
      assert.deepEqual(events, ['add a', 'delete a', 'add b']);
      assert.deepEqual(names(informer.getStore().list()), ['b']);
    } finally {
      ac.abort();
      await running;
    }
  });
});

test('--feature-gates text: known gates with true/false, anything else refused as component-base does', () => {
  assert.deepEqual(parseFeatureGates('ShardedListAndWatch=true'), { ShardedListAndWatch: true });
  assert.deepEqual(parseFeatureGates(' ShardedListAndWatch=false, '), { ShardedListAndWatch: false });
  assert.throws(() => parseFeatureGates('NoSuchGate=true'), /unrecognized feature gate: NoSuchGate/);
  assert.throws(() => parseFeatureGates('ShardedListAndWatch=yes'), /invalid value of ShardedListAndWatch=yes/);
});
