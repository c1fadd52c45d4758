/**
 * Runs the ConfigMap mirror controller (examples/mirror-controller.ts) against the cluster of
 * KUBECONFIG (or ~/.kube/config), in the context's namespace: creates a labelled ConfigMap, waits for
 * its mirror, changes the source and waits for the mirror to follow, then cleans up. To try it
 * without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/controller.ts
 */
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';
import { isNotFound } from 'kubeloom/apimachinery';
import { mirrorLabel, runMirrorController } from './mirror-controller.ts';

const kubeconfig = await loadKubeConfig();
const clientset = newClientset(await restConfigFrom(kubeconfig));
const namespace = namespaceOf(kubeconfig);
const configMaps = clientset.coreV1().configMaps(namespace);

const stop = new AbortController();
const running = runMirrorController(clientset, { namespace, signal: stop.signal });
await configMaps.create({ metadata: { name: 'example-source', labels: { [mirrorLabel]: 'true' } }, data: { greeting: 'hello' } });

// #region wait
import { newListWatchFromClient } from 'kubeloom/tools/cache';
import { untilWithSync } from 'kubeloom/tools/watch';

// List, then watch (relisting on 410 or a closed watch) until the condition holds; objects that
// already match are found at once.
const mirrored = await untilWithSync(
  newListWatchFromClient(configMaps, { fieldSelector: 'metadata.name=example-source-mirror' }),
  (event) => event.type !== 'DELETED' && event.object.data?.['greeting'] === 'hello',
  { timeoutMs: 30_000 },
);
console.log(`mirror created: ${mirrored?.object.metadata?.name}`);
// #endregion

await configMaps.patch('example-source', 'application/merge-patch+json', { data: { greeting: 'hi' } });
await untilWithSync(
  newListWatchFromClient(configMaps, { fieldSelector: 'metadata.name=example-source-mirror' }),
  (event) => event.type !== 'DELETED' && event.object.data?.['greeting'] === 'hi',
  { timeoutMs: 30_000 },
);
console.log('mirror updated');

stop.abort();
await running;
// The garbage collector deletes the mirror through its ownerReference (kube-controller-manager, or the
// embedded server's own); delete it too for clusters without one, unless it is gone already.
await configMaps.delete('example-source');
await configMaps.delete('example-source-mirror').catch((err: unknown) => {
  if (!isNotFound(err)) throw err;
});
await clientset.close();
