// Planted bug: a requeue-after that never stops. The controller waits for its pods to be Running by
// polling (requeueAfter 2 s), but keeps polling once they all are: the controller is never idle and the
// run never settles (the built-in `quiescence`). Polling is legitimate while waiting for something no
// watch reports; forever, it is a load the API server pays for every object.
// The fix stops requeueing once the pods are Running (their watch events would wake it anyway).
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import type { Pod } from '../../src/api/core/v1.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import { childCount, type SimClient, type Simulation } from '../../src/sim/index.ts';
import { controllerRef, getOrUndefined, isControlledBy, podSets, podSpec, pods } from './kinds.ts';

function reconciler(stopWhenDone: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined) return;
    const owned = (await client.list(pods, { namespace: req.namespace })).filter((p) => isControlledBy(p, set));
    const names = new Set(owned.map((p) => p.metadata?.name));
    for (let i = 0; i < set.spec.replicas; i++) {
      const name = `${req.name}-${i}`;
      if (names.has(name)) continue;
      await client.create(pods, { metadata: { name, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec } satisfies Pod).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
    }
    const running = owned.filter((p) => p.status?.phase === 'Running').length;
    if (stopWhenDone && running >= set.spec.replicas) return;
    return { requeueAfterMs: 2_000 };
  };
}

// A kubelet stand-in: marks every pod Running.
const kubelet: ReconcileFunc<SimClient> = async (req, { client }) => {
  const pod = await getOrUndefined(client, pods, req);
  if (pod === undefined || pod.status?.phase === 'Running') return;
  await client.patchStatus(pods, pod, { status: { phase: 'Running' } });
};

function simulation(name: string, stopWhenDone: boolean): Simulation {
  return {
    name,
    processes: [
      { name: 'manager', controllers: [{ name: 'podset', for: podSets, owns: [pods], reconcile: reconciler(stopWhenDone) }] },
      { name: 'kubelet', controllers: [{ name: 'kubelet', for: pods, reconcile: kubelet }] },
    ],
    async scenario({ client, settle }) {
      await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 } });
      await settle();
    },
    eventually: [childCount('podsEqualReplicas', podSets, pods, (s) => s.spec.replicas, 'exactly')],
    // A few virtual minutes are enough to tell a poll that stops from one that does not.
    deadlineMs: 120_000,
  };
}

/** The planted bug. */
export const requeueForeverBuggy = simulation('requeueAfter kept after the pods are running', false);
/** The fixed controller. */
export const requeueForeverFixed = simulation('requeueAfter only while waiting', true);
