/**
 * Waiting for a condition on a watched collection (client-go tools/watch: UntilWithoutRetry and
 * UntilWithSync), plus `waitFor` over an informer. Every wait honours an AbortSignal and an optional
 * timeout measured on an injected Clock.
 */
import { KubeloomError, isExpired, isGone, StatusError } from '../../apimachinery/errors.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { KubeObject } from '../../apimachinery/object.ts';
import type { Watch, WatchEvent } from '../../apimachinery/watch.ts';
import { realClock, type Clock } from '../../util/clock/clock.ts';
import type { ListerWatcher } from '../cache/listwatch.ts';
import type { DeletedFinalStateUnknown } from '../cache/key-functions.ts';

/** An ADDED, MODIFIED or DELETED event: what conditions are evaluated on. */
export type ObjectEvent<T> = {
  /** What happened to the object. */
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object. */
  object: T;
};

/**
 * Decides whether the wait is over (watchtools.ConditionFunc). Return true to stop with this event;
 * throw to stop with an error.
 */
export type ConditionFunc<T> = (event: ObjectEvent<T>) => boolean;

/**
 * Checked once against the synced initial state before watching (watchtools.PreconditionFunc).
 * Return true to stop at once (the wait then resolves with undefined); throw to fail.
 */
export type PreconditionFunc<T> = (store: ReadonlyMap<string, T>) => boolean;

/** Options common to the waits. */
export interface UntilOptions {
  /** Aborting rejects the wait with the signal's reason. */
  signal?: AbortSignal;
  /** Rejects with {@link WaitTimeoutError} after this many ms (measured on `clock`). Default: no timeout. */
  timeoutMs?: number;
  /** Time source for `timeoutMs`. Default: {@link realClock}. */
  clock?: Clock;
}

/** The wait ran out of time (wait.ErrWaitTimeout). */
export class WaitTimeoutError extends KubeloomError {
  constructor(timeoutMs: number) {
    super('ERR_WAIT_TIMEOUT', `timed out after ${timeoutMs} ms waiting for the condition`);
  }
}

/** The watch ended before the condition was met (watchtools.ErrWatchClosed). */
export class WatchClosedError extends KubeloomError {
  constructor() {
    super('ERR_WATCH_CLOSED', 'watch closed before the condition was met');
  }
}

/**
 * One signal aborting on the caller's signal or on the timeout, the reason saying which. `dispose`
 * stops the timer and unlinks the caller's signal.
 */
function waitSignal(options: UntilOptions): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const outer = options.signal;
  const onAbort = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = options.timeoutMs;
  const timer =
    timeoutMs !== undefined && timeoutMs >= 0 && !controller.signal.aborted
      ? (options.clock ?? realClock).afterFunc(timeoutMs, () => controller.abort(new WaitTimeoutError(timeoutMs)))
      : undefined;
  return {
    signal: controller.signal,
    dispose: () => {
      timer?.stop();
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** Rejects when `signal` aborts; the returned `off` removes the listener. */
function abortPromise(signal: AbortSignal): { promise: Promise<never>; off: () => void } {
  let off = (): void => {};
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    off = () => signal.removeEventListener('abort', onAbort);
  });
  // The race below observes it; never let it surface as unhandled.
  promise.catch(() => {});
  return { promise, off };
}

function statusErrorOf(event: WatchEvent<unknown>): StatusError | undefined {
  return event.type === 'ERROR' ? new StatusError(event.object) : undefined;
}

/**
 * Consumes one watch until `condition` holds for an event, resolving with that event
 * (watchtools.UntilWithoutRetry). ERROR events reject with a StatusError; a watch that ends first
 * rejects with {@link WatchClosedError}. Bookmarks are skipped.
 */
export async function untilWithoutRetry<T>(watch: Watch<T>, condition: ConditionFunc<T>, options: UntilOptions = {}): Promise<ObjectEvent<T>> {
  const { signal, dispose } = waitSignal(options);
  const iterator = watch[Symbol.asyncIterator]();
  const aborted = abortPromise(signal);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted.promise]);
      if (next.done === true) throw new WatchClosedError();
      const event = next.value;
      const err = statusErrorOf(event);
      if (err !== undefined) throw err;
      if (event.type === 'BOOKMARK') continue;
      const objectEvent = event as ObjectEvent<T>;
      if (condition(objectEvent)) return objectEvent;
    }
  } finally {
    aborted.off();
    dispose();
    // Ends the stream (frees the connection) without waiting on a pending read.
    void iterator.return?.(undefined)?.catch(() => {});
  }
}

