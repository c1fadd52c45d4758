/**
 * Why a reconcile ran (kubeloom; controller-runtime has no counterpart: its Request carries only the
 * object's name). Sources record, for every request they enqueue, the event that led to it: the kind,
 * name and resourceVersion of the object the event was about, the event type, the predicates that let
 * it through and the handler that mapped it to the request. A controller takes the causes of a request
 * when a worker picks it up, so several events coalesced by the queue into one reconcile give that
 * reconcile several causes; the reconcile sees them in `context.causes`, its log lines carry them, and
 * its trace span links to each event's span.
 *
 * Causes recorded while a request is being reconciled belong to the next reconcile of that request,
 * which the queue runs anyway (the request is marked dirty).
 */
import type { SpanContext } from '@opentelemetry/api';

/** The kind of event behind a request: the four event types of controller-runtime, or a requeue. */
export const CauseType = {
  /** An object appeared (or was listed initially). */
  Create: 'create',
  /** An object changed (or a resync delivered it again). */
  Update: 'update',
  /** An object was deleted. */
  Delete: 'delete',
  /** A generic event (a channel source). */
  Generic: 'generic',
  /** The controller requeued the request itself (after an error, a `requeueAfterMs`, or `reconcileEveryMs`). */
  Requeue: 'requeue',
} as const;
/** One of {@link CauseType}. */
export type CauseTypeValue = (typeof CauseType)[keyof typeof CauseType];

/** One event that led to a reconcile. */
export interface ReconcileCause {
  /** What happened. */
  readonly type: CauseTypeValue;
  /** The Kind of the object the event was about (not necessarily the reconciled kind: `owns()`, `watches()`). */
  readonly kind: string;
  /** Its namespace ('' for cluster-scoped objects). */
  readonly namespace: string;
  /** Its name. */
  readonly name: string;
  /** Its resourceVersion in the event ('' when unknown). */
  readonly resourceVersion: string;
  /** True for objects of an informer's initial list (or a relist), enqueued at low priority. */
  readonly initialList?: boolean;
  /** The names of the predicates that let the event through (empty: none were set). */
  readonly predicates: readonly string[];
  /** The event handler that mapped the event to the request (e.g. `EnqueueRequestForOwner`). */
  readonly handler: string;
  /** For requeues: why (`error`, `requeueAfter`, `reconcileEvery`). */
  readonly reason?: string;
  /** When the request was enqueued for this event (the controller's clock, ms). */
  readonly time: number;
  /** The trace span of the event's handling, when tracing is on; the reconcile's span links to it. */
  readonly spanContext?: SpanContext;
}

/** The message of a thrown value, for logs, records and spans. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? typeof err;
  } catch {
    return typeof err;
  }
}

/** Causes kept per request at most: a hot object must not grow without bound between reconciles. */
export const maxCausesPerRequest = 16;

/** A one-line summary of a cause for log lines: `update Deployment default/web rv=42 by EnqueueRequestForObject`. */
export function formatCause(c: ReconcileCause): string {
  const name = c.namespace === '' ? c.name : `${c.namespace}/${c.name}`;
  if (c.type === CauseType.Requeue) return `requeue (${c.reason ?? 'unknown'})`;
  const rv = c.resourceVersion === '' ? '' : ` rv=${c.resourceVersion}`;
  const preds = c.predicates.length > 0 ? ` passing ${c.predicates.join(',')}` : '';
  return `${c.type}${c.initialList === true ? ' (initial list)' : ''} ${c.kind} ${name}${rv}${preds} by ${c.handler}`;
}

/**
 * The pending causes of one controller's requests, by request key. The controller owns one and registers
 * it for its queue ({@link registerCauseTracker}); sources find it through the queue they were given.
 */
export class CauseTracker {
  readonly #pending = new Map<string, ReconcileCause[]>();
  #dropped = 0;
  /** The time source causes are stamped with (the controller's clock). */
  readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  /** Records that `key` was enqueued for `cause`. Past {@link maxCausesPerRequest}, the oldest is dropped. */
  record(key: string, cause: ReconcileCause): void {
    let list = this.#pending.get(key);
    if (list === undefined) {
      list = [];
      this.#pending.set(key, list);
    }
    if (list.length >= maxCausesPerRequest) {
      list.shift();
      this.#dropped++;
    }
    list.push(cause);
  }

  /** Removes and returns the causes recorded for `key` since the last call (a worker picked it up). */
  take(key: string): readonly ReconcileCause[] {
    const list = this.#pending.get(key);
    if (list === undefined) return [];
    this.#pending.delete(key);
    return list;
  }

  /** Causes waiting for `key`'s next reconcile, without taking them. */
  peek(key: string): readonly ReconcileCause[] {
    return this.#pending.get(key) ?? [];
  }

  /** The keys with pending causes. */
  keys(): IterableIterator<string> {
    return this.#pending.keys();
  }

  /** Requests with pending causes. */
  size(): number {
    return this.#pending.size;
  }

  /** Causes dropped because a request had more than {@link maxCausesPerRequest} pending. */
  dropped(): number {
    return this.#dropped;
  }
}

const trackers = new WeakMap<object, CauseTracker>();

/** Makes `tracker` the one sources use for `queue` (called by the controller owning both). */
export function registerCauseTracker(queue: object, tracker: CauseTracker): void {
  trackers.set(queue, tracker);
}

/** The tracker registered for `queue`, if any (queues not owned by a managed controller have none). */
export function causeTrackerFor(queue: object): CauseTracker | undefined {
  return trackers.get(queue);
}
