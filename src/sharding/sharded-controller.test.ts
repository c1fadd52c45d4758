import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { ConfigMap } from '../api/core/v1.ts';
import { fnv1a64BigInt } from '../apimachinery/sharding/hash.ts';
import { HASH_SPACE_END, ShardSelector, type ShardRange } from '../apimachinery/sharding/selector.ts';
import { FakeListerWatcher, FakeWatch } from '../tools/cache/testing/fake-lister-watcher.ts';
import { SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import { ShardedController, controllerShardKey } from './sharded-controller.ts';
import type { ShardRing, ShardRingListener } from './shard-ring.ts';

const HALF = 1n << 63n;
const low: ShardRange = { start: 0n, end: HALF };
const high: ShardRange = { start: HALF, end: HASH_SPACE_END };

function uidIn(r: ShardRange): string {
  for (;;) {
    const uid = crypto.randomUUID();
    const h = fnv1a64BigInt(uid);
    if (h >= r.start && h < r.end) return uid;
  }
}

async function until(what: string, cond: () => boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A ring driven by the test: it calls the listener as ShardRing would. */
function fakeRing(): { ring: ShardRing; listener: () => ShardRingListener; setActive: (r: ShardRange[]) => void } {
  let listener: ShardRingListener | undefined;
  let active: ShardRange[] = [];
  const ring = {
    name: 'r',
    identity: 'me',
    addListener: (l: ShardRingListener) => (listener = l),
    status: () => ({ members: ['me', 'other'], desired: active, claimed: active, active, lastRenewal: 1 }),
    activeRanges: () => active,
  } as unknown as ShardRing;
  return { ring, listener: () => listener!, setActive: (r) => (active = r) };
}

test('ShardedController reconciles only keys of granted ranges, and a revoke waits for the in-flight reconciles of its ranges', async () => {
  const a: ConfigMap = { metadata: { name: 'a', namespace: 'default', uid: uidIn(low), resourceVersion: '1' } };
  const b: ConfigMap = { metadata: { name: 'b', namespace: 'default', uid: uidIn(high), resourceVersion: '1' } };
  const lw = new FakeListerWatcher<ConfigMap>({ watchListUnsupported: true });
  for (let i = 0; i < 4; i++) {
    lw.pushList({ metadata: { resourceVersion: '1' }, items: [a, b] });
    lw.pushWatch(new FakeWatch<ConfigMap>());
  }
  const informer = new SharedIndexInformer<ConfigMap>(lw, { shardSelector: ShardSelector.none() });
  const { ring, listener, setActive } = fakeRing();
  const reconciled: string[] = [];
  let release: (() => void) | undefined;
  const registry = new Registry();
  const c = new ShardedController({
    name: 't',
    ring,
    informers: [informer],
    metrics: registry,
    reconcile: async (key) => {
      reconciled.push(key);
      if (key === 'default/a') await new Promise<void>((r) => (release = r));
    },
  });
  c.watchFor(informer);
  const stop = new AbortController();
  const running = Promise.all([informer.run({ signal: stop.signal }), c.run({ signal: stop.signal })]);
  try {
    await until('synced', () => informer.hasSynced());
    assert.equal(informer.getStore().list().length, 0, 'no range: nothing cached');
    // The ring's coverage: the informer relists with it; the selector went to the server.
    listener().onCoverage!([low, high]);
    await until('relisted', () => informer.getStore().list().length === 2);
    assert.equal(lw.listCalls.at(-1)!.shardSelector, "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')");
    assert.deepEqual(reconciled, []);
    // Granted the lower half: only a.
    setActive([low]);
    listener().onGrant([low]);
    await until('a reconciling', () => release !== undefined);
    assert.deepEqual(reconciled, ['default/a']);
    assert.equal(c.owns('default/a'), true);
    assert.equal(c.owns('default/b'), false);
    assert.match(await registry.metrics(), /controller_sharding_active_fraction\{controller="t",ring="r",identity="me"\} 0\.5/);
    // Revoked while a is in flight: the revoke resolves only after a's reconcile ended.
    setActive([]);
    let revoked = false;
    const revoking = listener()
      .onRevoke([low])
      .then(() => (revoked = true));
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    assert.equal(revoked, false);
    release!();
    await revoking;
    assert.equal(revoked, true);
    // A key of a revoked range is dropped when dequeued.
    c.controller.add('default/a');
    await until('queue drained', () => c.controller.queue.len() === 0 && c.controller.stats().inFlight === 0);
    assert.deepEqual(reconciled, ['default/a']);
    // Granted the upper half: b, from the cache.
    setActive([high]);
    listener().onGrant([high]);
    await until('b reconciled', () => reconciled.length === 2);
    assert.deepEqual(reconciled, ['default/a', 'default/b']);
  } finally {
    stop.abort();
    release?.();
    await running;
  }
});

test('owned objects enqueue their controller owner, sharded by the owner uid in the reference, and follow the ring coverage client-side', async () => {
  const ownerLow = uidIn(low);
  const ownerHigh = uidIn(high);
  const child = (name: string, owner: string, ownerName: string): ConfigMap => ({
    metadata: { name, namespace: 'default', uid: crypto.randomUUID(), resourceVersion: '1', ownerReferences: [{ apiVersion: 'v1', kind: 'Widget', name: ownerName, uid: owner, controller: true }] },
  });
  const lw = new FakeListerWatcher<ConfigMap>({ watchListUnsupported: true });
  for (let i = 0; i < 3; i++) {
    lw.pushList({ metadata: { resourceVersion: '1' }, items: [child('c1', ownerLow, 'w-low'), child('c2', ownerHigh, 'w-high')] });
    lw.pushWatch(new FakeWatch<ConfigMap>());
  }
  const owned = new SharedIndexInformer<ConfigMap>(lw, { shardSelector: ShardSelector.none(), shardKey: controllerShardKey });
  const { ring, listener, setActive } = fakeRing();
  const reconciled: string[] = [];
  const c = new ShardedController({ name: 'o', ring, informers: [owned], reconcile: async (key) => void reconciled.push(key) });
  c.watchOwned(owned, { ownerKind: 'Widget' });
  const stop = new AbortController();
  const running = Promise.all([owned.run({ signal: stop.signal }), c.run({ signal: stop.signal })]);
  try {
    // As the ring does: coverage first (the informer relists while the range is not granted yet), then the grant.
    listener().onCoverage!([low]);
    await until('relisted', () => owned.getStore().list().length === 1);
    assert.deepEqual(reconciled, []);
    setActive([low]);
    listener().onGrant([low]);
    // Only the child of the owner in the lower half is cached (client-side, by the owner's uid), and it enqueues its owner.
    await until('owner reconciled', () => reconciled.length === 1);
    assert.deepEqual(owned.getStore().list().map((x) => x.metadata!.name), ['c1']);
    assert.equal(lw.listCalls.at(-1)!.shardSelector, undefined);
    assert.deepEqual(reconciled, ['default/w-low']);
  } finally {
    stop.abort();
    await running;
  }
});
