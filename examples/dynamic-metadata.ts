/**
 * The dynamic client (any resource, as plain objects), the object client (any object by
 * apiVersion/kind, manifests included) and the metadata client (names, labels and owners only), and
 * informers over them. Runs against the cluster of KUBECONFIG (or ~/.kube/config), in the context's
 * namespace, and deletes what it created. To try it without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/dynamic-metadata.ts
 */
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';

const kubeconfig = await loadKubeConfig();
const clientset = newClientset(await restConfigFrom(kubeconfig));
const namespace = namespaceOf(kubeconfig);
const yamlText = `
apiVersion: v1
kind: ConfigMap
metadata: { name: example-manifest, labels: { app: example } }
data: { a: "1" }
---
apiVersion: v1
kind: Secret
metadata: { name: example-secret, labels: { app: example } }
stringData: { password: s3cret }
`;

// #region clients
import { DynamicClient, ObjectClient } from 'kubeloom/dynamic';
import { MetadataClient } from 'kubeloom/metadata';

const dynamic = new DynamicClient(clientset.restClient); // shares the connection pool
const deployments = dynamic.resource({ group: 'apps', version: 'v1', resource: 'deployments' });
const all = await deployments.list(); // all namespaces (or cluster-scoped)
const mine = await deployments.namespace(namespace).list({ labelSelector: 'app=example' }); // Unstructured objects

const objects = new ObjectClient(clientset.restClient); // any object by apiVersion/kind, via the RESTMapper
await objects.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'example-object', namespace }, data: { a: '1' } }, { fieldManager: 'me' });
const results = await objects.applyManifest(yamlText, { fieldManager: 'me', namespace });
for (const r of results) console.log(r.kind, r.name, r.error?.message ?? 'applied');

const metadata = new MetadataClient(clientset.restClient); // PartialObjectMetadata: no secret data on the wire
const secrets = await metadata.resource({ group: '', version: 'v1', resource: 'secrets' }).namespace(namespace).list();
console.log(all.items.length, mine.items.length, secrets.items.map((s) => s.metadata?.name));
// #endregion

// #region informers
import type { PartialObjectMetadata, Unstructured } from 'kubeloom/apimachinery';
import { newDynamicSharedInformerFactory, newMetadataSharedInformerFactory } from 'kubeloom/informers';

const stop = new AbortController();
const dynamicFactory = newDynamicSharedInformerFactory(clientset.restClient, { namespace });
const configMaps = dynamicFactory.forResource<Unstructured>({ group: '', version: 'v1', resource: 'configmaps' });
const metadataFactory = newMetadataSharedInformerFactory(clientset.restClient, { namespace });
const secretNames = metadataFactory.forResource<PartialObjectMetadata>({ group: '', version: 'v1', resource: 'secrets' });
configMaps.informer();
secretNames.informer();
dynamicFactory.start({ signal: stop.signal });
metadataFactory.start({ signal: stop.signal });
await dynamicFactory.waitForCacheSync({ signal: stop.signal });
await metadataFactory.waitForCacheSync({ signal: stop.signal });
console.log(configMaps.lister().list('app=example').length, secretNames.lister().list('app=example').length);
await dynamicFactory.shutdown();
await metadataFactory.shutdown();
// #endregion

await clientset.coreV1().configMaps(namespace).deleteCollection({}, { labelSelector: 'app=example' });
await clientset.coreV1().configMaps(namespace).delete('example-object');
await clientset.coreV1().secrets(namespace).delete('example-secret');
await clientset.close();
