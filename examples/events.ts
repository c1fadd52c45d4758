/**
 * Recording Events about objects: the events.k8s.io recorder (tools/events), and the core/v1
 * recorder with aggregation and spam filtering (tools/record). Runs against the cluster of
 * KUBECONFIG (or ~/.kube/config), in the context's namespace: records Events about a ConfigMap it
 * creates, then deletes the ConfigMap (Events expire on their own). To try it without a cluster:
 *
 *   npx kubeloom apiserver --write-kubeconfig kubeloom.kubeconfig   # in another terminal
 *   KUBECONFIG=kubeloom.kubeconfig node examples/events.ts
 */
import { loadKubeConfig, namespaceOf, restConfigFrom } from 'kubeloom/clientcmd';
import { newClientset } from 'kubeloom/kubernetes';

const kubeconfig = await loadKubeConfig();
const clientset = newClientset(await restConfigFrom(kubeconfig));
const namespace = namespaceOf(kubeconfig);
const configMap = await clientset.coreV1().configMaps(namespace).create({ metadata: { name: 'example-events' }, data: { a: '1' } });

// #region events
import { EventBroadcaster, newEventSink } from 'kubeloom/tools/events';

const broadcaster = new EventBroadcaster();
broadcaster.startRecordingToSink(newEventSink((ns) => clientset.eventsV1().events(ns)));
const recorder = broadcaster.newRecorder('kubeloom.dev/example-controller');

// regarding, related, type, reason, action, note: repeats become a series on one Event object.
recorder.eventf(configMap, undefined, 'Normal', 'Synced', 'Sync', `Synced ${configMap.metadata?.name}`);
await broadcaster.shutdown(); // writes what was accepted, then stops
// #endregion

// #region core-events
import { newCoreEventSink, record } from 'kubeloom/tools/events';

const coreBroadcaster = new record.EventBroadcaster();
coreBroadcaster.startRecordingToSink(newCoreEventSink((ns) => clientset.coreV1().events(ns)));
const coreRecorder = coreBroadcaster.newRecorder({ component: 'example-controller' });
coreRecorder.event(configMap, 'Normal', 'Synced', `Synced ${configMap.metadata?.name}`);
await coreBroadcaster.shutdown();
// #endregion

const written = await clientset.eventsV1().events(namespace).list();
console.log(written.items.filter((e) => e.regarding?.name === 'example-events').map((e) => `${e.reason}: ${e.note}`));
await clientset.coreV1().configMaps(namespace).delete('example-events');
await clientset.close();
