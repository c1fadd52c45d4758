/**
 * The Manager (controller-runtime pkg/manager: manager.go, internal.go, runnable_group.go): one process
 * owning a shared cache, a client, leader election, health probes, metrics, event recorders and the
 * runnables (controllers, webhook servers, anything else), started in a fixed order and stopped in
 * reverse. It knows nothing of reconcilers: controllers are runnables like any other.
 *
 * Start order: HTTP servers (metrics, probes) → webhooks → caches (synced before going on) → runnables
 * that do not need leadership → leader election, then the runnables that need it. Caches start before
 * leadership is won (warm replicas): a replica that takes over has its informers synced and does not
 * LIST again. A lost lease stops the manager at once with {@link LeaderElectionLostError}. Stopping (the
 * signal given to `start`) stops intake, aborts in-flight reconciles' signal at once (as upstream) and
 * gives runnables `gracefulShutdownTimeoutMs` to return, after which `start` rejects with
 * {@link GracefulShutdownTimeoutError}. Pending read-your-writes waits end at once too.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { Lease } from '../api/coordination/v1.ts';
import type { Event } from '../api/events/v1.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { InformerCache, type CacheOptions } from '../cache/cache.ts';
import { Client, type ClientOptions } from '../client/client.ts';
import { kinds, type ResourceKind } from '../client/kinds.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { defaultUserAgent, RestClient } from '../rest/client.ts';
import { managerUserAgent, rbacLearnFile } from '../rbac/learn-mode.ts';
import type { RestConfig } from '../rest/config.ts';
import { EventBroadcaster } from '../tools/events/event-broadcaster.ts';
import { newEventSink } from '../tools/events/event-sink.ts';
import type { EventRecorder } from '../tools/events/interfaces.ts';
import type { LogFields, Logger } from '../tools/events/logger.ts';
import { HealthzAdaptor } from '../tools/leaderelection/healthz.ts';
import { LeaderElector } from '../tools/leaderelection/leader-election.ts';
import { newPrometheusLeaderMetricsProvider } from '../tools/leaderelection/prometheus-metrics.ts';
import { LeaseLock } from '../tools/leaderelection/resourcelock/lease-lock.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { MetricsProvider } from '../util/workqueue/metrics.ts';
import { newControllerRuntimeWorkqueueMetrics } from './workqueue-metrics.ts';
import { ping, serveChecks, type Checker } from './healthz.ts';
import { newControllerMetrics, newRestClientMetrics, newRestClientRateLimiterMetrics, noopControllerMetrics, registerExecPluginMetrics, registerProcessMetrics, type ControllerMetrics } from './metrics.ts';
import { groupOf, RunnableGroup, type Runnable, type RunnableGroupValue } from './runnable.ts';
import { HttpServerRunnable } from './server.ts';
import { metricsServingKeyPair, type MetricsServerOptions } from './metrics-server.ts';
import { WebhookServer } from '../webhook/server.ts';
import { webhookServerRunnable } from './webhook.ts';
import { ManagerSharding, type ShardingOptions } from './sharding.ts';
import { inClusterNamespace } from './in-cluster-namespace.ts';
import { informerFactoryRunnable } from './informer-factory.ts';
import { SharedInformerFactory } from '../tools/cache/shared-informer-factory.ts';
import { cacheReadyChecker, CacheSyncTimeoutError, defaultCacheSyncTimeoutMs, logListWatchError } from './cache-sync.ts';
import { introspect, serveIntrospection, type IntrospectionSources, type ManagerIntrospection } from './introspection.ts';
import { StalledWatchDetector, type StalledWatchOptions } from './stalled-watch-detector.ts';
import { serveDashboard } from '../dashboard/serve.ts';

/** Leader election settings (manager.Options' LeaderElection* fields). */
export interface LeaderElectionOptions {
  /** Name of the Lease (LeaderElectionID); required. */
  id: string;
  /**
   * Namespace of the Lease (LeaderElectionNamespace). Default: the pod's namespace, read from
   * `inClusterNamespacePath`, as upstream; `default` out of cluster (upstream fails there).
   */
  namespace?: string;
  /** Where the pod's namespace is read from. Default `/var/run/secrets/kubernetes.io/serviceaccount/namespace`. */
  inClusterNamespacePath?: string;
  /** LeaseDuration. Default 15,000 ms. */
  leaseDurationMs?: number;
  /** RenewDeadline. Default 10,000 ms. */
  renewDeadlineMs?: number;
  /** RetryPeriod. Default 2,000 ms. */
  retryPeriodMs?: number;
  /**
   * Release the Lease when the manager stops (LeaderElectionReleaseOnCancel), so the next replica takes
   * over at once. Default false, as upstream; safe only if the program exits after `start` returns.
   */
  releaseOnCancel?: boolean;
  /** This replica's identity in the Lease. Default `<hostname>_<uuid>`, as upstream. */
  identity?: string;
  /** Labels set on the Lease (LeaderElectionLabels). */
  labels?: Record<string, string>;
  /**
   * Watch the Lease while waiting for it and take over the moment it expires by this replica's clock
   * (LeaderElector `watchLock`), instead of on the next jittered retry tick: failover after a crash in
   * about one lease duration instead of up to lease duration + 2 × 2.2 retry periods. Same expiry rule as
   * upstream; needs `watch` on leases (kubebuilder's leader-election Role grants it; without it the
   * elector polls as upstream). Default true, unlike controller-runtime (see docs/leaderelection.md).
   */
  watchLease?: boolean;
}

