// Planted bug: Update instead of Patch, without a resourceVersion, loses a concurrent change. The
// controller records the replicas it observed in an annotation by updating the whole PodSet it read from
// its cache, resourceVersion removed "to avoid conflicts". When a user's change (here a label) reached the
// server after that read, the update writes the old labels back: the user's change is silently lost.
// The fix sends only what it owns, as a merge patch.
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { ClusterView, Invariant, SimClient, Simulation } from '../../src/sim/index.ts';
import { getOrUndefined, podSets } from './kinds.ts';

const observed = 'sim.kubeloom.dev/observed-replicas';

function reconciler(patch: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, podSets, req);
    if (set === undefined || set.metadata?.annotations?.[observed] === String(set.spec.replicas)) return;
    if (patch) {
      await client.patch(podSets, set, { metadata: { annotations: { [observed]: String(set.spec.replicas) } } });
    } else {
      const { resourceVersion: _rv, ...metadata } = set.metadata ?? {};
      await client.update(podSets, { ...set, metadata: { ...metadata, annotations: { ...metadata.annotations, [observed]: String(set.spec.replicas) } } });
    }
  };
}

// Always: once the user's label is on the PodSet, it stays (state kept per run, keyed by the run's view).
const seen = new WeakMap<ClusterView, Set<string>>();
const userLabelKept: Invariant = {
  name: 'userLabelKept',
  check(view) {
    let labelled = seen.get(view);
    if (labelled === undefined) seen.set(view, (labelled = new Set()));
    for (const s of view.list(podSets)) {
      const key = `${s.metadata?.namespace}/${s.metadata?.name}`;
      if (s.metadata?.labels?.tier === 'gold') labelled.add(key);
      else if (labelled.has(key)) return `PodSet ${key} lost the label tier=gold the user set (written over by an update from an older copy)`;
    }
    return undefined;
  },
};

function simulation(name: string, patch: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'observer', for: podSets, reconcile: reconciler(patch) }],
    async scenario({ client, settle }) {
      await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1 } });
      await settle();
      await client.patch(podSets, { namespace: 'default', name: 'web' }, { spec: { replicas: 2 } });
      await client.patch(podSets, { namespace: 'default', name: 'web' }, { metadata: { labels: { tier: 'gold' } } });
      await settle();
    },
    invariants: [userLabelKept],
    eventually: [{ name: 'observedCurrent', check: (view) => (view.list(podSets).every((s) => s.metadata?.annotations?.[observed] === String(s.spec.replicas)) ? undefined : 'a PodSet does not show its current replicas') }],
  };
}

/** The planted bug. */
export const lostUpdateBuggy = simulation('unconditional update from the cache loses a concurrent change', false);
/** The fixed controller. */
export const lostUpdateFixed = simulation('merge patch of the annotation it owns', true);
