/**
 * Sources of events for a controller (controller-runtime pkg/source/source.go and
 * internal/source/kind.go, event_handler.go): a {@link kindSource} feeds an informer's notifications
 * through predicates to an event handler, which puts requests in the controller's queue; a
 * {@link channelSource} does the same for events from outside the cluster.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import type { InformerCache } from '../cache/cache.ts';
import type { ResourceKind } from '../client/kinds.ts';
import type { EventHandler, RequestQueue } from '../handler/handler.ts';
import { allows, type Predicate } from '../predicate/predicate.ts';
import type { GenericEvent } from '../predicate/events.ts';
import { requestKey, type Request } from '../reconcile/reconcile.ts';
import { isDeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import type { ResourceEventHandlerRegistration } from '../tools/cache/shared-informer.ts';
import { deliverEvent, type EventInfo } from './event-causes.ts';
import type { RateLimitingInterface } from '../util/workqueue/rate-limiting-queue.ts';
import { LowPriority, type AddOpts } from '../util/workqueue/priority-queue.ts';

/** The controller's queue of request keys (`namespace/name`): a priority queue, or any rate-limited one. */
export type ControllerQueue = RateLimitingInterface<string> & {
  /** Present on a priority queue. */
  addWithOpts?(opts: AddOpts, ...items: string[]): void;
};

/** A source of events for one controller (source.Source / source.SyncingSource). */
export interface Source {
  /** Starts delivering requests into `queue` until `signal` aborts. */
  start(queue: ControllerQueue, signal: AbortSignal): void;
  /** True once the source has delivered its initial state (for kinds: its informer handler synced). */
  hasSynced(): boolean;
  /** For messages: what the source watches. */
  readonly description: string;
  /** Resolves once the source let go of what it held after its signal aborted (optional). */
  stopped?(): Promise<void>;
}

/** A {@link RequestQueue} over `queue` whose adds default to `priority`. */
export function requestQueue(queue: ControllerQueue, priority: number): RequestQueue {
  return {
    add(request: Request, opts: AddOpts = {}): void {
      const key = requestKey(request);
      if (queue.addWithOpts !== undefined) queue.addWithOpts({ ...opts, priority: opts.priority ?? priority }, key);
      else if ((opts.afterMs ?? 0) > 0) queue.addAfter(key, opts.afterMs!);
      else if (opts.rateLimited === true) queue.addRateLimited(key);
      else queue.add(key);
    },
  };
}

/**
 * Events of `kind` from the manager's shared cache (source.Kind). Objects of the initial list and
 * resyncs that changed nothing are enqueued at {@link LowPriority}. A delete seen only by a relist (a
 * tombstone) is delivered with `deleteStateUnknown`.
 */
export function kindSource<T extends KubeObject>(cache: InformerCache, kind: ResourceKind<T, unknown>, handler: EventHandler<T>, ...predicates: Predicate<T>[]): Source {
  return kindSourceWith(cache, kind, false, handler, predicates);
}

/**
 * A {@link kindSource} for watches added and removed at run time (controller-runtime #935, #2983;
 * kube-rs #1630): it takes `kind`'s informer with {@link InformerCache.acquireInformer} when it starts
 * and gives it back when its signal aborts (the controller's `watch(...).stop()`), so the informer
 * stops, and its store is released, once no other user holds it. Sources of the builder's
 * `for`/`owns`/`watches` keep theirs for the manager's lifetime, as upstream.
 */
export function dynamicKindSource<T extends KubeObject>(cache: InformerCache, kind: ResourceKind<T, unknown>, handler: EventHandler<T>, ...predicates: Predicate<T>[]): Source {
  return kindSourceWith(cache, kind, true, handler, predicates);
}

function kindSourceWith<T extends KubeObject>(cache: InformerCache, kind: ResourceKind<T, unknown>, counted: boolean, handler: EventHandler<T>, predicates: Predicate<T>[]): Source {
  let registration: ResourceEventHandlerRegistration | undefined;
  let released: Promise<void> = Promise.resolve();
  const pass = <E>(k: 'create' | 'update' | 'delete', e: E): boolean => predicates.every((p) => allows(p, k as 'create', e as never));
  const predicateNames = predicates.map((p) => p.name ?? 'predicate');
  const handlerName = handler.name ?? 'EventHandler';
  return {
    description: `kind source: ${kind.group === '' ? kind.version : `${kind.group}/${kind.version}`}, Kind=${kind.kind}`,
    start(queue, signal) {
      const informer = counted ? cache.acquireInformer(kind) : cache.informerFor(kind);
      const info = (type: 'create' | 'update' | 'delete', object: KubeObject, initialList?: boolean) => (): EventInfo => ({ type, kind: kind.kind, object, predicates: predicateNames, handler: handlerName, ...(initialList === true ? { initialList } : {}) });
      registration = informer.addEventHandler({
        onAdd: (obj, isInInitialList) => {
          const e = { object: obj, isInInitialList };
          if (handler.create !== undefined && pass('create', e)) deliverEvent(queue, requestQueue(queue, isInInitialList ? LowPriority : 0), info('create', obj, isInInitialList), (q) => handler.create!(e, q));
        },
        onUpdate: (objectOld, objectNew) => {
          const e = { objectOld, objectNew };
          const unchanged = objectOld.metadata?.resourceVersion === objectNew.metadata?.resourceVersion;
          if (handler.update !== undefined && pass('update', e)) deliverEvent(queue, requestQueue(queue, unchanged ? LowPriority : 0), info('update', objectNew), (q) => handler.update!(e, q));
        },
        onDelete: (obj) => {
          const tombstone = isDeletedFinalStateUnknown(obj);
          if (tombstone && obj.obj === undefined) return;
          const e = { object: (tombstone ? obj.obj : obj) as T, deleteStateUnknown: tombstone };
          if (handler.delete !== undefined && pass('delete', e)) deliverEvent(queue, requestQueue(queue, 0), info('delete', e.object), (q) => handler.delete!(e, q));
        },
      });
      const reg = registration;
      const stop = (): void => {
        informer.removeEventHandler(reg);
        if (counted) released = cache.releaseInformer(kind).then(() => undefined);
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    },
    hasSynced: () => registration?.hasSynced() ?? false,
    stopped: () => released,
  };
}

/**
 * Generic events from `events` (source.Channel), e.g. from a webhook or a timer outside the cluster.
 * It counts as synced at once.
 */
export function channelSource<T extends KubeObject>(events: AsyncIterable<GenericEvent<T>>, handler: EventHandler<T>, ...predicates: Predicate<T>[]): Source {
  return {
    description: 'channel source',
    start(queue, signal) {
      void (async () => {
        const it = events[Symbol.asyncIterator]();
        const onAbort = (): void => void it.return?.();
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          for (;;) {
            const next = await it.next();
            if (next.done === true || signal.aborted) return;
            const e = next.value;
            if (handler.generic !== undefined && predicates.every((p) => allows(p, 'generic', e))) {
              deliverEvent(queue, requestQueue(queue, 0), () => ({ type: 'generic', kind: e.object.kind ?? '', object: e.object, predicates: predicates.map((p) => p.name ?? 'predicate'), handler: handler.name ?? 'EventHandler' }), (q) => handler.generic!(e, q));
            }
          }
        } finally {
          signal.removeEventListener('abort', onAbort);
        }
      })();
    },
    hasSynced: () => true,
  };
}