/** Options of {@link newManager} (manager.Options). Servers are off unless given an address. */
export interface ManagerOptions {
  /** The shared cache's options (manager.Options.Cache). */
  cache?: Omit<CacheOptions, 'rest' | 'clock' | 'onRequest'>;
  /** The client's options (manager.Options.Client). */
  client?: Pick<ClientOptions, 'uncachedKinds' | 'readYourWritesTimeoutMs' | 'fieldOwner'>;
  /** Leader election; off when unset (manager.Options.LeaderElection false). */
  leaderElection?: LeaderElectionOptions;
  /** `host:port` of the metrics server (Metrics.BindAddress); off when unset or '0'. */
  metricsBindAddress?: string;
  /** HTTPS and request filtering of the metrics server (Metrics: SecureServing, CertDir, FilterProvider). */
  metricsServer?: MetricsServerOptions;
  /** `host:port` of the health probe server (HealthProbeBindAddress); off when unset or '0'. */
  healthProbeBindAddress?: string;
  /** Readiness path (ReadinessEndpointName). Default '/readyz'. */
  readinessEndpointName?: string;
  /** Liveness path (LivenessEndpointName). Default '/healthz'. */
  livenessEndpointName?: string;
  /**
   * The prom-client registry metrics go to (metrics.Registry). Default: a new Registry when
   * `metricsBindAddress` is set, none otherwise (nothing recorded, prom-client not loaded).
   */
  metricsRegistry?: PrometheusRegistry;
  /**
   * Whether the metrics registry also gets the process and runtime metrics (`process_cpu_seconds_total`,
   * `process_resident_memory_bytes`, `process_open_fds`, `process_start_time_seconds`, `nodejs_*`):
   * controller-runtime's registry registers client_golang's process and Go collectors
   * (pkg/metrics/registry.go). Default true; skipped when the registry already has them.
   */
  processMetrics?: boolean;
  /** How long runnables get to stop (GracefulShutdownTimeout). Default 30,000 ms; 0 stops waiting at once. */
  gracefulShutdownTimeoutMs?: number;
  /** Defaults for every controller (manager.Options.Controller). */
  controller?: ControllerDefaults;
  /**
   * Called after every request of the client and the cache (besides `rest_client_requests_total`);
   * `verb` is 'list' or 'watch' for the informers' requests.
   */
  onRequest?: (method: string, code: string, verb?: 'list' | 'watch') => void;
  /**
   * The webhook server (manager.Options.WebhookServer). Default: created by the first
   * {@link Manager.getWebhookServer} call, listening on port 9443 with certificates from
   * `<tmpdir>/k8s-webhook-server/serving-certs` (webhook.NewServer's defaults). Either way it is
   * started only once `getWebhookServer()` was called (the webhook builder calls it), as upstream.
   */
  webhookServer?: WebhookServer;
  /** Where the manager and its controllers log. Default: info and errors to stderr. */
  logger?: Logger;
  /** Time source. Default: the real clock. */
  clock?: Clock;
  /**
   * A shard ring shared by this manager's controllers (kubeloom; see docs/sharding.md): every controller
   * the builder makes is then sharded (unless `withOptions({ sharded: false })`) and runs without leader
   * election; the ring's Lease is this replica's membership. Off when unset.
   */
  sharding?: ShardingOptions;
  /**
   * Serve `/debug/controllers` (informers, queues, controllers, leader election, webhooks; see
   * docs/observability.md) on the probe and metrics servers (kubeloom). Default false.
   */
  introspection?: boolean;
  /**
   * The stalled-watch detector (kubeloom): an informer silent for longer than its watch timeout plus a
   * margin is counted, logged and relisted. On by default; false turns it off, `{ relist: false }` only reports.
   */
  stalledWatchDetection?: StalledWatchOptions | false;
  /**
   * `host:port` of the dev-mode dashboard (kubeloom): a web page with the cluster's objects and events, the
   * controllers' informers and queues and a reconcile timeline, plus `/debug/controllers`. Off when unset.
   */
  dashboardBindAddress?: string;
}

