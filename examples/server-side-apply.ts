/**
 * Patches of every type, and server-side apply with field ownership and conflicts. Runs against the
 * cluster of KUBECONFIG (or ~/.kube/config), in the context's namespace, and deletes what it created.
 * To try it without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/server-side-apply.ts
 */
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';

const kubeconfig = await loadKubeConfig();
const clientset = newClientset(await restConfigFrom(kubeconfig));
const namespace = namespaceOf(kubeconfig);
const template = { metadata: { labels: { app: 'example-web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
await clientset.appsV1().deployments(namespace).create({ metadata: { name: 'example-web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'example-web' } }, template } });

// #region patch-and-apply
// #region patches
import { isConflict, PatchType } from 'kubeloom/apimachinery';

const deployments = clientset.appsV1().deployments(namespace);
await deployments.patch('example-web', PatchType.JSON, [{ op: 'replace', path: '/spec/replicas', value: 3 }]);
await deployments.patch('example-web', PatchType.Merge, { metadata: { labels: { team: 'a' } } });
await deployments.patch('example-web', PatchType.StrategicMerge, { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'envoy' }] } } } }); // merged by name
// #endregion

// #region apply
// Server-side apply: send the fields you own; the server merges them and records the owner.
const applied = await deployments.apply(
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'example-web', namespace }, spec: { replicas: 2 } },
  { fieldManager: 'my-controller', force: true }, // force: take spec.replicas over from its previous owner
);
console.log(applied.metadata?.managedFields?.map((f) => `${f.manager}/${f.operation}`));

try {
  // Another manager setting a field my-controller owns, without force: 409 Conflict naming the owner.
  await deployments.apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'example-web', namespace }, spec: { replicas: 5 } }, { fieldManager: 'someone-else' });
} catch (err) {
  if (!isConflict(err)) throw err;
  console.log('conflict:', err instanceof Error ? err.message : err);
}

await deployments.applyStatus({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'example-web', namespace }, status: { observedGeneration: 4 } }, { fieldManager: 'my-controller' });
// #endregion
// #endregion

await deployments.delete('example-web');
await clientset.close();
