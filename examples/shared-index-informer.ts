/**
 * A SharedIndexInformer without a factory, a Lister over its cache, and a SharedInformerFactory
 * over any ListerWatcher (here the dynamic client's). Runs against the cluster of KUBECONFIG (or
 * ~/.kube/config), in the context's namespace, and deletes what it created. To try it without a
 * cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/shared-index-informer.ts
 */
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { RateLimitingQueue } from 'kubeloom/util/workqueue';

const kubeconfig = await loadKubeConfig();
const config = await restConfigFrom(kubeconfig);
const namespace = namespaceOf(kubeconfig);
const queue = new RateLimitingQueue<string>({ name: 'configmaps' });

// #region informer
import type { ConfigMap } from 'kubeloom/api/core/v1';
import { newClientset } from 'kubeloom/kubernetes';
import { deletionHandlingMetaNamespaceKeyFunc, Lister, newListWatchFromClient, SharedIndexInformer, stripManagedFields, waitForCacheSync } from 'kubeloom/tools/cache';

const cs = newClientset(config);
const informer = new SharedIndexInformer<ConfigMap>(newListWatchFromClient(cs.coreV1().configMaps(namespace)));
informer.setTransform(stripManagedFields); // applied once per object, before caching
informer.addEventHandler({
  onAdd: (cm, _isInInitialList) => queue.add(`${cm.metadata?.namespace}/${cm.metadata?.name}`),
  onUpdate: (_oldCm, cm) => queue.add(`${cm.metadata?.namespace}/${cm.metadata?.name}`),
  onDelete: (cm) => queue.add(deletionHandlingMetaNamespaceKeyFunc(cm)), // may be a tombstone
});

const stop = new AbortController();
const done = informer.run({ signal: stop.signal });
if (!(await waitForCacheSync(stop.signal, () => informer.hasSynced()))) throw new Error('not synced');

const configMaps = new Lister<ConfigMap>(informer.getIndexer(), { group: '', resource: 'configmaps' });
configMaps.namespace(namespace).list('app=web'); // cached, frozen objects
try {
  configMaps.namespace(namespace).get('example-absent'); // throws a NotFound StatusError when absent
} catch {
  // not cached
}

stop.abort();
await done; // the reflector and all handlers have stopped
// #endregion

// #region factory
import { DynamicClient } from 'kubeloom/dynamic';
import { SharedInformerFactory } from 'kubeloom/tools/cache';

const dynamic = new DynamicClient(cs.restClient); // shares the connection pool
const factory = new SharedInformerFactory({
  listerWatcherFor: (gvr, namespace) => newListWatchFromClient(dynamic.resource(gvr).namespace(namespace)),
  namespace,
  defaultResyncMs: 0,
  transform: stripManagedFields,
});
const factoryStop = new AbortController();
const cms = factory.forResource<ConfigMap>({ group: '', version: 'v1', resource: 'configmaps' });
cms.informer().addEventHandler({ onAdd: (cm) => console.log('cached', cm.metadata?.name) });
factory.start({ signal: factoryStop.signal });
console.log(await factory.waitForCacheSync({ signal: factoryStop.signal })); // Map { '/v1/configmaps' => true }
await factory.shutdown(); // stops every informer and waits
// #endregion

// #region typed-factory
// Typed accessors are forResource calls with the right type argument.
class InformerFactory extends SharedInformerFactory {
  coreV1() {
    return { configMaps: () => this.forResource<ConfigMap>({ group: '', version: 'v1', resource: 'configmaps' }) };
  }
}
const typed = new InformerFactory({ listerWatcherFor: (gvr, ns) => newListWatchFromClient(dynamic.resource(gvr).namespace(ns)) });
typed.coreV1().configMaps().lister(); // a Lister<ConfigMap>
// #endregion

queue.shutDown();
await cs.close();
