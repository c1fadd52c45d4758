/**
 * A small controller written with the Controller helper: every ConfigMap labelled
 * `kubeloom.dev/mirror=true` gets a copy named `<name>-mirror`, owned by it (an ownerReference) and
 * kept equal to it by server-side apply. Used by examples/controller.ts (a program) and
 * examples/controller.test.ts (its test against the embedded API server).
 */
import type { Clientset } from 'kubeloom/kubernetes';
import { newSharedInformerFactory } from 'kubeloom/informers';
import { splitMetaNamespaceKey } from 'kubeloom/tools/cache';
// #region controller
import { Controller, enqueueForObject, enqueueForOwner } from 'kubeloom/controller';
// #endregion

/** The label that asks for a mirror. */
export const mirrorLabel = 'kubeloom.dev/mirror';

/** Starts the informers and the controller; resolves once `signal` aborted and everything stopped. */
export async function runMirrorController(clientset: Clientset, options: { namespace: string; signal: AbortSignal }): Promise<void> {
  const { namespace, signal } = options;
  const factory = newSharedInformerFactory(clientset, { namespace });
  const configMaps = factory.coreV1().configMaps();

  // #region controller
  // The Controller helper: informers feed keys into a rate-limited queue, workers reconcile them.
  const controller = new Controller({
    name: 'configmap-mirror', // queue name and metrics label
    informers: [configMaps.informer()], // workers start once all have synced
    workers: 2,
    reconcile: async (key, { signal }) => {
      const source = configMaps.informer().getIndexer().getByKey(key); // from the cache
      if (source === undefined || source.metadata?.labels?.[mirrorLabel] !== 'true') return; // deleted or not ours
      const { namespace, name } = splitMetaNamespaceKey(key);
      await clientset.coreV1().configMaps(namespace).apply(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: `${name}-mirror`,
            namespace,
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: source.metadata?.uid ?? '', controller: true }],
          },
          data: source.data ?? {},
        },
        { fieldManager: 'configmap-mirror', force: true, signal },
      );
      // return { requeueAfterMs: 30_000 } to look again later; throw to retry with backoff
    },
  });
  // Sources enqueue themselves; a mirror changed or deleted by someone else enqueues its owner.
  configMaps.informer().addEventHandler(enqueueForObject(controller));
  configMaps.informer().addEventHandler(enqueueForOwner(controller, { ownerKind: 'ConfigMap', group: '' }));
  factory.start({ signal });
  await controller.run({ signal }); // resolves after the signal aborted and in-flight work drained
  // #endregion
  await factory.shutdown();
}
