/**
 * kube-controller-manager's workload controllers, started together against any API server
 * (cmd/kube-controller-manager/app/controllermanager.go: StartControllers and the controller
 * initializers). The selection follows `--controllers`: `*` enables every controller on by default,
 * `name` enables one, `-name` disables one, first match wins (genericcontrollermanager.IsControllerEnabled).
 * Names are upstream's; those kubeloom does not implement are accepted and not run, and
 * {@link startControllers} reports which ran.
 *
 * Each controller is built first (so it registers its informers and handlers), then the shared informer
 * factory starts, then every controller's workers start once its own caches synced — the order
 * kube-controller-manager follows.
 */
import { newClientset, type Clientset } from '../kubernetes/clientset.ts';
import { newSharedInformerFactory } from '../informers/factory.ts';
import { isConflict, KubeloomError } from '../apimachinery/errors.ts';
import type { RestConfig } from '../rest/config.ts';
import { newCoreEventSink } from '../tools/events/event-sink.ts';
import { EventBroadcaster } from '../tools/events/record/event.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import type { Controller } from '../controller/controller.ts';
import type { ControllerContext } from './controller-context.ts';
import { CronJobController } from './cronjob/cronjob-controller.ts';
import { DaemonSetsController } from './daemon/daemon-set-controller.ts';
import { DeploymentController } from './deployment/deployment-controller.ts';
import { DisruptionController } from './disruption/disruption-controller.ts';
import { EndpointsController } from './endpoint/endpoints-controller.ts';
import { EndpointSliceController } from './endpointslice/endpointslice-controller.ts';
import { JobController } from './job/job-controller.ts';
import { NodeLifecycleController } from './nodelifecycle/node-lifecycle-controller.ts';
import { PodGCController } from './podgc/gc-controller.ts';
import { ReplicaSetController } from './replicaset/replica-set-controller.ts';
import { ResourceQuotaController } from './resourcequota/resource-quota-controller.ts';
import { TtlAfterFinishedController } from './ttlafterfinished/ttl-after-finished-controller.ts';
import { RootCACertPublisher } from './rootcacertpublisher/publisher.ts';
import { ServiceAccountsController } from './serviceaccount/service-accounts-controller.ts';
import { StatefulSetController } from './statefulset/stateful-set-controller.ts';
import type { ControllerFeatureGates } from './feature-gates.ts';

/** Every controller name kube-controller-manager v1.24 knows (NewControllerInitializers), sorted. */
export const knownControllers: readonly string[] = [
  'attachdetach',
  'bootstrapsigner',
  'cloud-node-lifecycle',
  'clusterrole-aggregation',
  'cronjob',
  'csrapproving',
  'csrcleaner',
  'csrsigning',
  'daemonset',
  'deployment',
  'disruption',
  'endpoint',
  'endpointslice',
  'endpointslicemirroring',
  'ephemeral-volume',
  'garbagecollector',
  'horizontalpodautoscaling',
  'job',
  'namespace',
  'nodeipam',
  'nodelifecycle',
  'persistentvolume-binder',
  'persistentvolume-expander',
  'podgc',
  'pv-protection',
  'pvc-protection',
  'replicaset',
  'replicationcontroller',
  'resourcequota',
  'root-ca-cert-publisher',
  'route',
  'service',
  'serviceaccount',
  'serviceaccount-token',
  'statefulset',
  'storage-version-gc',
  'tokencleaner',
  'ttl',
  'ttl-after-finished',
];

/** Off unless named, as upstream (ControllersDisabledByDefault). */
export const controllersDisabledByDefault: readonly string[] = ['bootstrapsigner', 'tokencleaner'];

/** The controllers of this package, by upstream name. */
export const implementedControllers: readonly string[] = ['cronjob', 'daemonset', 'deployment', 'disruption', 'endpoint', 'endpointslice', 'job', 'nodelifecycle', 'podgc', 'replicaset', 'resourcequota', 'root-ca-cert-publisher', 'serviceaccount', 'statefulset', 'ttl-after-finished'];

/** A `--controllers` entry that names no known controller. */
export class UnknownControllerError extends KubeloomError {
  constructor(name: string) {
    super('ERR_UNKNOWN_CONTROLLER', `"${name}" is not in the list of known controllers`);
  }
}

/**
 * Parses a `--controllers` value (`*,-deployment`) into its entries, refusing unknown names as
 * kube-controller-manager's option validation does.
 */
export function parseControllersFlag(value: string): string[] {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const e of entries) {
    const name = e.startsWith('-') ? e.slice(1) : e;
    if (e !== '*' && !knownControllers.includes(name)) throw new UnknownControllerError(name);
  }
  return entries;
}

/** Whether `name` runs under the `--controllers` entries (IsControllerEnabled: first explicit match wins). */
export function isControllerEnabled(name: string, entries: readonly string[]): boolean {
  let star = false;
  for (const e of entries) {
    if (e === name) return true;
    if (e === `-${name}`) return false;
    if (e === '*') star = true;
  }
  return star && !controllersDisabledByDefault.includes(name);
}

/** Options of {@link startControllers}. */
export interface StartControllersOptions {
  /** `--controllers` entries (default `['*']`). */
  controllers?: readonly string[];
  /** Time source (default: the real clock). */
  clock?: Clock;
  /** Stops every controller. */
  signal?: AbortSignal;
  /**
   * Receives sync errors (default: one line on stderr per failure). Conflicts are not reported: a write
   * that lost a race is retried with the queue's backoff, as upstream does it silently.
   */
  onError?: (controller: string, error: unknown, key: string) => void;
  /**
   * Client-side limits of the clientset when it is built from a RestConfig without its own (default
   * kube-controller-manager's --kube-api-qps=20 and --kube-api-burst=30).
   */
  qps?: number;
  /** See `qps` (default 30). */
  burst?: number;
  /** Feature gates of the controllers (kube-controller-manager's --feature-gates; defaults in {@link ControllerFeatureGates}). */
  featureGates?: ControllerFeatureGates;
}

