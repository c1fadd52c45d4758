/**
 * What every controller of kube-controller-manager gets when it starts (ControllerContext in
 * cmd/kube-controller-manager/app/controllermanager.go): one typed clientset, one shared informer
 * factory (each controller asks it for the informers it needs; the manager starts them all once every
 * controller was built), an event broadcaster writing core/v1 Events, and the clock; and the queue and
 * workers every controller builds on them ({@link newSyncController}).
 */
import { Controller } from '../controller/controller.ts';
import type { HasSynced } from '../controller/event-handler.ts';
import type { Clientset } from '../kubernetes/clientset.ts';
import type { TypedSharedInformerFactory } from '../informers/factory.ts';
import type { EventBroadcaster, EventRecorder } from '../tools/events/record/event.ts';
import { traceReconcile } from '../tracing/reconcile-span.ts';
import type { Clock } from '../util/clock/clock.ts';

/** The shared means of the controllers of one controller manager. */
export interface ControllerContext {
  /** The API client every controller writes through. */
  readonly client: Clientset;
  /** The shared informers (started by the manager after every controller registered its handlers). */
  readonly informerFactory: TypedSharedInformerFactory;
  /** Writes core/v1 Events. */
  readonly eventBroadcaster: EventBroadcaster;
  /** Time source for queues, expectations and conditions. */
  readonly clock: Clock;
  /** Receives the errors a controller's sync hits (it retries with backoff). */
  readonly onError: (controller: string, error: unknown, key: string) => void;
}

/** A recorder for `component` (the event's source, e.g. `replicaset-controller`). */
export function recorderFor(ctx: ControllerContext, component: string): EventRecorder {
  return ctx.eventBroadcaster.newRecorder({ component });
}

/**
 * `obj` with its apiVersion and kind, as an event's involved object needs them: objects from an
 * informer's initial LIST carry none (the API server leaves TypeMeta out of list items).
 */
export function withKind<T extends object>(obj: T, apiVersion: string, kind: string): T & { apiVersion: string; kind: string } {
  return { ...obj, apiVersion, kind };
}

/** Options of {@link newSyncController}. */
export interface SyncControllerOptions {
  /** Names the queue and labels the metrics (upstream's queue name, e.g. `replicaset`). */
  name: string;
  /** The controller's name in {@link ControllerContext.onError} reports. Default: `name`. */
  errorName?: string;
  /** Caches that must have synced before the workers start. */
  informers: readonly HasSynced[];
  /** Concurrent syncs (the controller's `--concurrent-*-syncs`). */
  workers: number;
  /** Syncs one key (the controller's syncHandler). */
  reconcile: (key: string) => Promise<void>;
}

/**
 * The queue and workers of one controller on `ctx`'s clock, its sync errors reported to `ctx.onError`
 * (what every upstream controller writes as Run → WaitForNamedCacheSync → worker → processNextWorkItem,
 * with the requeue-with-rate-limit on error; the loop itself is {@link Controller}).
 */
export function newSyncController(ctx: ControllerContext, options: SyncControllerOptions): Controller {
  const errorName = options.errorName ?? options.name;
  return new Controller({
    name: options.name,
    informers: options.informers,
    workers: options.workers,
    clock: ctx.clock,
    onError: (err, key) => ctx.onError(errorName, err, key),
    // One span per sync, as the Manager's reconciles (when a tracer provider is registered).
    reconcile: (key) => traceReconcile(options.name, key, () => options.reconcile(key)),
  });
}
