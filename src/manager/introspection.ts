/**
 * Live introspection of a running Manager: `/debug/controllers` (kubeloom; controller-runtime offers
 * only metrics and pprof, kube-controller-manager only `/debugz`-style flags). One JSON document with,
 * for each informer, whether it synced, its resourceVersion, item count, last event age, lists and
 * watches (relists and watch restarts); for each controller, its workers, queue (depth, oldest pending
 * request, requests in flight, retries), counts and last error; leader election; the webhook server;
 * and the stalls the stalled-watch detector saw.
 *
 * It is off by default: a manager serves it on its probe and metrics servers only with the
 * `introspection` option (it names objects and errors, which a production metrics port should not
 * expose without thought), and on its dashboard server in dev mode.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InformerCache } from '../cache/cache.ts';
import type { Clock } from '../util/clock/clock.ts';
import type { ReconcileRecord } from './reconcile-record.ts';
import type { Runnable } from './runnable.ts';
import type { StalledWatch, StalledWatchDetector } from './stalled-watch-detector.ts';

/** The path of the introspection document. */
export const debugControllersPath = '/debug/controllers';

/** One informer of the manager's cache. */
export interface InformerIntrospection {
  /** What it caches (`apps/v1, Resource=deployments`). */
  readonly resource: string;
  /** Its namespace ('' = all namespaces). */
  readonly namespace: string;
  /** Whether its first list was applied. */
  readonly synced: boolean;
  /** The resourceVersion of the last list or event. */
  readonly resourceVersion: string;
  /** Objects in its store. */
  readonly items: number;
  /** Seconds since the last watch event or bookmark; absent before any. */
  readonly lastEventAgeSeconds?: number;
  /** Completed lists, the first one included. */
  readonly lists: number;
  /** Lists after the first one. */
  readonly relists: number;
  /** Watches opened. */
  readonly watches: number;
  /** Watches opened after the first one. */
  readonly watchRestarts: number;
  /** The server-side timeout of the open watch, seconds (0: none open). */
  readonly watchTimeoutSeconds: number;
}

/** A request being reconciled now. */
export interface InFlightRequest {
  /** Its key (`namespace/name`). */
  readonly key: string;
  /** Seconds since its reconcile started. */
  readonly seconds: number;
}

/** A request waiting for its next reconcile. */
export interface PendingRequest {
  /** Its key (`namespace/name`). */
  readonly key: string;
  /** The causes it gathered so far. */
  readonly causes: number;
}

/** A controller's last reconcile error. */
export interface LastReconcileError {
  /** The error's message. */
  readonly message: string;
  /** The request that failed. */
  readonly key: string;
  /** When (the manager's clock, ms). */
  readonly time: number;
  /** Seconds since. */
  readonly ageSeconds: number;
}

/** Leader election, in the document. */
export interface LeaderElectionIntrospection {
  /** Whether the manager uses leader election. */
  readonly enabled: boolean;
  /** `namespace/name` of the Lease. */
  readonly lease?: string;
  /** This replica's identity, when set in the options. */
  readonly identity?: string;
  /** Whether this replica holds the Lease. */
  readonly isLeader: boolean;
  /** The leader election health check's verdict. */
  readonly healthy: boolean;
  /** Its error, when unhealthy. */
  readonly error?: string;
}

/** The webhook server, in the document. */
export interface WebhooksIntrospection {
  /** Whether the manager made a webhook server. */
  readonly enabled: boolean;
  /** Its registered paths. */
  readonly paths: readonly string[];
  /** `host:port` it listens on, once listening. */
  readonly address?: string;
}

/** One controller's queue. */
export interface QueueIntrospection {
  /** Requests ready to be reconciled. */
  readonly depth: number;
  /** Seconds the oldest pending request has waited since its first cause; absent when none waits. */
  readonly oldestItemAgeSeconds?: number;
  /** Requests being reconciled now, and for how long. */
  readonly inFlight: readonly InFlightRequest[];
  /** Requests waiting for their next reconcile with the number of causes each has gathered (at most 50 shown). */
  readonly pending: readonly PendingRequest[];
  /** Requests requeued with backoff after an error, in total. */
  readonly retries: number;
  /** Whether it is the priority queue. */
  readonly priority: boolean;
}

