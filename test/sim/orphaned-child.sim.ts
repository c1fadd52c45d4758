// Planted bug: a child without an owner reference. The controller creates a ConfigMap for each PodSet and
// finds it again by a label, but sets no ownerReferences and has no finalizer: when the PodSet is
// deleted, nothing deletes the ConfigMap (the garbage collector only follows owner references). It leaks.
// The fix sets the controller owner reference, and the garbage collector deletes the child with its parent.
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { configMaps, controllerRef, getOrUndefined, podSets } from './kinds.ts';

const setLabel = 'sim.kubeloom.dev/set';

function reconciler(owned: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined) return;
    if ((await client.list(configMaps, { namespace: req.namespace, labelSelector: `${setLabel}=${req.name}` })).length > 0) return;
    const metadata = { name: `${req.name}-config`, namespace: req.namespace, labels: { [setLabel]: req.name }, ...(owned ? { ownerReferences: [controllerRef(podSets, set)] } : {}) };
    try {
      await client.create(configMaps, { metadata, data: { replicas: String(set.spec.replicas) } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  };
}

function simulation(name: string, owned: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'config', for: podSets, watches: [{ kind: configMaps, map: (c) => [{ namespace: c.metadata?.namespace ?? '', name: c.metadata?.labels?.[setLabel] ?? '' }] }], reconcile: reconciler(owned) }],
    async scenario({ client, settle }) {
      for (const n of ['a', 'b']) await client.create(podSets, { metadata: { name: n, namespace: 'default' }, spec: { replicas: 1 } });
      await settle();
      await client.delete(podSets, { namespace: 'default', name: 'a' });
      await settle();
    },
    eventually: [
      {
        name: 'noLeakedChild',
        check(view) {
          // The controller's ConfigMaps (labelled with their PodSet), not the cluster's own.
          const leaked = view.list(configMaps).filter((c) => c.metadata?.labels?.[setLabel] !== undefined && view.get(podSets, { namespace: c.metadata?.namespace ?? '', name: c.metadata.labels[setLabel] }) === undefined);
          return leaked.length === 0 ? undefined : `ConfigMap ${leaked[0]!.metadata?.namespace}/${leaked[0]!.metadata?.name} outlived its PodSet`;
        },
      },
    ],
  };
}

/** The planted bug. */
export const orphanedChildBuggy = simulation('child created without an owner reference', false);
/** The fixed controller. */
export const orphanedChildFixed = simulation('child owned by its parent, collected with it', true);