/** Defaults of every controller of a manager (config.Controller). */
export interface ControllerDefaults {
  /** MaxConcurrentReconciles. Default 1. */
  maxConcurrentReconciles?: number;
  /**
   * CacheSyncTimeout. Default 120,000 ms. Also bounds the Manager's own wait for its cache at start:
   * past it `start()` rejects with {@link CacheSyncTimeoutError} naming the unsynced kinds and the cause.
   */
  cacheSyncTimeoutMs?: number;
  /** RecoverPanic. Default true. */
  recoverPanic?: boolean;
  /** NeedLeaderElection. Default true. */
  needLeaderElection?: boolean;
  /** SkipNameValidation: allow two controllers with one name. Default false. */
  skipNameValidation?: boolean;
  /** UsePriorityQueue. Default true. */
  usePriorityQueue?: boolean;
  /** ReconciliationTimeout. Default none. */
  reconcileTimeoutMs?: number;
}

/** {@link ControllerDefaults} with what the manager adds for its controllers. */
export interface ResolvedControllerDefaults extends ControllerDefaults {
  /** The manager's graceful shutdown period: how long it waits for runnables to return after stop. */
  gracefulShutdownTimeoutMs: number;
  /** The manager's time source. */
  clock: Clock;
}

/** Where the manager's servers listen (`host:port`), once listening. */
export interface ManagerAddresses {
  /** The metrics server. */
  metrics?: string;
  /** The health probe server. */
  healthProbe?: string;
  /** The dev-mode dashboard. */
  dashboard?: string;
}

/** The manager was started twice, or a runnable was added after it stopped. */
export class ManagerError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_MANAGER', message, options);
  }
}

/** This replica lost its Lease; the manager stopped at once (upstream's "leader election lost"). */
export class LeaderElectionLostError extends KubeloomError {
  constructor() {
    super('ERR_LEADER_ELECTION_LOST', 'leader election lost');
  }
}

/** Runnables did not stop within the graceful shutdown period. */
export class GracefulShutdownTimeoutError extends KubeloomError {
  constructor(ms: number) {
    super('ERR_GRACEFUL_SHUTDOWN_TIMEOUT', `failed waiting for all runnables to end within grace period of ${ms / 1000}s: context deadline exceeded`);
  }
}

// Error values print as their message: one line each, as klog prints err.Error(). A stack is logged
// only where it is the point (a reconcile failure's `stacktrace` field).
function oneLine(fields: LogFields | undefined): LogFields | '' {
  if (fields === undefined) return '';
  const out: LogFields = {};
  for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? v.message : v;
  return out;
}

const stderrLogger: Logger = {
  debug() {},
  info: (m, f) => console.error(m, oneLine(f)),
  error: (m, f) => console.error(m, oneLine(f)),
};

interface Running {
  readonly runnable: Runnable;
  readonly stop: AbortController;
  done: Promise<void> | undefined;
}

/**
 * The manager (manager.Manager).
 *
 * @example
 * const mgr = newManager(restConfig, { healthProbeBindAddress: ':8081', metricsBindAddress: ':8080', leaderElection: { id: 'cronjob-operator' } });
 * controllerManagedBy(mgr).for(cronJobs).owns(kinds.batchV1.jobs).complete(reconcile);
 * await mgr.start(setupSignalHandler());
 */
