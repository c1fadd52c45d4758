/**
 * Everything the PodSet controller process runs, wired together: shared Pod and PodSet informers,
 * the controller (only while this replica leads, through a Lease), an events.k8s.io/v1 recorder,
 * optionally the fake kubelet, and the health signals the HTTP endpoints serve.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Pod } from '../api/core/v1.ts';
import type { Event } from '../api/events/v1.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { RestClient } from '../rest/client.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { newClientset } from '../kubernetes/clientset.ts';
import { newListWatchFromClient } from '../tools/cache/listwatch.ts';
import { SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import { EventBroadcaster } from '../tools/events/event-broadcaster.ts';
import { newEventSink } from '../tools/events/event-sink.ts';
import { noopLogger } from '../tools/events/logger.ts';
import { HealthzAdaptor } from '../tools/leaderelection/healthz.ts';
import { DEFAULT_LEASE_DURATION_MS, DEFAULT_RENEW_DEADLINE_MS, DEFAULT_RETRY_PERIOD_MS, LeaderElector } from '../tools/leaderelection/leader-election.ts';
import { LeaseLock } from '../tools/leaderelection/resourcelock/lease-lock.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { FakeKubelet } from './fake-kubelet.ts';
import { controllerUidIndex, controllerUidIndexFunc, PodSetController } from './podset-controller.ts';
import { podSetResourceSpec, type PodSet } from './podset.ts';

/** Options of {@link DemoRuntime}. */
export interface DemoRuntimeOptions {
  rest: RestClient;
  /** Namespace to manage ('' = all namespaces). */
  namespace: string;
  /** Namespace of the leader-election Lease. */
  leaseNamespace: string;
  /** Name of the Lease (default 'podset-controller'). */
  leaseName?: string;
  /** This replica's identity (default hostname plus a random suffix). */
  identity?: string;
  /** prom-client registry for the controller's and queue's metrics (default: none recorded). */
  registry?: PrometheusRegistry | undefined;
  /** Mark pods Running/Ready (embedded mode only: there is no kubelet). */
  fakeKubelet?: boolean;
  /** Reconcile workers (default 5). */
  workers?: number;
  clock?: Clock;
  /** Reports reconcile errors (default: stderr). */
  onError?: (error: unknown, key: string) => void;
}

/** The PodSet controller process. */
export class DemoRuntime {
  readonly podSetInformer: SharedIndexInformer<PodSet>;
  readonly podInformer: SharedIndexInformer<Pod>;
  readonly podSetController: PodSetController;
  readonly elector: LeaderElector;
  readonly watchDog: HealthzAdaptor;
  readonly broadcaster: EventBroadcaster;
  readonly kubelet: FakeKubelet | undefined;
  readonly identity: string;
  readonly leaseName: string;
  readonly leaseNamespace: string;
  /** Events recorded, by reason. */
  readonly eventsByReason = new Map<string, number>();
  readonly #stop = new AbortController();
  // Stops the controller before the elector releases the lease (the guarded work ends first).
  readonly #controllerStop = new AbortController();
  #controllerDone: Promise<void> = Promise.resolve();
  #done: Promise<void> | undefined;
  #lostLeadership = false;
  #leading = false;

