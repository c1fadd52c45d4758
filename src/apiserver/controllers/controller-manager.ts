/**
 * The background loops running inside the embedded server, started and stopped together as
 * kube-controller-manager starts its controllers (`--controllers`): the garbage collector and the
 * namespace controller by default; the scheduler and kubelet stand-ins and the workload controllers
 * (src/controllers: ReplicaSet, Deployment, …) on request. Each can be stopped and started again while
 * the server runs (a stopped loop forgets its state; a started one lists everything again, as a
 * controller's informers would).
 *
 * The garbage collector, the namespace controller and the stand-ins work on the server's registry
 * directly (loopback-client.ts). The workload controllers are kube-controller-manager's, written on
 * kubeloom's client-go layer: they reach the server as any client does, over HTTP on its own address
 * with a loopback credential made at start (as kube-apiserver's post-start hooks use a loopback client
 * config), and run unchanged against any other cluster (`kubeloom controller-manager`).
 */
import { scheduler } from 'node:timers/promises';
import { KubeloomError } from '../../apimachinery/errors.ts';
import type { RestConfig } from '../../rest/config.ts';
import { startControllers, type RunningControllers } from '../../controllers/controller-manager.ts';
import type { Clock } from '../../util/clock/clock.ts';
import type { RequestScope } from '../handlers/scope.ts';
import type { ControllerStats, ServerController } from './controller.ts';
import { EventRecorder } from './event-recorder.ts';
import { FakeKubelet, type FakeKubeletOptions } from './fake-kubelet.ts';
import { FakeScheduler } from './fake-scheduler.ts';
import { FakeVolumeBinder } from './fake-volume-binder.ts';
import { GarbageCollector } from './garbage-collector/garbage-collector.ts';
import { LoopbackClient } from './loopback-client.ts';
import { defaultNamespaceDeletionGracePeriodMs, NamespaceController } from './namespace/namespace-controller.ts';

export type { ControllerStats } from './controller.ts';

/**
 * The loops: kube-controller-manager's garbage collector and namespace controller, stand-ins for
 * kube-scheduler and kubelets, and the workload controllers (all of src/controllers, as one loop).
 */
export type ControllerName = 'garbageCollector' | 'namespace' | 'scheduler' | 'kubelet' | 'volumes' | 'workloads';

/** Every loop's name, in start order. */
export const controllerNames: readonly ControllerName[] = ['garbageCollector', 'namespace', 'scheduler', 'kubelet', 'volumes', 'workloads'];

/** Which loops run, and how (the `controllers` option of `startApiServer`). */
export interface ControllerOptions {
  /** Garbage collection by ownerReferences (default true). */
  garbageCollector?: boolean;
  /** Empties and removes namespaces being deleted (default true). Off, a deleted namespace stays Terminating. */
  namespace?: boolean;
  /** How long the namespace controller waits after a namespace event (default 5000 ms, as upstream). */
  namespaceDeletionGracePeriodMs?: number;
  /** Binds pending pods to Ready nodes, as kube-scheduler would (default false). */
  scheduler?: boolean;
  /** Registers nodes and runs the pods bound to them, as kubelets would (default false). */
  kubelet?: boolean | FakeKubeletOptions;
  /**
   * The default StorageClass `standard` and a provisioner/binder stand-in that binds PersistentVolumeClaims
   * (fake-volume-binder.ts; default false). With it, the kubelet stand-in starts a pod once its claims are Bound.
   */
  volumes?: boolean;
  /**
   * The pod events of the stand-ins: the scheduler's `Scheduled`, the kubelet's Pulling, Pulled, Created,
   * Started and Killing (default false, as many events cost memory at scale).
   */
  podEvents?: boolean;
  /**
   * kube-controller-manager's workload controllers (src/controllers; default false): true runs them all,
   * a list selects them in `--controllers` syntax (`['*', '-deployment']`, `['replicaset']`).
   */
  workloads?: boolean | readonly string[];
  /** Receives the errors a loop hits (it retries with backoff); default: printed to stderr. */
  onError?: (controller: ControllerName, error: unknown) => void;
}

/** The background loops of a running server (`server.controllers`). */
export interface ServerControllers {
  /** Whether the loop runs. */
  isRunning(name: ControllerName): boolean;
  /** Starts the loop (a no-op when it runs). */
  start(name: ControllerName): void;
  /** Stops the loop (a no-op when it does not run); resolves once its work in hand is done. */
  stop(name: ControllerName): Promise<void>;
  /**
   * Resolves once no running loop has work ready or in progress. Work waiting on the clock (the namespace
   * controller's grace period, retries, a pod's run time) does not count: with a FakeClock, step it first.
   */
  waitForIdle(options?: { signal?: AbortSignal }): Promise<void>;
  /** What the stand-ins did so far. */
  stats(): ControllerStats;
  /**
   * Stops the kubelet stand-in of one node, as a kubelet that crashed or lost its network: its Lease is no
   * longer renewed, its status no longer reported, its pods no longer synced — the node lifecycle
   * controller then marks it Unknown and taints it after node-monitor-grace-period. Throws
   * {@link UnknownKubeletNodeError} when the kubelet stand-in does not run that node.
   */
  stopKubelet(node: string): void;
  /** Resumes a node's kubelet stopped by {@link ServerControllers.stopKubelet}: Lease renewed, Ready status posted, pods re-synced. */
  resumeKubelet(node: string): void;
}

