/**
 * A controller loop by hand, without the Controller helper: a shared informer factory and its
 * listers, a rate-limited work queue and workers. ConfigMaps labelled `app=example` get an
 * annotation listing their data keys. Runs against the cluster of KUBECONFIG (or ~/.kube/config), in
 * the context's namespace, and deletes what it created. To try it without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/informers-workqueue.ts
 */
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';
import { PatchType } from 'kubeloom/apimachinery';

const kubeconfig = await loadKubeConfig();
const clientset = newClientset(await restConfigFrom(kubeconfig));
const namespace = namespaceOf(kubeconfig);

// #region workers
import { RateLimitingQueue, runWorkers } from 'kubeloom/util/workqueue';
import { isNotFound, splitMetaNamespaceKey } from 'kubeloom';

const queue = new RateLimitingQueue<string>({ name: 'configmaps' }); // defaultControllerRateLimiter()
// #endregion

// #region informers
import { newSharedInformerFactory } from 'kubeloom/informers';
import { deletionHandlingMetaNamespaceKeyFunc, stripManagedFields } from 'kubeloom/tools/cache';

const factory = newSharedInformerFactory(clientset, { namespace, defaultResyncMs: 0, transform: stripManagedFields });
const configMapInformer = factory.coreV1().configMaps();
configMapInformer.informer().addEventHandler({
  onAdd: (cm) => queue.add(`${cm.metadata?.namespace}/${cm.metadata?.name}`),
  onUpdate: (_old, cm) => queue.add(`${cm.metadata?.namespace}/${cm.metadata?.name}`),
  onDelete: (cm) => queue.add(deletionHandlingMetaNamespaceKeyFunc(cm)), // may be a tombstone
});

const stop = new AbortController();
factory.start({ signal: stop.signal });
await factory.waitForCacheSync({ signal: stop.signal });

const lister = configMapInformer.lister();
lister.namespace(namespace).list('app=example'); // from the cache: deep-frozen objects
// lister.namespace(namespace).get('example'); // throws a NotFound StatusError when absent
// #endregion

// #region workers
async function reconcile(key: string): Promise<void> {
  const { namespace, name } = splitMetaNamespaceKey(key);
  let cm;
  try {
    cm = lister.namespace(namespace).get(name); // never modify cached objects
  } catch (err) {
    if (isNotFound(err)) return; // deleted meanwhile: nothing to do
    throw err;
  }
  if (cm.metadata?.labels?.['app'] !== 'example') return;
  const keys = Object.keys(cm.data ?? {}).sort().join(',');
  if (cm.metadata.annotations?.['example.kubeloom.dev/keys'] === keys) return; // already done
  await clientset.coreV1().configMaps(namespace).patch(name, PatchType.Merge, { metadata: { annotations: { 'example.kubeloom.dev/keys': keys } } });
}

const done = runWorkers(queue, { concurrency: 4, signal: stop.signal }, async (key) => {
  await reconcile(key); // throw → addRateLimited; success → forget
});
// #endregion

// Drive it: create a ConfigMap, wait until the workers annotated it, then stop.
// #region wait-for
import { waitFor } from 'kubeloom/tools/watch';

// #endregion

await clientset.coreV1().configMaps(namespace).create({ metadata: { name: 'example-keys', labels: { app: 'example' } }, data: { b: '2', a: '1' } });
// #region wait-for
// Over an informer that is already running: its cache first, then its changes.
const annotated = await waitFor(configMapInformer.informer(), (cm) => cm.metadata?.annotations?.['example.kubeloom.dev/keys'] === 'a,b', { timeoutMs: 30_000 });
// #endregion
console.log(`${annotated.metadata?.name}: keys ${annotated.metadata?.annotations?.['example.kubeloom.dev/keys']}`);

stop.abort();
await done; // every worker has exited
await factory.shutdown();
await clientset.coreV1().configMaps(namespace).delete('example-keys');
await clientset.close();
