/**
 * The background loops running inside the embedded server, started and stopped together as
 * kube-controller-manager starts its controllers (`--controllers`): the garbage collector and the
 * namespace controller by default, the scheduler and kubelet stand-ins on request. Each can be stopped
 * and started again while the server runs (a stopped loop forgets its state; a started one lists
 * everything again, as a controller's informers would).
 */
import { scheduler } from 'node:timers/promises';
import type { Clock } from '../../util/clock/clock.ts';
import type { RequestScope } from '../handlers/scope.ts';
import type { ControllerStats, ServerController } from './controller.ts';
import { EventRecorder } from './event-recorder.ts';
import { FakeKubelet, type FakeKubeletOptions } from './fake-kubelet.ts';
import { FakeScheduler } from './fake-scheduler.ts';
import { GarbageCollector } from './garbage-collector/garbage-collector.ts';
import { LoopbackClient } from './loopback-client.ts';
import { defaultNamespaceDeletionGracePeriodMs, NamespaceController } from './namespace/namespace-controller.ts';

export type { ControllerStats } from './controller.ts';

/** The loops: kube-controller-manager's garbage collector and namespace controller, and stand-ins for kube-scheduler and kubelets. */
export type ControllerName = 'garbageCollector' | 'namespace' | 'scheduler' | 'kubelet';

/** Every loop's name, in start order. */
export const controllerNames: readonly ControllerName[] = ['garbageCollector', 'namespace', 'scheduler', 'kubelet'];

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

  constructor(scope: RequestScope, clock: Clock, options: ControllerOptions = {}) {
    const onError = options.onError ?? printError;
    const kcm = new LoopbackClient(scope, 'kube-controller-manager');
    const kubeletOptions = typeof options.kubelet === 'object' ? options.kubelet : {};
    const stats = this.#stats;
    this.#factories = {
      garbageCollector: () => new GarbageCollector({ client: kcm, clock, recorder: new EventRecorder(kcm, clock, 'garbage-collector-controller'), onError: (e) => onError('garbageCollector', e) }),
      namespace: () =>
        new NamespaceController({ client: kcm, clock, deletionGracePeriodMs: options.namespaceDeletionGracePeriodMs ?? defaultNamespaceDeletionGracePeriodMs, onError: (e) => onError('namespace', e) }),
      scheduler: () => new FakeScheduler({ client: new LoopbackClient(scope, 'kube-scheduler'), clock, stats, onError: (e) => onError('scheduler', e) }),
      kubelet: () => new FakeKubelet({ ...kubeletOptions, client: new LoopbackClient(scope, 'kubelet'), clock, stats, onError: (e) => onError('kubelet', e) }),
    };
    this.#enabled = {
      garbageCollector: options.garbageCollector ?? true,
      namespace: options.namespace ?? true,
      scheduler: options.scheduler ?? false,
      kubelet: options.kubelet !== undefined && options.kubelet !== false,
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
}