/** Controllers started by {@link startControllers}. */
export interface RunningControllers {
  /** The upstream names of the controllers running, sorted. */
  readonly names: readonly string[];
  /** True when no controller has a key queued or being synced (keys waiting for a delay do not count). */
  idle(): boolean;
  /** Stops the controllers and their informers; resolves once they stopped. */
  stop(): Promise<void>;
}

// --kube-api-qps and --kube-api-burst defaults of kube-controller-manager.
const kcmQps = 20;
const kcmBurst = 30;

// One line per failure, as utilruntime.HandleError's "sync %q failed with %v": a NotFound of an object
// deleted meanwhile (a namespace being deleted) is routine and retried, not worth a stack trace.
function defaultOnError(controller: string, error: unknown, key: string): void {
  console.error(`${controller} controller: syncing ${JSON.stringify(key)} failed: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Starts the selected controllers against the server `config` (or `client`) points at.
 *
 * @example
 * const running = startControllers(restConfigFrom(await loadKubeConfig()), { controllers: ['*', '-deployment'] });
 * // ...
 * await running.stop();
 */
export function startControllers(source: RestConfig | Clientset, options: StartControllersOptions = {}): RunningControllers {
  const clock = options.clock ?? realClock;
  const entries = options.controllers ?? ['*'];
  // As kube-controller-manager's ClientBuilder: a client of its own (its own rate limiter) for the shared
  // informers and for each controller, named in its user agent; one given clientset is shared by all.
  const clients: Clientset[] = [];
  const clientFor = (name: string): Clientset => {
    if ('restClient' in source) return source;
    const c = newClientset({
      ...source,
      qps: source.qps ?? options.qps ?? kcmQps,
      burst: source.burst ?? options.burst ?? kcmBurst,
      userAgent: `${source.userAgent ?? 'kube-controller-manager'}/${name}`,
    });
    clients.push(c);
    return c;
  };
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  const informerFactory = newSharedInformerFactory(clientFor('shared-informers'), { clock });
  const report = options.onError ?? defaultOnError;
  const onError = (controller: string, error: unknown, key: string): void => {
    if (!isConflict(error)) report(controller, error, key);
  };
  // Each controller records its events through its own broadcaster and client, as upstream's constructors do.
  const broadcasters: { broadcaster: EventBroadcaster; stopRecording: () => void }[] = [];
  const ctxFor = (name: string): ControllerContext => {
    const client = clientFor(name);
    const eventBroadcaster = new EventBroadcaster({ clock });
    broadcasters.push({ broadcaster: eventBroadcaster, stopRecording: eventBroadcaster.startRecordingToSink(newCoreEventSink((ns) => client.coreV1().events(ns))) });
    return { client, informerFactory, eventBroadcaster, clock, onError };
  };
  const builders: Record<string, () => { controller: Controller | undefined; run(o: { signal: AbortSignal }): Promise<void> }> = {
    replicaset: () => new ReplicaSetController(ctxFor('replicaset-controller')),
    cronjob: () => new CronJobController(ctxFor('cronjob-controller')),
    daemonset: () => new DaemonSetsController(ctxFor('daemon-set-controller')),
    deployment: () => new DeploymentController(ctxFor('deployment-controller')),
    disruption: () => new DisruptionController(ctxFor('disruption-controller')),
    endpoint: () => new EndpointsController(ctxFor('endpoint-controller')),
    endpointslice: () => new EndpointSliceController(ctxFor('endpointslice-controller')),
    job: () => new JobController(ctxFor('job-controller')),
    nodelifecycle: () => new NodeLifecycleController(ctxFor('node-lifecycle-controller')),
    podgc: () => new PodGCController(ctxFor('pod-garbage-collector')),
    resourcequota: () => new ResourceQuotaController(ctxFor('resourcequota-controller')),
    'root-ca-cert-publisher': () => new RootCACertPublisher(ctxFor('root-ca-cert-publisher'), { rootCA: 'restClient' in source ? '' : (source.tls?.caData ?? '') }),
    serviceaccount: () => new ServiceAccountsController(ctxFor('service-account-controller')),
    statefulset: () => new StatefulSetController(ctxFor('statefulset-controller'), { ...(options.featureGates === undefined ? {} : { featureGates: options.featureGates }) }),
    'ttl-after-finished': () => new TtlAfterFinishedController(ctxFor('ttl-after-finished-controller')),
  };
  const names = implementedControllers.filter((n) => isControllerEnabled(n, entries));
  const built = names.map((n) => builders[n]!());
  informerFactory.start({ signal });
  // A controller whose run fails (it could not start) is reported, not left as an unhandled rejection.
  const runs = built.map((c, i) => c.run({ signal }).catch((err: unknown) => report(names[i]!, err, '')));
  let stopped: Promise<void> | undefined;
  return {
    names,
    idle: () => built.every((c) => c.controller === undefined || (c.controller.stats().queueDepth === 0 && c.controller.stats().inFlight === 0)),
    stop: () =>
      (stopped ??= (async () => {
        stop.abort();
        await Promise.all(runs);
        await informerFactory.shutdown();
        for (const b of broadcasters) b.stopRecording();
        await Promise.all(broadcasters.map((b) => b.broadcaster.shutdown()));
        await Promise.all(clients.map((c) => c.close()));
      })()),
  };
}
