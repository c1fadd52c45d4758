/**
 * kubeloom/manager: the Manager (controller-runtime pkg/manager) — shared cache and client, runnables
 * started in order, leader election with warm caches, health probes, metrics, event recorders, graceful
 * shutdown — and the controller it runs (pkg/controller).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { GracefulShutdownTimeoutError, LeaderElectionLostError, Manager, ManagerError, leaseKind, newManager } from './manager.ts';
export type { ControllerDefaults, LeaderElectionOptions, ManagerAddresses, ManagerOptions, ResolvedControllerDefaults } from './manager.ts';
export { ControllerStartError, ManagedController } from './controller.ts';
export type { ControllerOptions, ManagedControllerStats, WatchHandle } from './controller.ts';
export { RunnableGroup, groupOf } from './runnable.ts';
export type { Runnable, RunnableGroupValue } from './runnable.ts';
export { HttpServerRunnable, ServerError, parseBindAddress } from './server.ts';
export { webhookServerRunnable } from './webhook.ts';
export { informerFactoryRunnable } from './informer-factory.ts';
export type { BindAddress } from './server.ts';
export { ping, serveChecks } from './healthz.ts';
export { CacheSyncTimeoutError, cacheReadyChecker, defaultCacheSyncTimeoutMs, describeListWatchError } from './cache-sync.ts';
export { FrozenObjectError, isPanic, stackOf, withFrozenObjectHint } from './reconcile-error.ts';
export { inClusterNamespace, inClusterNamespacePath } from './in-cluster-namespace.ts';
export type { Checker } from './healthz.ts';
export { ReconcileResultLabel, newControllerMetrics, newRestClientMetrics, newRestClientRateLimiterMetrics, newRestClientRequestsCounter, noopControllerMetrics, registerExecPluginMetrics, registerProcessMetrics } from './metrics.ts';
export type { ControllerMetrics, ReconcileResultLabelValue } from './metrics.ts';
export { ManagerSharding, ShardingConfigError, shardedHandler } from './sharding.ts';
export type { ShardedOwnsWatch, ShardedWatches, ShardingOptions } from './sharding.ts';
export { exitCodeFor, setupSignalHandler } from './signals.ts';
export type { SignalHandlerOptions } from './signals.ts';
export { debugControllersPath, introspect, introspectInformers, isIntrospectableController, recentReconciles, serveIntrospection } from './introspection.ts';
export type { ControllerIntrospection, InFlightRequest, InformerIntrospection, IntrospectableController, IntrospectionSources, LastReconcileError, LeaderElectionIntrospection, ManagerIntrospection, PendingRequest, QueueIntrospection, WebhooksIntrospection } from './introspection.ts';
export { StalledWatchDetector } from './stalled-watch-detector.ts';
export type { StalledWatch, StalledWatchOptions } from './stalled-watch-detector.ts';
export { ReconcileHistory, defaultReconcileHistory } from './reconcile-record.ts';
export type { ReconcileRecord } from './reconcile-record.ts';
export { newControllerRuntimeWorkqueueMetrics } from './workqueue-metrics.ts';
export { withAuthenticationAndAuthorization } from './metrics-auth.ts';
export type { MetricsFilter, MetricsFilterProvider } from './metrics-auth.ts';
export { defaultMetricsCertDir, metricsServingKeyPair } from './metrics-server.ts';
export type { MetricsServerOptions } from './metrics-server.ts';
export type { HttpServerOptions, ServingKeyPair } from './server.ts';
