// Planted bug: an event handler that mutates the cached object. The controller maps Pod events to their
// PodSet and, "normalizing" on the way, writes a default label into the Pod it was handed: that object is
// the informer's cache entry, shared with every reader, so the cache now disagrees with the server (the
// label looks present; nobody will ever write it). client-go's cache mutation detector
// (KUBE_CACHE_MUTATION_DETECTOR) exists for this; the simulator's built-in `cachedObjectMutated` check
// compares the object before and after each map function.
// The fix reads the object and never writes to it.
import type { KubeObject } from '../../src/apimachinery/object.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { Request } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { childCount } from '../../src/sim/index.ts';
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import { controllerRef, getOrUndefined, isControlledBy, podSets, podSpec, pods } from './kinds.ts';

const setLabel = 'sim.kubeloom.dev/set';

function mapper(mutates: boolean): (obj: KubeObject) => Request[] {
  return (pod) => {
    const labels = mutates ? (pod.metadata!.labels ??= {}) : { ...pod.metadata?.labels };
    labels.tier ??= 'standard';
    const set = labels[setLabel];
    return set === undefined ? [] : [{ namespace: pod.metadata?.namespace ?? '', name: set }];
  };
}

const reconcile: ReconcileFunc<SimClient> = async (req, { client }) => {
  const set = await getOrUndefined(client, podSets, req);
  if (set === undefined) return;
  const names = new Set((await client.list(pods, { namespace: req.namespace })).filter((p) => isControlledBy(p, set)).map((p) => p.metadata?.name));
  for (let i = 0; i < set.spec.replicas; i++) {
    const name = `${req.name}-${i}`;
    if (names.has(name)) continue;
    await client.create(pods, { metadata: { name, namespace: req.namespace, labels: { [setLabel]: req.name }, ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  }
};

function simulation(name: string, mutates: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'podset', for: podSets, watches: [{ kind: pods, map: mapper(mutates) }], reconcile }],
    async scenario({ client, settle }) {
      await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 } });
      await settle();
    },
    eventually: [childCount('podsEqualReplicas', podSets, pods, (s) => s.spec.replicas, 'exactly')],
  };
}

/** The planted bug. */
export const cacheMutationBuggy = simulation('event handler writes into the cached object', true);
/** The fixed controller. */
export const cacheMutationFixed = simulation('event handler reads a copy', false);
