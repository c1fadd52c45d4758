/**
 * kubeloom: Kubernetes client-go for TypeScript.
 *
 * The root entry re-exports the everyday API: configuration, the typed, dynamic and metadata
 * clients, informers and listers, work queues, the Controller helper, leader election, events, and
 * apimachinery's errors, selectors and option types. Everything else (and each of these) is on its
 * own subpath mirroring client-go's packages: `kubeloom/tools/cache`, `kubeloom/rest`, ... The
 * embedded API server is on `kubeloom/testing` only, so applications do not load it.
 *
 * @example
 * import { loadKubeConfig, newClientset, restConfigFrom } from 'kubeloom';
 * const clientset = newClientset(await restConfigFrom(await loadKubeConfig()));
 *
 * @packageDocumentation
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import './node-version.ts';

export * from './apimachinery/index.ts';
export * from './util/clock/index.ts';
export { kubeloomVersion } from './version.ts';
export { UnsupportedNodeVersionError } from './node-version.ts';

// Configuration (client-go tools/clientcmd, rest).
export { inClusterConfig, loadKubeConfig, namespaceOf, restConfigFrom } from './clientcmd/index.ts';
export type { KubeConfig, LoadKubeConfigOptions, RestConfigFromOptions } from './clientcmd/index.ts';
export { RestClient } from './rest/index.ts';
export type { RestClientOptions, RestConfig } from './rest/index.ts';

// Clients (client-go kubernetes, dynamic, metadata, discovery, restmapper).
export { newClientset, ResourceClient } from './kubernetes/index.ts';
export type { Clientset, ResourceClientOptions } from './kubernetes/index.ts';
export { DynamicClient, ObjectClient } from './dynamic/index.ts';
export { MetadataClient } from './metadata/index.ts';
export { DiscoveryClient, RestMapper } from './discovery/index.ts';

// Informers, listers and caches (client-go informers, tools/cache).
export { newDynamicSharedInformerFactory, newMetadataSharedInformerFactory, newSharedInformerFactory } from './informers/index.ts';
export type { InformerFactoryOptions, TypedSharedInformerFactory } from './informers/index.ts';
export {
  deletionHandlingMetaNamespaceKeyFunc,
  isDeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  newListWatchFromClient,
  SharedIndexInformer,
  splitMetaNamespaceKey,
  stripManagedFields,
  waitForCacheSync,
} from './tools/cache/index.ts';
export type { DeletedFinalStateUnknown, Indexer, Lister, NamespaceLister, ResourceEventHandler, SharedIndexInformerOptions, Store } from './tools/cache/index.ts';

// Work queues and the controller loop (client-go util/workqueue, sample-controller patterns).
export { defaultControllerRateLimiter, RateLimitingQueue, runWorkers } from './util/workqueue/index.ts';
export type { PrometheusRegistry, RateLimiter, RateLimitingInterface, RateLimitingQueueOptions } from './util/workqueue/index.ts';
export { Controller, addFinalizer, enqueueForObject, enqueueForOwner, enqueueMapped, hasFinalizer, isBeingDeleted, removeFinalizer } from './controller/index.ts';
export type { ControllerOptions, ReconcileContext, ReconcileFunc, ReconcileResult } from './controller/index.ts';
export { retryOnConflict } from './util/retry/index.ts';

// Operators (controller-runtime): the Manager, its cache and client, the controller builder.
export { Manager, ManagedController, exitCodeFor, newManager, setupSignalHandler } from './manager/index.ts';
export type { ManagerOptions, Runnable } from './manager/index.ts';
export { controllerManagedBy } from './builder/index.ts';
export { Client, kinds } from './client/index.ts';
export type { ResourceKind } from './client/index.ts';
export { InformerCache } from './cache/index.ts';
export { TerminalError } from './reconcile/index.ts';

// Leader election and events (client-go tools/leaderelection, tools/events).
export { LeaderElector, LeaseLock } from './tools/leaderelection/index.ts';
export type { LeaderCallbacks, LeaderElectionConfig } from './tools/leaderelection/index.ts';
export { EventBroadcaster, newEventSink } from './tools/events/index.ts';
export type { EventRecorder } from './tools/events/index.ts';