/** `stopKubelet` / `resumeKubelet` named a node the kubelet stand-in does not run (or the stand-in is off). */
export class UnknownKubeletNodeError extends KubeloomError {
  constructor(node: string) {
    super('ERR_UNKNOWN_KUBELET_NODE', `the kubelet stand-in does not run node "${node}"`);
  }
}

function printError(controller: ControllerName, error: unknown): void {
  console.error(`kubeloom apiserver: ${controller}:`, error);
}

/** Runs the enabled loops of one server. */
export class ControllerManager implements ServerControllers {
  readonly #running = new Map<ControllerName, ServerController>();
  readonly #factories: Record<ControllerName, () => ServerController>;
  readonly #enabled: Record<ControllerName, boolean>;
  readonly #stats: ControllerStats = { podsBound: 0, podsStarted: 0, podsFinished: 0 };

  /**
   * `loopback` is the client config the workload controllers reach the server with; it is read when they
   * start, so after the server listens.
   */
  constructor(scope: RequestScope, clock: Clock, options: ControllerOptions = {}, loopback?: () => RestConfig) {
    const onError = options.onError ?? printError;
    const kcm = new LoopbackClient(scope, 'kube-controller-manager');
    const kubeletOptions = typeof options.kubelet === 'object' ? options.kubelet : {};
    const stats = this.#stats;
    this.#factories = {
      garbageCollector: () => new GarbageCollector({ client: kcm, clock, recorder: new EventRecorder(kcm, clock, 'garbage-collector-controller'), onError: (e) => onError('garbageCollector', e) }),
      namespace: () =>
        new NamespaceController({ client: kcm, clock, deletionGracePeriodMs: options.namespaceDeletionGracePeriodMs ?? defaultNamespaceDeletionGracePeriodMs, onError: (e) => onError('namespace', e) }),
      scheduler: () => new FakeScheduler({ client: new LoopbackClient(scope, 'kube-scheduler'), clock, stats, events: options.podEvents === true, onError: (e) => onError('scheduler', e) }),
      kubelet: () =>
        new FakeKubelet({
          ...(options.podEvents === true ? { events: true } : {}),
          ...(options.volumes === true ? { waitForVolumes: true } : {}),
          ...kubeletOptions,
          client: new LoopbackClient(scope, 'kubelet'),
          clock,
          stats,
          onError: (e) => onError('kubelet', e),
        }),
      volumes: () => new FakeVolumeBinder({ client: new LoopbackClient(scope, 'persistent-volume-binder'), clock, onError: (e) => onError('volumes', e) }),
      workloads: () => new WorkloadControllers(loopback, clock, options.workloads, onError),
    };
    this.#enabled = {
      garbageCollector: options.garbageCollector ?? true,
      namespace: options.namespace ?? true,
      scheduler: options.scheduler ?? false,
      kubelet: options.kubelet !== undefined && options.kubelet !== false,
      volumes: options.volumes ?? false,
      workloads: options.workloads !== undefined && options.workloads !== false,
    };
  }

  /** Starts the loops the options enable. */
  startEnabled(): void {
    for (const name of controllerNames) if (this.#enabled[name]) this.start(name);
  }

  isRunning(name: ControllerName): boolean {
    return this.#running.has(name);
  }

  start(name: ControllerName): void {
    if (this.#running.has(name)) return;
    const c = this.#factories[name]();
    this.#running.set(name, c);
    c.start();
  }

  async stop(name: ControllerName): Promise<void> {
    const c = this.#running.get(name);
    if (c === undefined) return;
    this.#running.delete(name);
    await c.stop();
  }

  /** Stops every loop (server shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#running.keys()].map((n) => this.stop(n)));
  }

  async waitForIdle(options: { signal?: AbortSignal } = {}): Promise<void> {
    for (;;) {
      options.signal?.throwIfAborted();
      await scheduler.yield();
      if ([...this.#running.values()].every((c) => c.idle())) return;
    }
  }

  stats(): ControllerStats {
    return { ...this.#stats };
  }

  stopKubelet(node: string): void {
    const kubelet = this.#running.get('kubelet');
    if (!(kubelet instanceof FakeKubelet) || !kubelet.stopNode(node)) throw new UnknownKubeletNodeError(node);
  }

  resumeKubelet(node: string): void {
    const kubelet = this.#running.get('kubelet');
    if (!(kubelet instanceof FakeKubelet) || !kubelet.resumeNode(node)) throw new UnknownKubeletNodeError(node);
  }
}

/** The workload controllers of src/controllers as one loop of the server. */
class WorkloadControllers implements ServerController {
  readonly #loopback: (() => RestConfig) | undefined;
  readonly #clock: Clock;
  readonly #selection: readonly string[];
  readonly #onError: (controller: ControllerName, error: unknown) => void;
  #running: RunningControllers | undefined;

  constructor(loopback: (() => RestConfig) | undefined, clock: Clock, selection: boolean | readonly string[] | undefined, onError: (controller: ControllerName, error: unknown) => void) {
    this.#loopback = loopback;
    this.#clock = clock;
    this.#selection = Array.isArray(selection) ? selection : ['*'];
    this.#onError = onError;
  }

  start(): void {
    if (this.#loopback === undefined) throw new Error('the workload controllers need the server\'s loopback client config');
    this.#running = startControllers(this.#loopback(), {
      controllers: this.#selection,
      clock: this.#clock,
      onError: (_name, error) => this.#onError('workloads', error),
    });
  }

  async stop(): Promise<void> {
    await this.#running?.stop();
  }

  idle(): boolean {
    return this.#running?.idle() ?? true;
  }
}
