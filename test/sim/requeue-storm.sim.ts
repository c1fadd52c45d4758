// Planted bug: a requeue storm. The controller stamps a counter into status on every reconcile; each write
// is a watch event for the object it reconciles, which queues it again: the cluster never settles.
// The fix writes status only when what it reports (the observed generation) changed.
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { getOrUndefined, podSets } from './kinds.ts';

function reconciler(onlyOnChange: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined) return;
    const generation = set.metadata?.generation ?? 0;
    if (onlyOnChange && set.status?.observedGeneration === generation) return;
    await client.patchStatus(podSets, set, { status: { observedGeneration: generation, reconciles: (set.status?.reconciles ?? 0) + 1 } });
  };
}

function simulation(name: string, onlyOnChange: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'observer', for: podSets, reconcile: reconciler(onlyOnChange) }],
    async scenario({ client, settle }) {
      await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1 } });
      await settle();
      await client.patch(podSets, { namespace: 'default', name: 'web' }, { spec: { replicas: 2 } });
      await settle();
    },
    maxSteps: 1000,
  };
}

/** The planted bug. */
export const requeueStormBuggy = simulation('status stamped on every reconcile', false);
/** The fixed controller. */
export const requeueStormFixed = simulation('status written only when the observed generation changes', true);