  constructor(options: DemoRuntimeOptions) {
    const clock = options.clock ?? realClock;
    const rest = options.rest;
    const ns = options.namespace;
    this.identity = options.identity ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
    this.leaseName = options.leaseName ?? 'podset-controller';
    this.leaseNamespace = options.leaseNamespace;
    const clientset = newClientset(rest);
    // PodSets are a custom resource: their registration (from the CRD declared in podset.ts) plugs into the clientset.
    const podSets = (namespace: string): ResourceClient<PodSet> => clientset.forCustomResource(podSetResourceSpec, namespace);
    const pods = (namespace: string): ResourceClient<Pod> => clientset.coreV1().pods(namespace);
    const events = (namespace: string): ResourceClient<Event> => clientset.eventsV1().events(namespace);
    const leases = clientset.coordinationV1().leases(options.leaseNamespace);

    this.podSetInformer = new SharedIndexInformer<PodSet>(newListWatchFromClient(podSets(ns)), { objectDescription: 'podsets', clock });
    this.podInformer = new SharedIndexInformer<Pod>(newListWatchFromClient(pods(ns)), { objectDescription: 'pods', clock, indexers: { [controllerUidIndex]: controllerUidIndexFunc } });

    this.broadcaster = new EventBroadcaster({ clock, logger: noopLogger });
    this.broadcaster.startRecordingToSink(newEventSink(events));
    this.broadcaster.startEventWatcher((e) => this.eventsByReason.set(e.reason ?? '', (this.eventsByReason.get(e.reason ?? '') ?? 0) + 1));
    const recorder = this.broadcaster.newRecorder('podset-controller', { reportingInstance: this.identity });

    this.podSetController = new PodSetController({
      podSetInformer: this.podSetInformer,
      podInformer: this.podInformer,
      pods,
      podSets,
      recorder,
      clock,
      metrics: options.registry,
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
      ...(options.onError !== undefined ? { onError: options.onError } : {}),
    });
    this.kubelet = options.fakeKubelet === true ? new FakeKubelet(this.podInformer, pods, clock) : undefined;

    // A leader stuck 20 s past its lease is unhealthy (kube-controller-manager's tolerance).
    this.watchDog = new HealthzAdaptor({ maxTolerableExpiredLeaseMs: 20_000 });
    this.elector = new LeaderElector({
      leaseDurationMs: DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: DEFAULT_RETRY_PERIOD_MS,
      lock: new LeaseLock({ client: leases, namespace: options.leaseNamespace, name: this.leaseName, identity: this.identity }),
      name: this.leaseName,
      watchDog: this.watchDog,
      releaseOnCancel: true,
      clock,
      logger: noopLogger,
      callbacks: {
        onStartedLeading: (signal) => {
          this.#leading = true;
          const both = AbortSignal.any([signal, this.#controllerStop.signal]);
          this.#controllerDone = this.podSetController.run({ signal: both });
        },
        onStoppedLeading: () => {
          if (this.#leading && !this.#stop.signal.aborted) this.#lostLeadership = true;
          this.#leading = false;
        },
      },
    });
  }

  /** Starts the informers, the fake kubelet and the election. Call once. */
  start(): void {
    const signal = this.#stop.signal;
    const runs = [this.podSetInformer.run({ signal }), this.podInformer.run({ signal }), this.elector.run({ signal })];
    if (this.kubelet !== undefined) runs.push(this.kubelet.run({ signal }));
    this.#done = Promise.all(runs).then(() => undefined);
  }

  /** Resolves when the election ends: on {@link DemoRuntime.stop}, or when leadership was lost. */
  async electionEnded(): Promise<void> {
    await this.#done;
  }

  /** True if this replica led and then lost its lease without being asked to stop. */
  lostLeadership(): boolean {
    return this.#lostLeadership;
  }

  /** True while this replica leads. */
  isLeader(): boolean {
    return this.elector.isLeader();
  }

  /** Both informer caches have synced (the readiness signal). */
  ready(): boolean {
    return this.podSetInformer.hasSynced() && this.podInformer.hasSynced();
  }

  /** Leader-election health: an error when this replica leads but stopped renewing its lease. */
  health(): Error | undefined {
    return this.watchDog.check();
  }

  /** Stops the controller (draining in-flight reconciles), then the election (releasing the lease), the informers and the events. */
  async stop(): Promise<void> {
    this.#controllerStop.abort(new Error('demo stopping'));
    await this.#controllerDone;
    this.#stop.abort(new Error('demo stopping'));
    await this.#done;
    await this.broadcaster.shutdown();
  }
}
