// Planted bug: a status update that clobbers spec. The LegacySet kind has no status subresource, and the
// controller writes status with a merge patch of the whole object it read from its cache (controller-
// runtime's `client.Merge`, which sends the object as it is: unconditional, spec included). When the cache
// lags behind a user's change of spec.replicas, the controller writes the old spec back.
// (An update of the whole object without its resourceVersion, the first version of this bug, is refused by
// the API server for a custom resource: 422, resourceVersion must be specified. The simulated server only
// showed that once it served requests with the real handler.)
// The fix writes only status, with a merge patch.
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { childCount } from '../../src/sim/index.ts';
import { isAlreadyExists } from '../../src/apimachinery/errors.ts';
import { controllerRef, getOrUndefined, isControlledBy, legacySets, podSpec, pods } from './kinds.ts';

function reconciler(patchOnlyStatus: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const set = await getOrUndefined(client, legacySets, req);
    if (set === undefined) return;
    const owned = (await client.list(pods, { namespace: req.namespace })).filter((p) => isControlledBy(p, set));
    const names = new Set(owned.map((p) => p.metadata?.name));
    for (let i = 0; i < set.spec.replicas; i++) {
      if (names.has(`${req.name}-${i}`)) continue;
      try {
        await client.create(pods, { metadata: { name: `${req.name}-${i}`, namespace: req.namespace, ownerReferences: [controllerRef(legacySets, set)] }, spec: podSpec });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    if (set.status?.replicas === owned.length) return;
    if (patchOnlyStatus) {
      await client.patch(legacySets, set, { status: { replicas: owned.length } });
    } else {
      const { resourceVersion: _rv, managedFields: _m, ...metadata } = set.metadata ?? {};
      await client.patch(legacySets, set, { ...set, metadata, status: { replicas: owned.length } });
    }
  };
}

function simulation(name: string, patchOnlyStatus: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'legacyset', for: legacySets, owns: [pods], reconcile: reconciler(patchOnlyStatus) }],
    async scenario({ client, settle, sleep }) {
      await client.create(legacySets, { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 } });
      // On the unperturbed schedule the controller is done within the same virtual millisecond.
      await sleep(1);
      await client.patch(legacySets, { namespace: 'default', name: 'web' }, { spec: { replicas: 4 } });
      await settle();
    },
    eventually: [
      {
        name: 'userSpecKept',
        check: (view) => {
          const replicas = view.get(legacySets, { namespace: 'default', name: 'web' })?.spec.replicas;
          return replicas === 4 ? undefined : `spec.replicas is ${replicas}, the user set 4`;
        },
      },
      childCount('podsEqualReplicas', legacySets, pods, (s) => s.spec.replicas, 'exactly'),
    ],
  };
}

/** The planted bug. */
export const statusClobbersSpecBuggy = simulation('status written with a merge patch of the whole cached object', false);
/** The fixed controller. */
export const statusClobbersSpecFixed = simulation('status written with a merge patch of status only', true);
