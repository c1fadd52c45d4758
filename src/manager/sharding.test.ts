import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { Registry } from 'prom-client';
import type { ConfigMap } from '../api/core/v1.ts';
import { startApiServer } from '../apiserver/index.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { Client } from '../client/client.ts';
import { kinds } from '../client/kinds.ts';
import { RestClient } from '../rest/client.ts';
import { eventually } from '../testing/eventually.ts';
import { formatRanges, unionRanges } from '../sharding/ranges.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { newManager, type Manager } from './manager.ts';

const quiet = { debug() {}, info() {}, error() {} };
const fastLease = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 };
const objects = 40;

interface Replica {
  identity: string;
  mgr: Manager;
  registry: Registry;
  stop: AbortController;
  running: Promise<void>;
}

test('three Managers on one shard ring: each change is reconciled by exactly one replica, never two at once, and a stopped replica’s objects move to the others', async (t) => {
  const server = await startApiServer({ featureGates: { ShardedListAndWatch: true } });
  t.after(() => server.stop());
  const rest = new RestClient({ host: server.url, qps: -1 });
  const client = new Client({ rest });
  for (let i = 0; i < objects; i++) {
    const cm = await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: `cm-${i}` }, data: { round: '0' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata!.name!, uid: cm.metadata!.uid!, controller: true };
    await client.create(kinds.coreV1.secrets, { metadata: { namespace: 'default', name: `cm-${i}-owned`, ownerReferences: [ref] }, stringData: { round: '0' } });
  }

  // Every reconcile: (key, replica, round seen), and a check that no other replica is inside it.
  const inside = new Map<string, string>();
  const overlaps: string[] = [];
  const log: Array<{ key: string; replica: string; round: string }> = [];
  const replicas: Replica[] = [];
  for (const identity of ['r0', 'r1', 'r2']) {
    const registry = new Registry();
    const mgr = newManager({ host: server.url, qps: -1 }, {
      logger: quiet,
      gracefulShutdownTimeoutMs: 5_000,
      healthProbeBindAddress: '127.0.0.1:0',
      metricsRegistry: registry as unknown as PrometheusRegistry,
      sharding: { ring: 'cms', namespace: 'default', identity, ...fastLease },
      // Leader election of the other runnables stays possible beside the ring.
      leaderElection: { id: 'cms-leader', identity, ...fastLease },
    });
    controllerManagedBy(mgr)
      .for(kinds.coreV1.configMaps)
      .owns(kinds.coreV1.secrets)
      .complete(async ({ namespace, name }, { client: c }) => {
        const key = `${namespace}/${name}`;
        const other = inside.get(key);
        if (other !== undefined) overlaps.push(`${key}: ${identity} started while ${other} was reconciling`);
        inside.set(key, identity);
        try {
          const cm = await c.get(kinds.coreV1.configMaps, { namespace, name }).catch(() => undefined);
          await yieldToIo();
          log.push({ key, replica: identity, round: cm?.data?.round ?? 'gone' });
        } finally {
          inside.delete(key);
        }
      });
    const stop = new AbortController();
    replicas.push({ identity, mgr, registry, stop, running: mgr.start(stop.signal) });
  }
  t.after(async () => {
    for (const r of replicas) r.stop.abort();
    await Promise.allSettled(replicas.map((r) => r.running));
  });

  const live = (): Replica[] => replicas.filter((r) => !r.stop.signal.aborted);
  const stable = (): boolean => {
    const gates = live().map((r) => r.mgr.getSharding()!.gates()[0]!);
    // activeFraction is rounded to 6 digits.
    const sum = gates.reduce((s, g) => s + g.status().activeFraction, 0);
    // Every replica works on exactly the ranges the ring assigns it (no hand-over under way).
    const settled = live().every((r) => {
      const st = r.mgr.getSharding()!.ring.status();
      return formatRanges(unionRanges(st.active, [])) === formatRanges(unionRanges(st.desired, []));
    });
    return settled && gates.every((g) => g.status().members === gates.length) && Math.abs(sum - 1) < 1e-4 && gates.every((g) => g.status().activeFraction > 0);
  };
  const touch = async (round: number): Promise<void> => {
    for (let i = 0; i < objects; i++) {
      const key = { namespace: 'default', name: `cm-${i}` };
      const cm = await client.get(kinds.coreV1.configMaps, key);
      await client.update(kinds.coreV1.configMaps, { ...cm, data: { round: String(round) } } as ConfigMap);
    }
  };
  /** Replicas that reconciled `key` at `round`. */
  const reconcilers = (round: number): Map<string, Set<string>> => {
    const out = new Map<string, Set<string>>();
    for (const e of log) if (e.round === String(round)) out.set(e.key, (out.get(e.key) ?? new Set()).add(e.replica));
    return out;
  };
  const owner = (key: string): string[] => live().filter((r) => r.mgr.getSharding()!.gates()[0]!.owns(key)).map((r) => r.identity);

  await eventually(stable, { timeoutMs: 20_000 });
  await eventually(() => reconcilers(0).size === objects, { timeoutMs: 20_000 });
  // /readyz passes on a replica holding its ranges; the gauges are in its registry.
  await eventually(async () => (await fetch(`http://${replicas[0]!.mgr.addresses().healthProbe}/readyz`)).status === 200, { timeoutMs: 10_000 });
  const metrics = await replicas[0]!.registry.metrics();
  assert.match(metrics, /controller_sharding_members\{controller="configmap",ring="cms",identity="r0"\} 3/);
  assert.match(metrics, /controller_sharding_active_fraction\{controller="configmap",ring="cms",identity="r0"\} 0\.\d+/);

  // Round 1: every change reconciled by exactly the replica owning its key.
  await touch(1);
  await eventually(() => reconcilers(1).size === objects, { timeoutMs: 20_000 });
  for (const [key, by] of reconcilers(1)) {
    assert.deepEqual([...by], owner(key), key);
  }
  const perReplica = new Map<string, number>();
  for (const [, by] of reconcilers(1)) for (const r of by) perReplica.set(r, (perReplica.get(r) ?? 0) + 1);
  assert.equal(perReplica.size, 3, `every replica reconciles a share: ${JSON.stringify([...perReplica])}`);
  const ofR2 = [...reconcilers(1)].filter(([, by]) => by.has('r2')).map(([k]) => k);

  // r2 stops: it drains, deletes its Lease, and the others take over its objects (reconciling them again).
  const before = log.length;
  replicas[2]!.stop.abort();
  await replicas[2]!.running;
  await eventually(stable, { timeoutMs: 20_000 });
  await eventually(() => ofR2.every((k) => log.slice(before).some((e) => e.key === k && e.replica !== 'r2')), { timeoutMs: 20_000 });

  // Round 2: with two replicas, again exactly one per change.
  await touch(2);
  await eventually(() => reconcilers(2).size === objects, { timeoutMs: 20_000 });
  for (const [key, by] of reconcilers(2)) {
    assert.equal(by.size, 1, key);
    assert.deepEqual([...by], owner(key), key);
  }

  // Owned Secrets follow their owner: each replica caches only its owners' Secrets (client-side, by
  // the uid in the controller reference), and a change to a Secret is reconciled by its owner's replica.
  const cachedSecrets = live().map((r) => r.mgr.getCache().namespaceInformers(kinds.coreV1.secrets).reduce((n, i) => n + i.getStore().list().filter((x) => x.metadata?.name?.endsWith('-owned') === true).length, 0));
  assert.equal(cachedSecrets.reduce((a, b) => a + b, 0), objects, `secrets cached per replica: ${cachedSecrets.join(', ')}`);
  const mark = log.length;
  for (let i = 0; i < objects; i++) {
    const key = { namespace: 'default', name: `cm-${i}-owned` };
    const secret = await client.get(kinds.coreV1.secrets, key);
    await client.update(kinds.coreV1.secrets, { ...secret, data: {}, stringData: { round: '3' } });
  }
  const afterMark = (): Array<{ key: string; replica: string }> => log.slice(mark);
  await eventually(() => new Set(afterMark().map((e) => e.key)).size === objects, { timeoutMs: 20_000 });
  for (const e of afterMark()) assert.deepEqual([e.replica], owner(e.key), e.key);
  assert.deepEqual(overlaps, []);
});

