// Planted bug: creating a child without idempotency. The controller gives each PodSet one ConfigMap, made
// with generateName after checking its cache. When the create commits but its response is lost (a 504 after
// the write) and the cache has not yet seen the ConfigMap, the retry creates a second one.
// The fix names the child after its parent and treats AlreadyExists as success.
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { childCount } from '../../src/sim/index.ts';
import { configMaps, controllerRef, getOrUndefined, isControlledBy, podSets } from './kinds.ts';

function reconciler(idempotent: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined) return;
    const existing = (await client.list(configMaps, { namespace: req.namespace })).filter((c) => isControlledBy(c, set));
    if (existing.length > 0) return;
    const metadata = idempotent ? { name: `${req.name}-config`, namespace: req.namespace } : { generateName: `${req.name}-config-`, namespace: req.namespace };
    try {
      await client.create(configMaps, { metadata: { ...metadata, ownerReferences: [controllerRef(podSets, set)] }, data: { replicas: String(set.spec.replicas) } });
    } catch (err) {
      if (!(idempotent && isAlreadyExists(err))) throw err;
    }
  };
}

function simulation(name: string, idempotent: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'config', for: podSets, owns: [configMaps], reconcile: reconciler(idempotent) }],
    async scenario({ client, settle }) {
      for (const n of ['a', 'b', 'c']) await client.create(podSets, { metadata: { name: n, namespace: 'default' }, spec: { replicas: 1 } });
      await settle();
    },
    invariants: [childCount('oneConfigMapPerSet', podSets, configMaps, () => 1, 'atMost')],
    eventually: [childCount('configMapPerSet', podSets, configMaps, () => 1, 'exactly')],
  };
}

/** The planted bug. */
export const nonIdempotentBuggy = simulation('child created with generateName, retried after a lost response', false);
/** The fixed controller. */
export const nonIdempotentFixed = simulation('child with a deterministic name, AlreadyExists is success', true);
