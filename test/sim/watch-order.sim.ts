// Planted bug: assuming watch order across resources. A pod garbage collector deletes pods whose
// controlling PodSet is not in its cache, reasoning that the set was created first so its event came
// first. Events of different resources arrive on different watches in no guaranteed order: when the pod's
// event overtakes its set's, a live pod is deleted.
// The fix confirms a cache miss with a read from the API server before deleting.
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { controllerRef, getOrUndefined, podSets, podSpec, pods } from './kinds.ts';

function reconciler(confirm: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const pod = await getOrUndefined(client, pods, req);
    const ref = pod?.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'PodSet');
    if (pod === undefined || ref === undefined) return;
    const key = { namespace: req.namespace, name: ref.name };
    let owner = await getOrUndefined(client, podSets, key);
    if (owner === undefined && confirm) owner = await getOrUndefined(client.uncached(), podSets, key);
    if (owner === undefined || owner.metadata?.uid !== ref.uid) await client.delete(pods, pod);
  };
}

function simulation(name: string, confirm: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'orphans', for: pods, watches: [{ kind: podSets, map: () => [] }], reconcile: reconciler(confirm) }],
    async scenario({ client, settle }) {
      for (const n of ['a', 'b', 'c']) {
        const set = await client.create(podSets, { metadata: { name: n, namespace: 'default' }, spec: { replicas: 1 } });
        await client.create(pods, { metadata: { name: `${n}-0`, namespace: 'default', ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec });
      }
      await settle();
    },
    eventually: [
      {
        name: 'everyPodKept',
        check: (view) => (view.list(pods).length === 3 ? undefined : `${view.list(pods).length} pods left of 3`),
      },
    ],
  };
}

/** The planted bug. */
export const watchOrderBuggy = simulation('orphan check against the cache only', false);
/** The fixed controller. */
export const watchOrderFixed = simulation('orphan check confirmed against the API server', true);