test('the sharded option needs a manager with a ring; sharded controllers skip leader election, sharded: false keeps it', async (t) => {
  const server = await startApiServer();
  t.after(() => server.stop());
  const plain = newManager({ host: server.url }, { logger: quiet });
  assert.throws(() => controllerManagedBy(plain).for(kinds.coreV1.configMaps).withOptions({ sharded: true }).complete(async () => {}), { code: 'ERR_BUILDER' });
  const mgr = newManager({ host: server.url }, { logger: quiet, sharding: { ring: 'x', identity: 'me' } });
  const sharded = controllerManagedBy(mgr).for(kinds.coreV1.configMaps).complete(async () => {});
  const unsharded = controllerManagedBy(mgr).for(kinds.coreV1.secrets).withOptions({ sharded: false }).complete(async () => {});
  assert.equal(sharded.needLeaderElection(), false);
  assert.equal(unsharded.needLeaderElection(), true);
  assert.equal(mgr.getSharding()!.gates().length, 1);
  // The for() kind's informers were created with a shard selector.
  assert.ok(mgr.getCache().namespaceInformers(kinds.coreV1.configMaps).every((i) => i.shardSelector() !== undefined));
  assert.ok(mgr.getCache().namespaceInformers(kinds.coreV1.secrets).every((i) => i.shardSelector() === undefined));
});
