/**
 * Everything the PodSet controller process runs, on a kubeloom Manager (kubeloom/manager, after
 * controller-runtime's): the manager's shared cache holds the PodSet and Pod informers (synced on every
 * replica, so a standby takes over warm), leader election on a Lease (released on stop), the controller
 * built with the builder and run only by the leader, an events.k8s.io/v1 recorder, optionally the fake
 * kubelet, and the health signals the HTTP endpoints serve.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Pod } from '../api/core/v1.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { RestClient } from '../rest/client.ts';
import type { ResourceClient } from '../kubernetes/resource-client.ts';
import { newClientset } from '../kubernetes/clientset.ts';
import { noopLogger } from '../tools/events/logger.ts';
import type { EventBroadcaster } from '../tools/events/event-broadcaster.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';
import { kinds } from '../client/kinds.ts';
import type { Informer } from '../cache/cache.ts';
import { Manager, LeaderElectionLostError } from '../manager/manager.ts';
import { controllerManagedBy } from '../builder/builder.ts';
import { requestKey } from '../reconcile/reconcile.ts';
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
  readonly manager: Manager;
  readonly podSetInformer: Informer<PodSet>;
  readonly podInformer: Informer<Pod>;
  readonly podSetController: PodSetController;
  readonly broadcaster: EventBroadcaster;
  readonly kubelet: FakeKubelet | undefined;
  readonly identity: string;
  readonly leaseName: string;
  readonly leaseNamespace: string;
  /** Events recorded, by reason. */
  readonly eventsByReason = new Map<string, number>();
  readonly #stop = new AbortController();
  #done: Promise<void> | undefined;
  #lostLeadership = false;

  constructor(options: DemoRuntimeOptions) {
    const clock = options.clock ?? realClock;
    const rest = options.rest;
    const ns = options.namespace;
    this.identity = options.identity ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
    this.leaseName = options.leaseName ?? 'podset-controller';
    this.leaseNamespace = options.leaseNamespace;
    const onError = options.onError ?? ((error: unknown, key: string) => console.error(`podset: error reconciling ${JSON.stringify(key)}: ${error instanceof Error ? error.message : String(error)}`));
    this.manager = new Manager(rest, {
      logger: noopLogger,
      clock,
      ...(ns !== '' ? { cache: { defaultNamespaces: [ns] } } : {}),
      ...(options.registry !== undefined ? { metricsRegistry: options.registry } : {}),
      leaderElection: { id: this.leaseName, namespace: options.leaseNamespace, identity: this.identity, releaseOnCancel: true },
    });
    const clientset = newClientset(rest);
    // PodSets are a custom resource: their registration (from the CRD declared in podset.ts) plugs into the clientset.
    const podSets = (namespace: string): ResourceClient<PodSet> => clientset.forCustomResource(podSetResourceSpec, namespace);
    const pods = (namespace: string): ResourceClient<Pod> => clientset.coreV1().pods(namespace);

    const cache = this.manager.getCache();
    this.podSetInformer = cache.informerFor(podSetResourceSpec);
    this.podInformer = cache.informerFor(kinds.coreV1.pods);
    this.podInformer.addIndexers({ [controllerUidIndex]: controllerUidIndexFunc });

    this.broadcaster = this.manager.getEventBroadcaster();
    this.broadcaster.startEventWatcher((e) => this.eventsByReason.set(e.reason ?? '', (this.eventsByReason.get(e.reason ?? '') ?? 0) + 1));
    const recorder = this.manager.getEventRecorderFor('podset-controller');

    this.podSetController = new PodSetController({ podSetInformer: this.podSetInformer, podInformer: this.podInformer, pods, podSets, recorder, clock });
    const controller = controllerManagedBy(this.manager)
      .named('podset')
      .watchesRawSource(this.podSetController.source())
      .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
      .complete(async (request, { signal }) => {
        const key = requestKey(request);
        try {
          await this.podSetController.sync(key, signal);
        } catch (err) {
          try {
            onError(err, key);
          } catch {
            // A failing reporter must not lose the retry.
          }
          throw err;
        }
      });
    this.podSetController.attach(controller);
    this.kubelet = options.fakeKubelet === true ? new FakeKubelet(this.podInformer, pods, clock) : undefined;
  }

  /** Starts the manager (caches, election, controller) and the fake kubelet. Call once. */
  start(): void {
    const signal = this.#stop.signal;
    const runs = [
      this.manager.start(signal).catch((err: unknown) => {
        if (err instanceof LeaderElectionLostError) this.#lostLeadership = true;
        else throw err;
      }),
    ];
    if (this.kubelet !== undefined) runs.push(this.kubelet.run({ signal }));
    this.#done = Promise.all(runs).then(() => undefined);
  }

  /** Resolves when the manager stops: on {@link DemoRuntime.stop}, or when leadership was lost. */
  async electionEnded(): Promise<void> {
    await this.#done;
  }

  /** True if this replica led and then lost its lease without being asked to stop. */
  lostLeadership(): boolean {
    return this.#lostLeadership;
  }

  /** True while this replica leads. */
  isLeader(): boolean {
    return this.manager.isLeader();
  }

  /** Both informer caches have synced (the readiness signal). */
  ready(): boolean {
    return this.podSetInformer.hasSynced() && this.podInformer.hasSynced();
  }

  /** Leader-election health: an error when this replica leads but stopped renewing its lease. */
  health(): Error | undefined {
    return this.manager.leaderElectionHealth();
  }

  /** Stops the manager: the controller drains, then the Lease is released, the informers and the events stop. */
  async stop(): Promise<void> {
    this.#stop.abort(new Error('demo stopping'));
    await this.#done;
  }
}
