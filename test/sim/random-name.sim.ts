// Planted bug: a child named with a random suffix (crypto.randomUUID, as application code often does). When
// the create commits but its response is lost (a 504 after the write) and the cache has not seen the child
// yet, the retry draws a new name and creates a second child. It also shows that code drawing random
// numbers replays exactly under the simulator: the same seed draws the same UUIDs.
// The fix names the child after its parent and treats AlreadyExists as success.
import { randomUUID } from 'node:crypto';
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import { childCount, type SimClient, type Simulation } from '../../src/sim/index.ts';
import { configMaps, controllerRef, getOrUndefined, isControlledBy, podSets } from './kinds.ts';

function reconciler(deterministic: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined) return;
    if ((await client.list(configMaps, { namespace: req.namespace })).some((c) => isControlledBy(c, set))) return;
    const name = deterministic ? `${req.name}-config` : `${req.name}-config-${randomUUID().slice(0, 8)}`;
    try {
      await client.create(configMaps, { metadata: { name, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, data: { replicas: String(set.spec.replicas) } });
    } catch (err) {
      if (!(deterministic && isAlreadyExists(err))) throw err;
    }
  };
}

function simulation(name: string, deterministic: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'config', for: podSets, owns: [configMaps], reconcile: reconciler(deterministic) }],
    async scenario({ client, settle }) {
      for (const n of ['a', 'b', 'c']) await client.create(podSets, { metadata: { name: n, namespace: 'default' }, spec: { replicas: 1 } });
      await settle();
    },
    invariants: [childCount('oneConfigMapPerSet', podSets, configMaps, () => 1, 'atMost')],
    eventually: [childCount('configMapPerSet', podSets, configMaps, () => 1, 'exactly')],
  };
}

/** The planted bug. */
export const randomNameBuggy = simulation('child named with randomUUID, retried after a lost response', false);
/** The fixed controller. */
export const randomNameFixed = simulation('child named after its parent', true);
