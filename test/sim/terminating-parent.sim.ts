// Planted bug: ignoring deletionTimestamp. The controller keeps one ConfigMap per PodSet and, on deletion
// (a finalizer of its own), deletes it and removes the finalizer. But it "ensures" the child before it
// looks at the deletion: when the child's DELETED event arrives while its cache still shows the
// terminating PodSet, it creates the child again, for a parent on its way out (upstream's ReplicaSet and
// Job controllers skip a terminating owner for that reason).
// The fix handles deletion first and never creates a child for a terminating parent.
import { isAlreadyExists, isNotFound } from '../../src/apimachinery/errors.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { ClusterView, Invariant, SimClient, Simulation } from '../../src/sim/index.ts';
import { configMaps, controllerRef, getOrUndefined, isControlledBy, podSets } from './kinds.ts';

const finalizer = 'sim.kubeloom.dev/cleanup';

function reconciler(deletionFirst: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined) return;
    const terminating = set.metadata?.deletionTimestamp !== undefined;
    const finalizers = set.metadata?.finalizers ?? [];
    if (!terminating && !finalizers.includes(finalizer)) {
      await client.patch(podSets, set, { metadata: { finalizers: [...finalizers, finalizer], resourceVersion: set.metadata?.resourceVersion } });
      return;
    }
    const children = (await client.list(configMaps, { namespace: req.namespace })).filter((c) => isControlledBy(c, set));
    if (!(deletionFirst && terminating) && children.length === 0) {
      try {
        await client.create(configMaps, { metadata: { name: `${req.name}-config`, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, data: { replicas: String(set.spec.replicas) } });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    if (!terminating) return;
    for (const c of children) {
      await client.delete(configMaps, c).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    if (finalizers.includes(finalizer)) await client.patch(podSets, set, { metadata: { finalizers: finalizers.filter((f) => f !== finalizer), resourceVersion: set.metadata?.resourceVersion } });
  };
}

// Always: no child appears for a parent that is terminating (or gone). The children each parent had when
// it started terminating are remembered per run (keyed by the run's view).
const atDeletion = new WeakMap<ClusterView, Map<string, Set<string>>>();
const noChildOfTerminatingParent: Invariant = {
  name: 'noChildOfTerminatingParent',
  check(view) {
    let byParent = atDeletion.get(view);
    if (byParent === undefined) atDeletion.set(view, (byParent = new Map()));
    for (const s of view.list(podSets)) {
      if (s.metadata?.deletionTimestamp === undefined || byParent.has(s.metadata.uid!)) continue;
      byParent.set(s.metadata.uid!, new Set(view.list(configMaps).filter((c) => isControlledBy(c, s)).map((c) => c.metadata!.uid!)));
    }
    for (const c of view.list(configMaps)) {
      const owner = c.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid;
      const known = owner === undefined ? undefined : byParent.get(owner);
      if (known !== undefined && !known.has(c.metadata!.uid!)) return `ConfigMap ${c.metadata?.namespace}/${c.metadata?.name} was created after its PodSet started terminating`;
    }
    return undefined;
  },
};

function simulation(name: string, deletionFirst: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'config', for: podSets, owns: [configMaps], reconcile: reconciler(deletionFirst) }],
    async scenario({ client, settle }) {
      for (const n of ['a', 'b']) await client.create(podSets, { metadata: { name: n, namespace: 'default' }, spec: { replicas: 1 } });
      await settle();
      for (const n of ['a', 'b']) await client.delete(podSets, { namespace: 'default', name: n });
      await settle();
    },
    invariants: [noChildOfTerminatingParent],
    eventually: [
      {
        name: 'everythingGone',
        // The PodSets' ConfigMaps, not the cluster's own (kube-system's, as on a real server).
        check: (view) => {
          const left = view.list(configMaps).filter((c) => (c.metadata?.ownerReferences ?? []).some((r) => r.kind === podSets.kind)).length;
          return left === 0 ? undefined : `${left} ConfigMap(s) left after their PodSets were deleted`;
        },
      },
    ],
  };
}

/** The planted bug. */
export const terminatingParentBuggy = simulation('child ensured before the deletion is looked at', false);
/** The fixed controller. */
export const terminatingParentFixed = simulation('deletion handled first, no child for a terminating parent', true);
