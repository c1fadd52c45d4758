// Planted bug: a finalizer removed before the cleanup it guards. Each Bucket has an external resource (here
// a ConfigMap in namespace `external`, outside the garbage collector's reach). On deletion the controller
// first removes its finalizer, then deletes the external resource; if that delete fails (a 500, a crash),
// the Bucket is already gone and nothing will ever retry: the external resource leaks.
// The fix cleans up first and removes the finalizer last.
import { isNotFound } from '../../src/apimachinery/errors.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import type { SimClient, Simulation } from '../../src/sim/index.ts';
import { kinds } from '../../src/client/kinds.ts';
import { buckets, configMaps, getOrUndefined } from './kinds.ts';

const namespaces = kinds.coreV1.namespaces;

const finalizer = 'sim.kubeloom.dev/external';

async function deleteExternal(client: SimClient, name: string): Promise<void> {
  try {
    await client.delete(configMaps, { namespace: 'external', name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

function reconciler(cleanupFirst: boolean): ReconcileFunc<SimClient> {
  return async (req, { client }) => {
    const bucket = await getOrUndefined(client, buckets, req);
    if (bucket === undefined) return;
    const external = `${req.namespace}.${req.name}`;
    const finalizers = bucket.metadata?.finalizers ?? [];
    if (bucket.metadata?.deletionTimestamp !== undefined) {
      if (!finalizers.includes(finalizer)) return;
      const rest = finalizers.filter((f) => f !== finalizer);
      if (cleanupFirst) {
        await deleteExternal(client, external);
        await client.patch(buckets, bucket, { metadata: { finalizers: rest, resourceVersion: bucket.metadata.resourceVersion } });
      } else {
        await client.patch(buckets, bucket, { metadata: { finalizers: rest, resourceVersion: bucket.metadata.resourceVersion } });
        await deleteExternal(client, external);
      }
      return;
    }
    if (!finalizers.includes(finalizer)) {
      await client.patch(buckets, bucket, { metadata: { finalizers: [...finalizers, finalizer], resourceVersion: bucket.metadata?.resourceVersion } });
      return;
    }
    const existing = await getOrUndefined(client, configMaps, { namespace: 'external', name: external });
    if (existing === undefined) await client.create(configMaps, { metadata: { name: external, namespace: 'external' }, data: { bucket: req.name } });
  };
}

function simulation(name: string, cleanupFirst: boolean): Simulation {
  return {
    name,
    controllers: [{ name: 'bucket', for: buckets, watches: [{ kind: configMaps, map: () => [] }], reconcile: reconciler(cleanupFirst) }],
    async scenario({ client, settle }) {
      // The API server refuses objects in a namespace that does not exist (NamespaceLifecycle).
      await client.create(namespaces, { metadata: { name: 'external' } });
      for (const n of ['a', 'b']) await client.create(buckets, { metadata: { name: n, namespace: 'default' } });
      await settle();
      for (const n of ['a', 'b']) await client.delete(buckets, { namespace: 'default', name: n });
      await settle();
    },
    eventually: [
      {
        name: 'noLeakedExternalResource',
        check: (view) => {
          const leaked = view.list(configMaps, 'external').filter((c) => view.get(buckets, { namespace: 'default', name: c.data?.bucket ?? '' }) === undefined);
          return leaked.length === 0 ? undefined : `external resources of deleted buckets leaked: ${leaked.map((c) => c.metadata?.name).join(', ')}`;
        },
      },
    ],
  };
}

/** The planted bug. */
export const finalizerOrderBuggy = simulation('finalizer removed before cleanup', false);
/** The fixed controller. */
export const finalizerOrderFixed = simulation('cleanup, then finalizer removal', true);