/** One controller. */
export interface ControllerIntrospection {
  /** Its name. */
  readonly name: string;
  /** MaxConcurrentReconciles. */
  readonly workers: number;
  /** Workers reconciling now. */
  readonly workersBusy: number;
  /** Finished reconciles. */
  readonly reconciles: number;
  /** Of which successful. */
  readonly success: number;
  /** Of which asked for a requeue after a delay. */
  readonly requeueAfter: number;
  /** Of which threw (terminal ones included). */
  readonly errors: number;
  /** Terminal errors. */
  readonly terminalErrors: number;
  /** Panics (programming errors). */
  readonly panics: number;
  /** The last error, its request and age. */
  readonly lastError?: LastReconcileError;
  /** Its queue. */
  readonly queue: QueueIntrospection;
}

/** The whole document. */
export interface ManagerIntrospection {
  /** When it was taken (the manager's clock, ISO 8601). */
  readonly time: string;
  /** Every informer of the cache. */
  readonly informers: readonly InformerIntrospection[];
  /** Every controller added to the manager. */
  readonly controllers: readonly ControllerIntrospection[];
  /** Leader election. */
  readonly leaderElection: LeaderElectionIntrospection;
  /** The webhook server, when one was made. */
  readonly webhooks: WebhooksIntrospection;
  /** Stalls the stalled-watch detector saw (absent when it is off). */
  readonly stalledWatches?: readonly StalledWatch[];
}

/** A runnable that can describe itself (a managed controller). */
export interface IntrospectableController extends Runnable {
  /** Its introspection entry. */
  introspect(): ControllerIntrospection;
  /** Its recent reconciles. */
  recentReconciles(afterId?: number): ReconcileRecord[];
}

/** Whether `r` is an {@link IntrospectableController}. */
export function isIntrospectableController(r: Runnable): r is IntrospectableController {
  return typeof (r as Partial<IntrospectableController>).introspect === 'function' && typeof (r as Partial<IntrospectableController>).recentReconciles === 'function';
}

/** What the manager hands over to build the document. */
export interface IntrospectionSources {
  /** The manager's clock (ages and the document's time). */
  readonly clock: Clock;
  /** The manager's cache (its informers). */
  readonly cache: InformerCache;
  /** Everything added to the manager (the controllers among them). */
  readonly runnables: () => readonly Runnable[];
  /** The leader election part. */
  readonly leaderElection: () => LeaderElectionIntrospection;
  /** The webhooks part. */
  readonly webhooks: () => WebhooksIntrospection;
  /** The stalled-watch detector, unless it is off. */
  readonly detector: StalledWatchDetector | undefined;
}

/** The informers' part of the document. */
export function introspectInformers(cache: InformerCache, clock: Clock): InformerIntrospection[] {
  const now = clock.now();
  return cache.informerEntries().map(({ description, namespace, informer }) => {
    const s = informer.reflectorStats();
    const lists = s?.lists ?? 0;
    const watches = s?.watches ?? 0;
    return {
      resource: description,
      namespace,
      synced: informer.hasSynced(),
      resourceVersion: informer.lastSyncResourceVersion(),
      items: informer.getStore().list().length,
      ...(s?.lastEventTime !== undefined ? { lastEventAgeSeconds: (now - s.lastEventTime) / 1000 } : {}),
      lists,
      relists: Math.max(0, lists - 1),
      watches,
      watchRestarts: Math.max(0, watches - 1),
      watchTimeoutSeconds: (s?.watchTimeoutMs ?? 0) / 1000,
    };
  });
}

/** Builds the document. */
export function introspect(src: IntrospectionSources): ManagerIntrospection {
  return {
    time: new Date(src.clock.now()).toISOString(),
    informers: introspectInformers(src.cache, src.clock),
    controllers: src.runnables().filter(isIntrospectableController).map((c) => c.introspect()),
    leaderElection: src.leaderElection(),
    webhooks: src.webhooks(),
    ...(src.detector !== undefined ? { stalledWatches: src.detector.stalls() } : {}),
  };
}

/** The recent reconciles of every controller, oldest first by start (for the dashboard's timeline). */
export function recentReconciles(runnables: readonly Runnable[], afterId = -1): ReconcileRecord[] {
  return runnables
    .filter(isIntrospectableController)
    .flatMap((c) => c.recentReconciles(afterId))
    .sort((a, b) => a.id - b.id);
}

/**
 * Serves `/debug/controllers` (and `/debug/reconciles?after=<id>`, the timeline) from `src`; false when
 * the request is for another path.
 */
export function serveIntrospection(req: IncomingMessage, res: ServerResponse, src: IntrospectionSources): boolean {
  const url = new URL(req.url ?? '/', 'http://localhost');
  let body: unknown;
  if (url.pathname === debugControllersPath) body = introspect(src);
  else if (url.pathname === '/debug/reconciles') body = { reconciles: recentReconciles(src.runnables(), Number(url.searchParams.get('after') ?? -1)) };
  else return false;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body, null, 2));
  return true;
}
