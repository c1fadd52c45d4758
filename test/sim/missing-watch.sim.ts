// Planted bug: no watch on the child kind. The controller creates a PodSet's pods but only watches
// PodSets (no `owns: [pods]`): when a pod is deleted (evicted, a node drained), nothing enqueues its
// PodSet, and the set stays short of its replicas until something else happens to touch the PodSet, which
// may be never.
// The fix owns the pods: their events enqueue the PodSet that controls them.
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import { childCount, type SimClient, type Simulation } from '../../src/sim/index.ts';
import { controllerRef, getOrUndefined, isControlledBy, podSets, podSpec, pods } from './kinds.ts';

const reconcile: ReconcileFunc<SimClient> = async (req, { client }) => {
  const set = await getOrUndefined(client, podSets, req);
  if (set === undefined) return;
  // Pods are read from the server: without a watch on them there is no cache to read.
  const names = new Set((await client.list(pods, { namespace: req.namespace, uncached: true })).filter((p) => isControlledBy(p, set)).map((p) => p.metadata?.name));
  for (let i = 0; i < set.spec.replicas; i++) {
    const name = `${req.name}-${i}`;
    if (names.has(name)) continue;
    await client.create(pods, { metadata: { name, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  }
};

function simulation(name: string, ownsPods: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'podset', for: podSets, ...(ownsPods ? { owns: [pods] } : {}), reconcile }],
    async scenario({ client, settle }) {
      await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } });
      await settle();
      // An eviction.
      await client.delete(pods, { namespace: 'default', name: 'web-1' });
      await settle();
    },
    invariants: [childCount('podsAtMostReplicas', podSets, pods, (s) => s.spec.replicas, 'atMost')],
    eventually: [childCount('podsEqualReplicas', podSets, pods, (s) => s.spec.replicas, 'exactly')],
  };
}

/** The planted bug. */
export const missingWatchBuggy = simulation('pods created but not watched', false);
/** The fixed controller. */
export const missingWatchFixed = simulation('pods owned and watched', true);
