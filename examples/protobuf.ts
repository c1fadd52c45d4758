/**
 * Kubernetes protobuf (docs/protobuf.md): a clientset whose built-in clients and informers read
 * `application/vnd.kubernetes.protobuf`, and a derived REST client that also writes protobuf bodies,
 * over the same connections. Runs against the cluster of KUBECONFIG (or ~/.kube/config), in the
 * context's namespace; it creates a ConfigMap `protobuf-example` and deletes it at the end. To try it
 * without a cluster (the embedded server answers protobuf too):
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/protobuf.ts
 */
import { namespaceOf } from 'kubeloom/clientcmd';

// #region client
import { loadKubeConfig, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';
import { ContentTypeProtobuf, ProtobufAcceptContentTypes, RestClient } from 'kubeloom/rest';

const config = await restConfigFrom(await loadKubeConfig());
// Every built-in client and informer of this clientset reads protobuf.
const cs = newClientset({ ...config, acceptContentTypes: ProtobufAcceptContentTypes });
// Or one derived client over the same connections, also writing protobuf bodies.
const rest = new RestClient(config);
const pb = rest.withConfig({ acceptContentTypes: ProtobufAcceptContentTypes, contentType: ContentTypeProtobuf });
// #endregion

const namespace = namespaceOf(await loadKubeConfig());
// Created with a protobuf body, read back as protobuf: the objects are the same plain values as with JSON.
const written = await newClientset(pb).coreV1().configMaps(namespace).create({ metadata: { name: 'protobuf-example' }, data: { greeting: 'hello' } });
const read = await cs.coreV1().configMaps(namespace).get('protobuf-example');
if (read.data?.['greeting'] !== 'hello' || read.metadata?.uid !== written.metadata?.uid) throw new Error('the protobuf round trip lost the object');
const list = await cs.coreV1().configMaps(namespace).list();
console.log(`protobuf: created ${read.metadata?.name} (uid ${read.metadata?.uid}); ${list.items.length} ConfigMaps listed`);
await cs.coreV1().configMaps(namespace).delete('protobuf-example');