export class Manager {
  /** The REST client everything shares. */
  readonly rest: RestClient;
  readonly #options: ManagerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #cache: InformerCache;
  readonly #client: Client;
  readonly #groups = new Map<RunnableGroupValue, Running[]>(Object.values(RunnableGroup).map((g) => [g, []]));
  readonly #healthz = new Map<string, Checker>();
  readonly #readyz = new Map<string, Checker>();
  readonly #controllerNames = new Set<string>();
  readonly #broadcaster: EventBroadcaster;
  readonly #registry: PrometheusRegistry | undefined;
  #controllerMetrics: ControllerMetrics | undefined;
  #queueMetrics: MetricsProvider | undefined;
  #metricsServer: HttpServerRunnable | undefined;
  #probeServer: HttpServerRunnable | undefined;
  #elector: LeaderElector | undefined;
  #webhookServer: WebhookServer | undefined;
  #elected!: () => void;
  readonly #electedPromise: Promise<void>;
  #leaderRunnablesStarted = false;
  #started = false;
  #stopping = false;
  #fail: ((err: unknown) => void) | undefined;
  // Aborted when stopping begins: ends the client's pending read-your-writes waits, so stop never waits on one.
  readonly #stopWaits = new AbortController();
  // Started runnables end their start() before the manager learns of it: their errors stop it.
  readonly #watchDog: HealthzAdaptor | undefined;
  readonly #sharding: ManagerSharding | undefined;
  readonly #detector: StalledWatchDetector | undefined;
  #dashboardServer: HttpServerRunnable | undefined;