/** Options of {@link untilWithSync}. */
export interface UntilWithSyncOptions<T> extends UntilOptions {
  /** Checked against the listed state before watching. Default: none. */
  precondition?: PreconditionFunc<T>;
}

/**
 * Lists, then watches, until `condition` holds for an event, relisting when the watch expires (410)
 * or ends (watchtools.UntilWithSync). The listed objects are fed to `condition` as ADDED events
 * first — and after every relist, as MODIFIED/ADDED/DELETED events for what changed meanwhile — so
 * an object that already satisfies the condition is found without waiting for a change.
 * Resolves with the satisfying event, or undefined when the precondition already held.
 *
 * @example
 * // Wait until the pod is Running.
 * const lw = newListWatchFromClient(pods, { fieldSelector: 'metadata.name=web' });
 * await untilWithSync(lw, (e) => e.type !== 'DELETED' && e.object.status?.phase === 'Running', { timeoutMs: 60_000 });
 */
export async function untilWithSync<T extends KubeObject>(
  lw: ListerWatcher<T>,
  condition: ConditionFunc<T>,
  options: UntilWithSyncOptions<T> = {},
): Promise<ObjectEvent<T> | undefined> {
  const { signal, dispose } = waitSignal(options);
  const aborted = abortPromise(signal);
  const store = new Map<string, T>();
  let first = true;
  try {
    for (;;) {
      const list = await Promise.race([lw.list({ resourceVersion: '', signal }), aborted.promise]);
      // What changed since the previous view, as events (all ADDED the first time).
      const seen = new Set<string>();
      const events: ObjectEvent<T>[] = [];
      for (const obj of list.items) {
        const key = objectKey(obj);
        seen.add(key);
        const old = store.get(key);
        if (old === undefined) events.push({ type: 'ADDED', object: obj });
        else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) events.push({ type: 'MODIFIED', object: obj });
        store.set(key, obj);
      }
      for (const [key, obj] of store) {
        if (!seen.has(key)) {
          store.delete(key);
          events.push({ type: 'DELETED', object: obj });
        }
      }
      if (first) {
        first = false;
        if (options.precondition?.(store) === true) return undefined;
      }
      for (const event of events) if (condition(event)) return event;

      const watch = await Promise.race([lw.watch({ resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true, signal }), aborted.promise]);
      try {
        const tracking: ConditionFunc<T> = (event) => {
          const key = objectKey(event.object);
          if (event.type === 'DELETED') store.delete(key);
          else store.set(key, event.object);
          return condition(event);
        };
        return await untilWithoutRetry(watch, tracking, { signal });
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        // An expired or closed watch relists, as UntilWithSync's informer would.
        if (!(err instanceof WatchClosedError) && !isExpired(err) && !isGone(err)) throw err;
      }
    }
  } finally {
    aborted.off();
    dispose();
  }
}

/** The part of an informer {@link waitFor} uses (cache.SharedInformer); `R` is its registration type. */
export interface InformerEventSource<T, R> {
  /** Adds a handler; one added after start first receives an add for every cached object. */
  addEventHandler(handler: {
    onAdd(obj: T, isInInitialList: boolean): void;
    onUpdate(oldObj: T, newObj: T): void;
    onDelete(obj: T | DeletedFinalStateUnknown<T>): void;
  }): R;
  /** Unregisters a handler. */
  removeEventHandler(registration: R): unknown;
}

/**
 * Resolves with the first object of an informer's cache (present or future) that satisfies
 * `predicate`, checking every add and update. Removes its handler when done.
 *
 * @example
 * const ready = await waitFor(podInformer, (p) => p.status?.phase === 'Running', { timeoutMs: 30_000 });
 */
export async function waitFor<T, R>(informer: InformerEventSource<T, R>, predicate: (obj: T) => boolean, options: UntilOptions = {}): Promise<T> {
  const { signal, dispose } = waitSignal(options);
  const aborted = abortPromise(signal);
  let registration: R | undefined;
  let settle: ((obj: T) => void) | undefined;
  let fail: ((err: unknown) => void) | undefined;
  const found = new Promise<T>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const check = (obj: T): void => {
    try {
      if (predicate(obj)) settle?.(obj);
    } catch (err) {
      fail?.(err);
    }
  };
  try {
    registration = informer.addEventHandler({ onAdd: (obj) => check(obj), onUpdate: (_old, obj) => check(obj), onDelete: () => {} });
    return await Promise.race([found, aborted.promise]);
  } finally {
    if (registration !== undefined) await informer.removeEventHandler(registration);
    aborted.off();
    dispose();
  }
}
