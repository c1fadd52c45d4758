/**
 * What a reconciler is given and may answer (controller-runtime pkg/reconcile/reconcile.go): a
 * {@link Request} naming one object, a {@link Result} asking for another pass later, and
 * {@link TerminalError}, an error that retrying cannot fix.
 *
 * Where kubeloom differs: a reconciler throws instead of returning `(Result, error)`, so "a result
 * together with an error" cannot be expressed; controller-runtime ignores the result in that case
 * anyway. `Result.Requeue` (deprecated upstream) is left out: throw, or return `{ requeueAfterMs }`.
 */
import { KubeloomError } from '../apimachinery/errors.ts';
import type { EventRecorder } from '../tools/events/interfaces.ts';
import type { Logger } from '../tools/events/logger.ts';
import type { ReconcileCause } from './causes.ts';

/** The object to reconcile (reconcile.Request): namespace ('' for cluster-scoped objects) and name. */
export interface Request {
  /** The namespace; '' for a cluster-scoped object. */
  readonly namespace: string;
  /** The name. */
  readonly name: string;
}

/**
 * What a reconcile asks for (reconcile.Result): nothing (done), or another pass after
 * `requeueAfterMs` (which also forgets the object's failure backoff).
 */
export type Result =
  | {
      /** Reconcile again after this many milliseconds. */
      readonly requeueAfterMs: number;
    }
  | undefined
  | void;

/** The request's `namespace/name` key ("name" alone when cluster-scoped), as informer caches key objects. */
export function requestKey(req: Request): string {
  return req.namespace === '' ? req.name : `${req.namespace}/${req.name}`;
}

/** The {@link Request} of a `namespace/name` (or `name`) key. */
export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * An error retrying will not fix (reconcile.TerminalError): the controller records it
 * (`controller_runtime_terminal_reconcile_errors_total`) and does not requeue the object; the next
 * event for the object reconciles it again.
 *
 * @example
 * if (spec.schedule === undefined) throw new TerminalError('spec.schedule is required', { cause: err });
 */
export class TerminalError extends KubeloomError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_TERMINAL_RECONCILE', message, options);
  }
}

/** Whether `err` is (or wraps, through `cause`) a {@link TerminalError}, as errors.Is does. */
export function isTerminalError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 16; depth++) {
    if (e instanceof TerminalError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** What every reconcile receives beside its request. */
export interface ReconcileContext<C = unknown> {
  /**
   * Aborts when the reconcile must give up: after the manager was asked to stop and its graceful
   * shutdown period ran out, or after the controller's `reconcileTimeoutMs`. Pass it to API calls.
   */
  readonly signal: AbortSignal;
  /** A logger whose lines carry the controller's name and the request. */
  readonly logger: Logger;
  /** The manager's client (cached reads, writes to the server). */
  readonly client: C;
  /** Records events as the controller (events.k8s.io/v1, aggregated into series). */
  readonly recorder: EventRecorder;
  /** The controller's name. */
  readonly controllerName: string;
  /**
   * Why this reconcile runs (kubeloom): the events that enqueued the request since its last reconcile,
   * oldest first, several when the queue coalesced them; a requeue of the controller's own is a cause
   * of type `requeue`. Empty for a reconcile not run by a managed controller.
   */
  readonly causes?: readonly ReconcileCause[];
}

/**
 * Brings one object to its desired state (reconcile.Reconciler). Return nothing when done,
 * `{ requeueAfterMs }` to look again later, throw to be retried with backoff, or throw a
 * {@link TerminalError} to give up until the next event.
 */
export type ReconcileFunc<C = unknown> = (request: Request, context: ReconcileContext<C>) => Promise<Result> | Result;

/** An object with a `reconcile` method, as reconcile.Reconciler; the builder accepts it or a function. */
export interface Reconciler<C = unknown> {
  /** Reconciles one request. */
  reconcile(request: Request, context: ReconcileContext<C>): Promise<Result> | Result;
}
