// Deterministic simulation of a controller (docs/simulation.md): a small ReplicaSet-like controller run
// against many seeded schedules under node:test, with a seed found once kept as a one-line regression test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// #region controller
import type { Pod } from 'kubeloom/api/core/v1';
import { isAlreadyExists, isNotFound, type KubeObject } from 'kubeloom/apimachinery';
import { kinds, type ResourceKind } from 'kubeloom/client';
import type { ReconcileFunc } from 'kubeloom/reconcile';
import { childCount, type SimClient } from 'kubeloom/sim';

interface PodSet extends KubeObject {
  spec: { replicas: number };
}
const podSets: ResourceKind<PodSet, unknown> = { group: 'example.dev', version: 'v1', resource: 'podsets', kind: 'PodSet', namespaced: true, subresources: ['status'] };

// Pods are named <set>-<index>: a create repeated on a stale cache fails with AlreadyExists instead of
// making a second pod.
const reconcile: ReconcileFunc<SimClient> = async (req, { client }) => {
  let set: PodSet;
  try {
    set = await client.get(podSets, req);
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  const have = new Set((await client.list(kinds.coreV1.pods, { namespace: req.namespace })).map((p) => p.metadata?.name));
  for (let i = 0; i < set.spec.replicas; i++) {
    const name = `${req.name}-${i}`;
    if (have.has(name)) continue;
    const ownerReferences = [{ apiVersion: 'example.dev/v1', kind: 'PodSet', name: req.name, uid: set.metadata!.uid!, controller: true }];
    const pod: Pod = { metadata: { name, namespace: req.namespace, ownerReferences }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
    try {
      await client.create(kinds.coreV1.pods, pod);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
};
// #endregion

// #region simulation
import { assertSeeds, assertSimulation, type Simulation } from 'kubeloom/sim';

const podSetSimulation: Simulation = {
  name: 'podset scale-up',
  controllers: [{ name: 'podset', for: podSets, owns: [kinds.coreV1.pods], reconcile }],
  // The user's actions, as ordinary async code.
  async scenario({ client, settle }) {
    await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } });
    await settle();
    await client.patch(podSets, { namespace: 'default', name: 'web' }, { spec: { replicas: 5 } });
  },
  // Checked after every step, and once the cluster quiesced.
  invariants: [childCount('podsAtMostReplicas', podSets, kinds.coreV1.pods, (s) => s.spec.replicas, 'atMost')],
  eventually: [childCount('podsEqualReplicas', podSets, kinds.coreV1.pods, (s) => s.spec.replicas, 'exactly')],
};

test('the PodSet controller keeps its invariants under 50 seeded schedules', async () => {
  const r = await assertSeeds(podSetSimulation, { seeds: 50 });
  assert.equal(r.runs, 50);
});

// A schedule found once (seed and kept perturbations from the failure report) stays a test.
test('regression: seed 12', async () => {
  await assertSimulation(podSetSimulation, { seed: 12 });
});
// #endregion

// #region manager
import { controllerManagedBy } from 'kubeloom/builder';
import { newManager, type Manager } from 'kubeloom/manager';
import { RestClient } from 'kubeloom/rest';

// The application's own setup function, as it runs in production.
function setup(mgr: Manager): void {
  controllerManagedBy(mgr)
    .for(podSets)
    .owns(kinds.coreV1.pods)
    .complete(async (req, { client }) => {
      const set = await client.get(podSets, req).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      if (set === undefined) return;
      const have = new Set((await client.list(kinds.coreV1.pods, { namespace: req.namespace })).map((p) => p.metadata?.name));
      for (let i = 0; i < set.spec.replicas; i++) {
        const name = `${req.name}-${i}`;
        if (have.has(name)) continue;
        const ownerReferences = [{ apiVersion: 'example.dev/v1', kind: 'PodSet', name: req.name, uid: set.metadata!.uid!, controller: true }];
        await client.create(kinds.coreV1.pods, { metadata: { name, namespace: req.namespace, ownerReferences }, spec: { containers: [{ name: 'app', image: 'app:1' }] } }).catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
      }
    });
}

const managerSimulation: Simulation = {
  ...podSetSimulation,
  name: 'podset scale-up in a Manager',
  controllers: [],
  kinds: [podSets],
  // One simulated process: a real Manager whose requests go to the simulated cluster. After a crash
  // perturbation it is started again, with cold caches. Its options are production's: the simulated
  // server sends watch bookmarks and ends watches at their timeout, as kube-apiserver does.
  start(h) {
    const mgr = newManager(new RestClient(h.restConfig, h.restClientOptions('manager')), { clock: h.clock, logger: h.logger });
    setup(mgr);
    void mgr.start(h.signal).catch(() => undefined);
  },
};

test('the same controller in a Manager keeps its invariants under 20 seeded schedules', async () => {
  await assertSeeds(managerSimulation, { seeds: 20 });
});
// #endregion
