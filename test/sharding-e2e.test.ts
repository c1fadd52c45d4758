/**
 * Sharding on either backend (the embedded server with its default gates, or a real cluster through
 * KUBELOOM_TEST_KUBECONFIG: kube-apiserver v1.24 ignores shardSelector): sharded informers filter
 * client-side and split a namespace exactly, and a shard ring of two replicas splits the hash space.
 */
import assert from 'node:assert/strict';
import type { ConfigMap } from '../src/api/core/v1.ts';
import { evenShardSelector, HASH_SPACE_END, ShardRing, intersectRanges, unionRanges } from '../src/sharding/index.ts';
import { newListWatchFromClient, SharedIndexInformer } from '../src/tools/cache/index.ts';
import { e2eTest } from './support/backend.ts';

async function until(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

e2eTest('a server without ShardedListAndWatch sends every object and no shardInfo; two sharded informers split the namespace exactly, by the uid hash', {}, async (env) => {
  const cms = env.cs.coreV1().configMaps(env.namespace);
  const made: ConfigMap[] = [];
  for (let i = 0; i < 24; i++) made.push(await cms.create({ metadata: { name: `cm-${i}` } }));
  const halves = [evenShardSelector(0, 2), evenShardSelector(1, 2)];
  const list = await cms.list({ shardSelector: halves[0]!.toString() });
  assert.equal(list.items.filter((c) => c.metadata?.name?.startsWith('cm-')).length, 24);
  assert.equal((list.metadata as { shardInfo?: unknown }).shardInfo, undefined);
  const stop = new AbortController();
  const informers = halves.map((sel) => new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cms), { shardSelector: sel }));
  const runs = informers.map((i) => i.run({ signal: stop.signal }));
  try {
    const mine = (i: number): string[] => informers[i]!.getStore().list().map((c) => c.metadata!.name!).filter((n) => n.startsWith('cm-')).sort();
    await until('synced', () => informers.every((i) => i.hasSynced()) && mine(0).length + mine(1).length === 24);
    for (let i = 0; i < 2; i++) assert.deepEqual(mine(i), made.filter((c) => halves[i]!.matches(c)).map((c) => c.metadata!.name!).sort());
  } finally {
    stop.abort();
    await Promise.all(runs);
  }
});

e2eTest('a shard ring of two replicas splits the hash space between them through their Leases, and the survivor takes all when one leaves', {}, async (env) => {
  const client = env.cs.coordinationV1().leases(env.namespace);
  const rings = ['a', 'b'].map((id) => new ShardRing({ name: 'e2e', namespace: env.namespace, identity: id, client, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 }));
  const stops = rings.map(() => new AbortController());
  const runs = rings.map((r, i) => r.run({ signal: stops[i]!.signal }));
  const whole = (rs: ShardRing[]): boolean => {
    const all = unionRanges([], rs.flatMap((r) => r.activeRanges()));
    return all.length === 1 && all[0]!.start === 0n && all[0]!.end === HASH_SPACE_END && rs.every((r) => r.activeRanges().length > 0 && r.status().members.length === rs.length);
  };
  try {
    await until('split', () => whole(rings));
    assert.deepEqual(intersectRanges(rings[0]!.activeRanges(), rings[1]!.activeRanges()), []);
    stops[1]!.abort();
    await runs[1];
    await until('survivor holds everything', () => whole([rings[0]!]));
  } finally {
    for (const s of stops) s.abort();
    await Promise.all(runs);
  }
});
