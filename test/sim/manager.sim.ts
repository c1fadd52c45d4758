// A controller written for kubeloom's Manager and builder (controller-runtime style), run unchanged under
// the simulator: `setup(mgr)` is the user's own function; the Manager, its shared cache, client, work
// queues and leader election run on the simulated cluster through the in-process REST transport.
// The planted bug is the stale-cache one of stale-cache.sim.ts, written against the real Client.
import { isAlreadyExists, isNotFound } from '../../src/apimachinery/errors.ts';
import { controllerManagedBy } from '../../src/builder/builder.ts';
import type { Client } from '../../src/client/client.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import { newManager, type Manager } from '../../src/manager/manager.ts';
import { RestClient } from '../../src/rest/client.ts';
import { childCount, type Simulation } from '../../src/sim/index.ts';
import { controllerRef, isControlledBy, podSets, podSpec, pods, type PodSet } from './kinds.ts';

async function getSet(client: Client, req: { namespace: string; name: string }): Promise<PodSet | undefined> {
  try {
    return await client.get(podSets, req);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The user's setup function, buggy: counts pods in the cache and creates the difference with generateName. */
export function setupBuggy(mgr: Manager): void {
  controllerManagedBy(mgr)
    .for(podSets)
    .owns(pods)
    .complete(async (req, { client }) => {
      const set = await getSet(client, req);
      if (set === undefined) return;
      const owned = (await client.list(pods, { namespace: req.namespace })).filter((p) => isControlledBy(p, set));
      for (let i = owned.length; i < set.spec.replicas; i++) {
        await client.create(pods, { metadata: { generateName: `${req.name}-`, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec });
      }
    });
}

/** The fixed reconciler: deterministic pod names. */
export const reconcileFixed: ReconcileFunc<Client> = async (req, { client }) => {
  const set = await getSet(client, req);
  if (set === undefined) return;
  const names = new Set((await client.list(pods, { namespace: req.namespace })).filter((p) => isControlledBy(p, set)).map((p) => p.metadata?.name));
  for (let i = 0; i < set.spec.replicas; i++) {
    if (names.has(`${req.name}-${i}`)) continue;
    try {
      await client.create(pods, { metadata: { name: `${req.name}-${i}`, namespace: req.namespace, ownerReferences: [controllerRef(podSets, set)] }, spec: podSpec });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
};

/** The user's setup function, fixed: deterministic pod names. */
export function setupFixed(mgr: Manager): void {
  controllerManagedBy(mgr).for(podSets).owns(pods).complete(reconcileFixed);
}

function simulation(name: string, setup: (mgr: Manager) => void): Simulation {
  return {
    name,
    kinds: [podSets],
    start(h) {
      const mgr = newManager(new RestClient(h.restConfig, h.restClientOptions('manager')), { clock: h.clock, logger: h.logger });
      setup(mgr);
      void mgr.start(h.signal).catch(() => undefined);
    },
    async scenario({ client, settle }) {
      await client.create(podSets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } });
      await settle();
      await client.patch(podSets, { namespace: 'default', name: 'web' }, { spec: { replicas: 5 } });
      await settle();
    },
    invariants: [childCount('podsAtMostReplicas', podSets, pods, (s) => s.spec.replicas, 'atMost')],
    eventually: [childCount('podsEqualReplicas', podSets, pods, (s) => s.spec.replicas, 'exactly')],
  };
}

/** The stale-cache bug in a Manager. */
export const managerStaleCacheBuggy = simulation('Manager: stale cache without expectations', setupBuggy);
/** Its fix. */
export const managerStaleCacheFixed = simulation('Manager: deterministic names', setupFixed);
