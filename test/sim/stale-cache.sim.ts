// Planted bug: acting on a stale cache without expectations (kubernetes#129795's class). The controller
// counts the pods it sees in its cache and creates the difference with generateName; when the cache lags
// behind its own creates, the next reconcile creates them again and the set overshoots its replicas.
// The fix names pods deterministically (`<set>-<index>`), so a create it already made fails with
// AlreadyExists instead of duplicating (the StatefulSet way; ReplicaSet uses in-memory expectations).
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import type { Pod } from '../../src/api/core/v1.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import { childCount, type SimClient, type Simulation } from '../../src/sim/index.ts';
import { controllerRef, getOrUndefined, isControlledBy, podSets, podSpec, pods, type PodSet } from './kinds.ts';

async function getSet(client: SimClient, req: { namespace: string; name: string }): Promise<PodSet | undefined> {
  return getOrUndefined(client, podSets, req);
}

const buggy: ReconcileFunc<SimClient> = async (req, { client }) => {
  const set = await getSet(client, req);
  if (set === undefined) return;
  const owned = (await client.list(pods, { namespace: req.namespace })).filter((p) => isControlledBy(p, set));
  for (let i = owned.length; i < set.spec.replicas; i++) {
    await client.create(pods, { metadata: { generateName: `${req.name}-`, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec });
  }
};

const fixed: ReconcileFunc<SimClient> = async (req, { client }) => {
  const set = await getSet(client, req);
  if (set === undefined) return;
  const names = new Set((await client.list(pods, { namespace: req.namespace })).filter((p) => isControlledBy(p, set)).map((p) => p.metadata?.name));
  for (let i = 0; i < set.spec.replicas; i++) {
    const name = `${req.name}-${i}`;
    if (names.has(name)) continue;
    try {
      await client.create(pods, { metadata: { name, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec } satisfies Pod);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
};

function simulation(name: string, reconcile: ReconcileFunc<SimClient>): Simulation {
  return {
    name,
    controllers: [{ name: 'podset', for: podSets, owns: [pods], reconcile }],
    async scenario({ client, settle }) {
      await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } });
      await settle();
      await client.patch(podSets, { namespace: 'default', name: 'web' }, { spec: { replicas: 5 } });
      await settle();
    },
    invariants: [childCount('podsAtMostReplicas', podSets, pods, (s) => s.spec.replicas, 'atMost')],
    eventually: [childCount('podsEqualReplicas', podSets, pods, (s) => s.spec.replicas, 'exactly')],
  };
}

/** The planted bug. */
export const staleCacheBuggy = simulation('stale cache without expectations', buggy);
/** The fixed controller. */
export const staleCacheFixed = simulation('stale cache, deterministic names', fixed);
