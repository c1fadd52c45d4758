// Planted bug: Update instead of Patch, without a resourceVersion, loses a concurrent change. The
// controller records the replicas it observed in an annotation by updating the whole ConfigMap it read
// from its cache, resourceVersion removed "to avoid conflicts". When a user's change (here a label) reached
// the server after that read, the update writes the old labels back: the user's change is silently lost.
// The fix sends only what it owns, as a merge patch. A ConfigMap, not a custom resource: kube-apiserver
// accepts an update without resourceVersion for most built-in kinds (their strategies'
// AllowUnconditionalUpdate), but refuses it with 422 for custom resources, where this bug cannot happen.
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { ClusterView, Invariant, SimClient, Simulation } from '../../src/sim/index.ts';
import { configMaps, getOrUndefined } from './kinds.ts';

const observed = 'sim.kubeloom.dev/observed-replicas';

function reconciler(patch: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const cm = await getOrUndefined(client, configMaps, req);
    const replicas = cm?.data?.replicas;
    if (cm === undefined || replicas === undefined || cm.metadata?.annotations?.[observed] === replicas) return;
    if (patch) {
      await client.patch(configMaps, cm, { metadata: { annotations: { [observed]: replicas } } });
    } else {
      const { resourceVersion: _rv, ...metadata } = cm.metadata ?? {};
      await client.update(configMaps, { ...cm, metadata: { ...metadata, annotations: { ...metadata.annotations, [observed]: replicas } } });
    }
  };
}

// Always: once the user's label is on the ConfigMap, it stays (state kept per run, keyed by the run's view).
const seen = new WeakMap<ClusterView, Set<string>>();
const userLabelKept: Invariant = {
  name: 'userLabelKept',
  check(view) {
    let labelled = seen.get(view);
    if (labelled === undefined) seen.set(view, (labelled = new Set()));
    for (const s of view.list(configMaps)) {
      const key = `${s.metadata?.namespace}/${s.metadata?.name}`;
      if (s.metadata?.labels?.tier === 'gold') labelled.add(key);
      else if (labelled.has(key)) return `ConfigMap ${key} lost the label tier=gold the user set (written over by an update from an older copy)`;
    }
    return undefined;
  },
};

function simulation(name: string, patch: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'observer', for: configMaps, reconcile: reconciler(patch) }],
    async scenario({ client, settle }) {
      await client.create(configMaps, { metadata: { name: 'web', namespace: 'default' }, data: { replicas: '1' } });
      await settle();
      await client.patch(configMaps, { namespace: 'default', name: 'web' }, { data: { replicas: '2' } });
      await client.patch(configMaps, { namespace: 'default', name: 'web' }, { metadata: { labels: { tier: 'gold' } } });
      await settle();
    },
    invariants: [userLabelKept],
    eventually: [
      {
        name: 'observedCurrent',
        check: (view) => (view.list(configMaps).every((c) => c.data?.replicas === undefined || c.metadata?.annotations?.[observed] === c.data.replicas) ? undefined : 'a ConfigMap does not show its current replicas'),
      },
    ],
  };
}

/** The planted bug. */
export const lostUpdateBuggy = simulation('unconditional update from the cache loses a concurrent change', false);
/** The fixed controller. */
export const lostUpdateFixed = simulation('merge patch of the annotation it owns', true);
