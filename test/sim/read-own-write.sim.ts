// Planted bug: reading its own write through the cache without read-your-writes. A run-once controller
// starts one Run (a ConfigMap made with generateName) per PodSet, then records `status.replicas = 1`
// ("started"). The Run's own watch event queues the set again; when that reconcile's cache has not yet
// seen the status write, the controller believes nothing was started and starts a second Run.
// The fix makes the start idempotent: the Run is named after the set, so a second create is AlreadyExists.
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { childCount } from '../../src/sim/index.ts';
import { configMaps, controllerRef, getOrUndefined, podSets } from './kinds.ts';

function reconciler(idempotent: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined || set.status?.replicas === 1) return;
    const metadata = idempotent ? { name: `${req.name}-run` } : { generateName: `${req.name}-run-` };
    try {
      await client.create(configMaps, { metadata: { ...metadata, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] } });
    } catch (err) {
      if (!(idempotent && isAlreadyExists(err))) throw err;
    }
    await client.patchStatus(podSets, set, { status: { replicas: 1 } });
  };
}

function simulation(name: string, idempotent: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'runonce', for: podSets, owns: [configMaps], reconcile: reconciler(idempotent) }],
    async scenario({ client, settle }) {
      for (const n of ['a', 'b']) await client.create(podSets, { metadata: { name: n, namespace: 'default' }, spec: { replicas: 1 } });
      await settle();
    },
    invariants: [childCount('oneRunPerSet', podSets, configMaps, () => 1, 'atMost')],
  };
}

/** The planted bug. */
export const readOwnWriteBuggy = simulation('run started again when the cache lags behind its own status write', false);
/** The fixed controller. */
export const readOwnWriteFixed = simulation('run named after its set', true);
