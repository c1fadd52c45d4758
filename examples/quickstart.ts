/**
 * A first program: configuration from a kubeconfig, typed CRUD, errors, patches, server-side apply
 * and a watch. Runs against the cluster of KUBECONFIG (or ~/.kube/config), in the context's
 * namespace; it writes only ConfigMaps named `example-*` and deletes them at the end. To try it
 * without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node quickstart.ts
 */
// #region quickstart
import { isNotFound, loadKubeConfig, namespaceOf, newClientset, PatchType, restConfigFrom } from 'kubeloom';

const kubeconfig = await loadKubeConfig(); // KUBECONFIG merge rules, ~/.kube/config, in-cluster
const clientset = newClientset(await restConfigFrom(kubeconfig)); // one keep-alive connection pool, QPS 5 / burst 10
const namespace = namespaceOf(kubeconfig); // the context's namespace, else 'default'
const configMaps = clientset.coreV1().configMaps(namespace); // ResourceClient<ConfigMap, ConfigMapApplyConfiguration>

await configMaps.create({ metadata: { name: 'example-a', labels: { app: 'example' } }, data: { a: '1' } });
const list = await configMaps.list({ labelSelector: 'app=example', limit: 500 });
try {
  await configMaps.get('example-missing');
} catch (err) {
  if (isNotFound(err)) console.log('example-missing: not found'); // every API error is a StatusError
}
await configMaps.patch('example-a', PatchType.Merge, { data: { b: '2' } });
await configMaps.apply(
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'example-b', namespace, labels: { app: 'example' } }, data: { c: '3' } },
  { fieldManager: 'my-controller' }, // server-side apply
);

const watch = await configMaps.watch({ resourceVersion: list.metadata?.resourceVersion, labelSelector: 'app=example' });
for await (const event of watch) {
  if (event.type === 'ERROR') throw new Error(event.object.message); // a Status, e.g. 410 Expired
  console.log(event.type, event.object.metadata?.name); // MODIFIED example-a, ADDED example-b
  if (event.object.metadata?.name === 'example-b') break; // break frees the connection
}

await configMaps.deleteCollection({}, { labelSelector: 'app=example' });
await clientset.close();
// #endregion
