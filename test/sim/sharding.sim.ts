// The shard ring's hand-over (src/sharding, the Manager's `sharding` option) under the simulator: three
// replicas (processes a, b and c, each a Manager on one ring, each with its own clock offset and drift)
// reconcile 12 ConfigMaps, each recording its version and its reconciler in annotations. Then c is killed
// (kill -9: its Lease stays until it expires) and the others must take its ranges over, but only once its
// Lease expired on their own clocks.
// Checked: no key reconciled by two replicas at once (always); after each settle, every ConfigMap's hash
// claimed by exactly one live replica, and the current version reconciled by that replica; five seconds
// after the kill, nothing c claimed is claimed by another replica yet.
import type { ConfigMap } from '../../src/api/core/v1.ts';
import type { Lease } from '../../src/api/coordination/v1.ts';
import { isNotFound } from '../../src/apimachinery/errors.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { fnv1a64BigInt } from '../../src/apimachinery/sharding/hash.ts';
import { controllerManagedBy } from '../../src/builder/builder.ts';
import { kinds } from '../../src/client/kinds.ts';
import { newManager } from '../../src/manager/manager.ts';
import { RestClient } from '../../src/rest/client.ts';
import type { ClusterView, Invariant, SimHarness, Simulation } from '../../src/sim/index.ts';
import { ClaimsAnnotation, RingLabel } from '../../src/sharding/shard-ring.ts';
import { parseRanges } from '../../src/sharding/ranges.ts';

const configMaps = kinds.coreV1.configMaps;
const leases = kinds.coordinationV1.leases;
const ring = 'sim-ring';
const versionAnnotation = 'sim.kubeloom.dev/reconciled-version';
const byAnnotation = 'sim.kubeloom.dev/reconciled-by';
const names = Array.from({ length: 12 }, (_, i) => `cm-${i}`);

// Reconciles in flight, per key: which replica is inside one. Reset by each run's scenario (processes
// only start reconciling in later steps), and cleared of a replica's entries when it crashes.
const inFlight = new Map<string, string>();
let overlap: string | undefined;

/** Always: no key inside reconciles of two replicas at once. */
const noConcurrentShardReconcile: Invariant = { name: 'noConcurrentShardReconcile', check: () => overlap };

function replica(identity: string): (h: SimHarness) => void {
  return (h) => {
    const mine = new Set<string>();
    h.signal.addEventListener('abort', () => {
      for (const key of mine) if (inFlight.get(key) === identity) inFlight.delete(key);
    });
    const mgr = newManager(new RestClient(h.restConfig, h.restClientOptions('manager')), {
      clock: h.clock,
      logger: h.logger,
      sharding: { ring, namespace: 'default', identity },
    });
    controllerManagedBy(mgr)
      .for(configMaps)
      .complete(async (req, { client }) => {
        const key = `${req.namespace}/${req.name}`;
        const other = inFlight.get(key);
        if (other !== undefined && other !== identity) overlap ??= `${identity} started reconciling ${key} while ${other} was inside a reconcile of it`;
        inFlight.set(key, identity);
        mine.add(key);
        try {
          let cm: ConfigMap;
          try {
            cm = await client.get(configMaps, req);
          } catch (err) {
            if (isNotFound(err)) return;
            throw err;
          }
          const v = cm.data?.['v'];
          if (v === undefined || (cm.metadata?.annotations?.[versionAnnotation] === v && cm.metadata.annotations[byAnnotation] === identity)) return;
          await client.patch(configMaps, req, PatchType.Merge, { metadata: { annotations: { [versionAnnotation]: v, [byAnnotation]: identity } } });
        } finally {
          if (inFlight.get(key) === identity) inFlight.delete(key);
          mine.delete(key);
        }
      });
    void mgr.start(h.signal).catch(() => undefined);
  };
}

/** The replicas (of `live`) whose Lease claims the hash of `cm`'s uid. */
function claimants(view: ClusterView, cm: ConfigMap, live: readonly string[]): string[] {
  const h = fnv1a64BigInt(cm.metadata!.uid!);
  const out: string[] = [];
  for (const lease of view.list<Lease>(leases, 'default')) {
    if (lease.metadata?.labels?.[RingLabel] !== ring) continue;
    const holder = lease.spec?.holderIdentity ?? '';
    if (!live.includes(holder)) continue;
    if (parseRanges(lease.metadata?.annotations?.[ClaimsAnnotation]).some((r) => r.start <= h && h < r.end)) out.push(holder);
  }
  return out;
}

/** Every ConfigMap claimed by exactly one of `live`, its current version reconciled by that replica. */
function checkOwnership(view: ClusterView, live: readonly string[], when: string): void {
  for (const cm of view.list<ConfigMap>(configMaps, 'default')) {
    const owners = claimants(view, cm, live);
    const name = cm.metadata?.name;
    if (owners.length !== 1) throw new Error(`${when}: ConfigMap ${name} is claimed by ${owners.length === 0 ? 'no live replica' : owners.join(' and ')} (live: ${live.join(', ')})`);
    const a = cm.metadata?.annotations ?? {};
    if (a[versionAnnotation] !== cm.data?.['v'] || a[byAnnotation] !== owners[0]) {
      throw new Error(`${when}: ConfigMap ${name} at version ${cm.data?.['v']} was last reconciled at version ${a[versionAnnotation]} by ${a[byAnnotation]}, its owner is ${owners[0]}`);
    }
  }
}

async function setVersion(client: Parameters<Simulation['scenario']>[0]['client'], v: string): Promise<void> {
  for (const name of names) await client.patch(configMaps, { namespace: 'default', name }, { data: { v } });
}

/** Three sharded Managers; one killed; its ranges taken over once its Lease expired. */
export const shardHandOver: Simulation = {
  name: 'shard ring: hand-over after a replica is killed',
  processes: [
    { name: 'a', start: replica('a') },
    { name: 'b', start: replica('b') },
    { name: 'c', start: replica('c') },
  ],
  // Within the ring's assumptions: rates differ far less than lease duration / renew deadline (1.5).
  clockSkew: { maxOffsetMs: 10_000, maxDrift: 0.01 },
  async scenario({ client, settle, sleep, view, kill }) {
    inFlight.clear();
    overlap = undefined;
    for (const name of names) await client.create(configMaps, { metadata: { name, namespace: 'default' }, data: { v: '1' } });
    await settle();
    checkOwnership(view, ['a', 'b', 'c'], 'after the ring formed');
    await setVersion(client, '2');
    await settle();
    checkOwnership(view, ['a', 'b', 'c'], 'after version 2');
    const ofC = view.list<ConfigMap>(configMaps, 'default').filter((cm) => claimants(view, cm, ['c']).length > 0);
    kill('c');
    // Well within the 15 s lease: c might only be partitioned, so nobody may take its ranges yet.
    await sleep(5_000);
    for (const cm of ofC) {
      const early = claimants(view, cm, ['a', 'b']);
      if (early.length > 0) throw new Error(`5 s after c was killed, ${early.join(' and ')} already claims ConfigMap ${cm.metadata?.name} of c (its Lease has not expired)`);
    }
    await settle();
    await setVersion(client, '3');
    await settle();
    checkOwnership(view, ['a', 'b'], 'after c was killed and version 3');
  },
  invariants: [noConcurrentShardReconcile],
};