  constructor(rest: RestClient, options: ManagerOptions = {}) {
    // Under `kubeloom rbac learn` the manager's requests carry a User-Agent mark (docs/rbac.md).
    if (rbacLearnFile() !== undefined) rest = rest.withConfig({ userAgent: managerUserAgent(rest.config.userAgent ?? defaultUserAgent) });
    this.rest = rest;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? stderrLogger;
    this.#electedPromise = new Promise((r) => (this.#elected = r));
    const metricsOn = options.metricsBindAddress !== undefined && options.metricsBindAddress !== '0';
    this.#registry = options.metricsRegistry ?? (metricsOn ? (new (promClient().Registry)() as unknown as PrometheusRegistry) : undefined);
    // client-go's request metrics count every HTTP attempt of the shared REST client (kubeloom observes
    // at that layer: client, cache, leader election and the event sink all go through it).
    // Clients derived from it with withConfig (discovery, per-clientset limiters) report to the same observers.
    if (this.#registry !== undefined) {
      rest.observeRequests(newRestClientMetrics(this.#registry));
      rest.observeRateLimiter(newRestClientRateLimiterMetrics(this.#registry));
      registerExecPluginMetrics(this.#registry, this.#clock);
      if (options.processMetrics !== false) registerProcessMetrics(this.#registry);
    }
    const onRequest = options.onRequest;
    this.#cache = new InformerCache({
      ...options.cache,
      rest,
      clock: this.#clock,
      ...(onRequest !== undefined ? { onRequest } : {}),
      onListWatchError: (kind, description, err) => logListWatchError(this.#logger, kind, description, err),
    });
    this.#client = new Client({ ...options.client, rest, cache: this.#cache, clock: this.#clock, stopSignal: this.#stopWaits.signal, ...(onRequest !== undefined ? { onRequest } : {}) });
    this.#broadcaster = new EventBroadcaster({ clock: this.#clock, logger: this.#logger });
    // The cache is a runnable of the caches group; the manager waits for it to sync.
    this.add({
      runnableGroup: RunnableGroup.Caches,
      start: (signal) => this.#cache.start(signal),
      waitReady: (signal) => this.#cache.waitForCacheSync(signal),
    });
    // The shard ring runs beside the cache: started before the controllers, stopped after their drains.
    if (options.sharding !== undefined) {
      this.#sharding = new ManagerSharding(options.sharding, { rest, cache: this.#cache, clock: this.#clock, logger: this.#logger });
      this.add(this.#sharding.runnable());
    }
    if (options.stalledWatchDetection !== false) {
      this.#detector = new StalledWatchDetector(this.#cache, { ...options.stalledWatchDetection, clock: this.#clock, logger: this.#logger, registry: this.#registry });
      this.add(this.#detector);
    }
    if (options.dashboardBindAddress !== undefined && options.dashboardBindAddress !== '0') {
      this.#dashboardServer = new HttpServerRunnable('dashboard', options.dashboardBindAddress, async (req, res) => {
        if (serveIntrospection(req, res, this.introspectionSources())) return;
        await serveDashboard(req, res, { rest, mode: 'manager' });
      });
      this.add(this.#dashboardServer);
    }
    if (options.leaderElection !== undefined) this.#watchDog = new HealthzAdaptor({ maxTolerableExpiredLeaseMs: 20_000 });
    if (options.healthProbeBindAddress !== undefined && options.healthProbeBindAddress !== '0') {
      const live = options.livenessEndpointName ?? '/healthz';
      const ready = options.readinessEndpointName ?? '/readyz';
      this.#probeServer = new HttpServerRunnable('health probe', options.healthProbeBindAddress, async (req, res) => {
        if (options.introspection === true && serveIntrospection(req, res, this.introspectionSources())) return;
        if (await serveChecks(live, this.#healthz, req, res)) return;
        if (await serveChecks(ready, this.#readyz, req, res)) return;
        res.statusCode = 404;
        res.end('404 page not found\n');
      });
      this.add(this.#probeServer);
    }
    if (metricsOn) {
      const registry = this.#registry!;
      const serverOptions = options.metricsServer ?? {};
      const filter = serverOptions.filterProvider?.(rest, { clock: this.#clock });
      const tls = serverOptions.secureServing === true ? { tls: () => metricsServingKeyPair(serverOptions, this.#clock) } : {};
      this.#metricsServer = new HttpServerRunnable('metrics', options.metricsBindAddress!, async (req: IncomingMessage, res: ServerResponse) => {
        if (filter !== undefined && !(await filter(req, res))) return;
        if (options.introspection === true && serveIntrospection(req, res, this.introspectionSources())) return;
        if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/metrics') {
          res.statusCode = 404;
          res.end('404 page not found\n');
          return;
        }
        const text = await registry.metrics();
        res.setHeader('content-type', registry.contentType);
        res.end(text);
      }, tls);
      this.add(this.#metricsServer);
    }
  }

  /** The shared cache (mgr.GetCache()). */
  getCache(): InformerCache {
    return this.#cache;
  }

  /** The client: cached reads with read-your-writes, writes to the server (mgr.GetClient()). */
  getClient(): Client {
    return this.#client;
  }

  /** A client reading straight from the server (mgr.GetAPIReader()). */
  getAPIReader(): Client {
    return this.#client.uncached();
  }

  /** Indexes a kind's cached objects by field, for `list` field selectors (mgr.GetFieldIndexer().IndexField). */
  indexField<T extends KubeObject>(kind: ResourceKind<T, unknown>, field: string, extract: (obj: T) => readonly string[]): void {
    this.#cache.indexField(kind, field, extract);
  }

  /** The shard ring and sharded controllers of the `sharding` option, if set. */
  getSharding(): ManagerSharding | undefined {
    return this.#sharding;
  }

  /** Where the manager logs (mgr.GetLogger()). */
  getLogger(): Logger {
    return this.#logger;
  }

  /** The metrics registry, when metrics are recorded. */
  getMetricsRegistry(): PrometheusRegistry | undefined {
    return this.#registry;
  }

  /** Controller metrics in the manager's registry (a no-op without one). */
  controllerMetrics(): ControllerMetrics {
    if (this.#registry === undefined) return noopControllerMetrics;
    this.#controllerMetrics ??= newControllerMetrics(this.#registry);
    return this.#controllerMetrics;
  }

  /**
   * Workqueue metrics provider in the manager's registry, if any: controller-runtime's names and labels
   * (`name`, `controller`, and `priority` on `workqueue_depth`).
   */
  queueMetricsProvider(): MetricsProvider | undefined {
    if (this.#registry === undefined) return undefined;
    this.#queueMetrics ??= newControllerRuntimeWorkqueueMetrics(this.#registry);
    return this.#queueMetrics;
  }

  /** The options controllers default to. */
  controllerDefaults(): ResolvedControllerDefaults {
    return { ...this.#options.controller, gracefulShutdownTimeoutMs: this.#options.gracefulShutdownTimeoutMs ?? 30_000, clock: this.#clock };
  }

  /**
   * Reserves a controller name; throws {@link ManagerError} if taken (controller name validation),
   * unless skipNameValidation.
   */
  registerControllerName(name: string, skipNameValidation = false): void {
    if (!/^[a-z0-9]([-a-z0-9._]*[a-z0-9])?$/i.test(name)) throw new ManagerError(`controller name ${JSON.stringify(name)} is not a valid name (letters, digits, '-', '_' and '.')`);
    if (this.#controllerNames.has(name) && !(skipNameValidation || this.#options.controller?.skipNameValidation === true)) {
      throw new ManagerError(`controller with name ${name} already exists. Controller names must be unique to avoid multiple controllers reporting to the same metric`);
    }
    this.#controllerNames.add(name);
  }

  /** An events.k8s.io/v1 recorder reporting as `name` (mgr.GetEventRecorderFor). */
  getEventRecorderFor(name: string): EventRecorder {
    return this.#broadcaster.newRecorder(name);
  }

  /** The events broadcaster behind every recorder (for watchers and `pending()`). */
  getEventBroadcaster(): EventBroadcaster {
    return this.#broadcaster;
  }

  /** True while this replica holds the Lease (always false without leader election). */
  isLeader(): boolean {
    return this.#elector?.isLeader() ?? false;
  }

  /** The leader election health check's verdict: an error when this replica leads but stopped renewing. */
  leaderElectionHealth(): Error | undefined {
    return this.#watchDog?.check();
  }

  /** Adds a liveness check served at `/healthz` and `/healthz/<name>` (mgr.AddHealthzCheck). */
  addHealthzCheck(name: string, check: Checker): void {
    this.#healthz.set(name, check);
  }

  /** Adds a readiness check served at `/readyz` and `/readyz/<name>` (mgr.AddReadyzCheck). */
  addReadyzCheck(name: string, check: Checker): void {
    this.#readyz.set(name, check);
  }

  /** A readiness check that passes once every informer of the cache synced. */
  cacheSyncedCheck(): Checker {
    return () => (this.#cache.hasSynced() ? undefined : new Error('informers not synced'));
  }

  /** Adds a webhook server (runs in the webhooks group, on every replica). */
  addWebhookServer(server: Runnable): void {
    this.add({ runnableGroup: RunnableGroup.Webhooks, start: (s) => server.start(s), ...(server.waitReady !== undefined ? { waitReady: (s: AbortSignal) => server.waitReady!(s) } : {}) });
  }

  /**
   * The webhook server (mgr.GetWebhookServer): the one of the `webhookServer` option, else a default
   * one made now with the manager's clock, logger and metrics registry. The first call adds it to the
   * manager, so it is started (in the webhooks group) only when something registers webhooks.
   *
   * @example
   * mgr.addReadyzCheck('webhook', mgr.getWebhookServer().startedChecker());
   */
  getWebhookServer(): WebhookServer {
    if (this.#webhookServer === undefined) {
      this.#webhookServer =
        this.#options.webhookServer ??
        new WebhookServer({ clock: this.#clock, logger: this.#logger, ...(this.#registry !== undefined ? { metrics: this.#registry } : {}) });
      this.add(webhookServerRunnable(this.#webhookServer));
    }
    return this.#webhookServer;
  }

  /**
   * Adds a runnable (mgr.Add). Before start it waits for its group; after start it is started at once
   * if its group already runs. A {@link SharedInformerFactory} of your own runs in the caches group:
   * started with the manager's cache, synced before controllers start, shut down on stop.
   */
  add(runnable: Runnable): void;
  add(factory: SharedInformerFactory): void;
  add(runnableOrFactory: Runnable | SharedInformerFactory): void {
    const runnable = runnableOrFactory instanceof SharedInformerFactory ? informerFactoryRunnable(runnableOrFactory) : runnableOrFactory;
    if (this.#stopping) throw new ManagerError('can not add a runnable to a stopping manager');
    const group = groupOf(runnable);
    const entry: Running = { runnable, stop: new AbortController(), done: undefined };
    this.#groups.get(group)!.push(entry);
    if (this.#started && (group !== RunnableGroup.LeaderElection || this.#leaderRunnablesStarted)) this.#run(entry);
  }

  /** Resolves once this replica leads, or at start when leader election is off (mgr.Elected()). */
  elected(): Promise<void> {
    return this.#electedPromise;
  }

  /** What `/debug/controllers` is built from (kubeloom; for the dashboard and tests). */
  introspectionSources(): IntrospectionSources {
    return {
      clock: this.#clock,
      cache: this.#cache,
      runnables: () => [...this.#groups.values()].flatMap((g) => g.map((e) => e.runnable)),
      leaderElection: () => {
        const le = this.#options.leaderElection;
        const err = this.#watchDog?.check();
        return {
          enabled: le !== undefined,
          ...(le !== undefined ? { lease: `${le.namespace ?? 'default'}/${le.id}` } : {}),
          ...(le?.identity !== undefined ? { identity: le.identity } : {}),
          isLeader: this.isLeader(),
          healthy: err === undefined,
          ...(err !== undefined ? { error: err.message } : {}),
        };
      },
      webhooks: () => {
        const w = this.#webhookServer;
        const a = w?.address();
        return { enabled: w !== undefined, paths: w?.paths() ?? [], ...(a !== undefined ? { address: `${a.host}:${a.port}` } : {}) };
      },
      detector: this.#detector,
    };
  }

  /** The `/debug/controllers` document now (kubeloom). */
  introspect(): ManagerIntrospection {
    return introspect(this.introspectionSources());
  }

  /** The stalled-watch detector, unless turned off. */
  getStalledWatchDetector(): StalledWatchDetector | undefined {
    return this.#detector;
  }

  /** Addresses the servers listen on, once started (useful with port 0). */
  addresses(): ManagerAddresses {
    return {
      ...(this.#dashboardServer?.address() !== undefined ? { dashboard: this.#dashboardServer.address()! } : {}),
      ...(this.#metricsServer?.address() !== undefined ? { metrics: this.#metricsServer.address()! } : {}),
      ...(this.#probeServer?.address() !== undefined ? { healthProbe: this.#probeServer.address()! } : {}),
    };
  }

  #run(entry: Running): void {
    entry.done = (async () => {
      try {
        await entry.runnable.start(entry.stop.signal);
      } catch (err) {
        this.#fail?.(err);
      }
    })();
  }

  async #startGroup(group: RunnableGroupValue, stop: AbortSignal): Promise<boolean> {
    const entries = this.#groups.get(group)!;
    for (const e of entries) if (e.done === undefined) this.#run(e);
    for (const e of entries) if (e.runnable.waitReady !== undefined && !(await e.runnable.waitReady(stop))) return false;
    return !stop.aborted;
  }

  // The caches group, bounded by the cache sync timeout: a kind the server does not serve, or a server
  // that cannot be reached, fails the start with the cause instead of waiting forever.
  async #startCaches(stop: AbortSignal): Promise<boolean> {
    const timeoutMs = this.#options.controller?.cacheSyncTimeoutMs ?? defaultCacheSyncTimeoutMs;
    const timeout = new AbortController();
    const timer = this.#clock.afterFunc(timeoutMs, () => timeout.abort());
    try {
      if (await this.#startGroup(RunnableGroup.Caches, AbortSignal.any([stop, timeout.signal]))) return true;
    } finally {
      timer.stop();
    }
    if (timeout.signal.aborted && !stop.aborted) this.#fail?.(new CacheSyncTimeoutError(timeoutMs, this.#cache.syncStatus().filter((s) => !s.synced)));
    return false;
  }

  /**
   * Starts everything and runs until `signal` aborts (mgr.Start); resolves after a clean stop, rejects
   * with the first runnable error, {@link LeaderElectionLostError} or {@link GracefulShutdownTimeoutError}.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new ManagerError('manager already started');
    this.#started = true;
    // `internal` aborts on the caller's signal or on the first error; it stops the start sequence.
    const internal = new AbortController();
    let failure: unknown;
    let lost = false;
    this.#fail = (err) => {
      if (failure === undefined && !this.#stopping) failure = err;
      internal.abort(err);
    };
    const onAbort = (): void => internal.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    if (!this.#healthz.has('ping') && this.#healthz.size === 0) this.#healthz.set('ping', ping);
    if (!this.#readyz.has('informers')) this.#readyz.set('informers', cacheReadyChecker(this.#cache));
    if (this.#watchDog !== undefined && !this.#healthz.has('leaderElection')) this.#healthz.set('leaderElection', () => this.#watchDog!.check());
    this.#broadcaster.startRecordingToSink(newEventSink((ns) => new ResourceClient<Event>(this.rest, { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, namespace: ns })));
    const leaderStop = new AbortController();
    let electorDone: Promise<void> | undefined;
    try {
      for (const group of [RunnableGroup.HttpServers, RunnableGroup.Webhooks, RunnableGroup.Caches, RunnableGroup.Others]) {
        if (group === RunnableGroup.Caches) {
          if (!(await this.#startCaches(internal.signal))) break;
        } else if (!(await this.#startGroup(group, internal.signal))) break;
      }
      if (!internal.signal.aborted) {
        const le = this.#options.leaderElection;
        if (le === undefined) this.#startLeaderRunnables();
        else electorDone = this.#runElection(le, leaderStop.signal, () => {
          lost = true;
          this.#fail?.(new LeaderElectionLostError());
        });
      }
      if (!internal.signal.aborted) await new Promise<void>((r) => internal.signal.addEventListener('abort', () => r(), { once: true }));
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    // Stop: leader-election runnables, others, caches, webhooks, HTTP servers (engageStopProcedure).
    this.#stopping = true;
    this.#stopWaits.abort();
    const graceMs = lost ? 0 : (this.#options.gracefulShutdownTimeoutMs ?? 30_000);
    let timedOut = false;
    const stopAll = (async () => {
      for (const group of [RunnableGroup.LeaderElection, RunnableGroup.Others, RunnableGroup.Caches, RunnableGroup.Webhooks, RunnableGroup.HttpServers]) {
        const entries = this.#groups.get(group)!;
        for (const e of entries) e.stop.abort(internal.signal.reason);
        await Promise.all(entries.map(async (e) => e.done));
      }
    })();
    if (graceMs > 0) {
      const grace = new AbortController();
      const expired = this.#clock.sleep(graceMs, grace.signal).then(
        () => true,
        () => false,
      );
      timedOut = await Promise.race([stopAll.then(() => false), expired]);
      grace.abort();
    }
    // The lease is released only once the leader's runnables stopped (releaseOnCancel).
    leaderStop.abort();
    await electorDone;
    await this.#broadcaster.shutdown();
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a runnable's own rejection, rethrown unchanged
    if (failure !== undefined) throw failure;
    if (timedOut) throw new GracefulShutdownTimeoutError(graceMs);
  }

  #startLeaderRunnables(): void {
    if (this.#leaderRunnablesStarted) return;
    this.#leaderRunnablesStarted = true;
    for (const e of this.#groups.get(RunnableGroup.LeaderElection)!) if (e.done === undefined) this.#run(e);
    this.#elected();
  }

  async #runElection(le: LeaderElectionOptions, stop: AbortSignal, onLost: () => void): Promise<void> {
    const identity = le.identity ?? `${hostname()}_${randomUUID()}`;
    const namespace = le.namespace ?? inClusterNamespace(le.inClusterNamespacePath);
    const leases = new ResourceClient<Lease>(this.rest, { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, namespace });
    const lock = new LeaseLock({ client: leases, namespace, name: le.id, identity, ...(le.labels !== undefined ? { labels: le.labels } : {}) });
    let leading = false;
    this.#elector = new LeaderElector({
      lock,
      name: le.id,
      leaseDurationMs: le.leaseDurationMs ?? 15_000,
      renewDeadlineMs: le.renewDeadlineMs ?? 10_000,
      retryPeriodMs: le.retryPeriodMs ?? 2_000,
      releaseOnCancel: le.releaseOnCancel ?? false,
      watchLock: le.watchLease ?? true,
      clock: this.#clock,
      logger: this.#logger,
      ...(this.#watchDog !== undefined ? { watchDog: this.#watchDog } : {}),
      ...(this.#registry !== undefined ? { metricsProvider: newPrometheusLeaderMetricsProvider(this.#registry) } : {}),
      callbacks: {
        onStartedLeading: () => {
          leading = true;
          this.#logger.info('successfully acquired lease', { lease: `${namespace}/${le.id}`, identity });
          this.#startLeaderRunnables();
        },
        onStoppedLeading: () => {
          if (leading && !stop.aborted) onLost();
        },
      },
    });
    // The elector logs "attempting to acquire leader lease" itself (leaderelection.go acquire), once.
    await this.#elector.run({ signal: stop });
  }
}

/**
 * A manager over a RestConfig or a shared RestClient (manager.New).
 *
 * @example
 * const mgr = newManager({ host: server.url }, { gracefulShutdownTimeoutMs: 5_000 });
 */
export function newManager(config: RestConfig | RestClient, options: ManagerOptions = {}): Manager {
  return new Manager(config instanceof RestClient ? config : new RestClient(config), options);
}

/** The Lease kind leader election uses (for RBAC helpers and tests). */
export const leaseKind = kinds.coordinationV1.leases;
