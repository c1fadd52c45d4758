/**
 * Event handlers (controller-runtime pkg/handler: enqueue.go, enqueue_owner.go, enqueue_mapped.go,
 * eventhandler.go): they turn an event about one object into reconcile requests for the controller's
 * queue: the object itself, its owner, or whatever a map function says.
 *
 * Priorities follow controller-runtime ≥ 0.23 (handler.WithLowPriorityWhenUnchanged): the source hands
 * each handler a queue whose default priority is {@link LowPriority} for objects of the initial list and
 * for resync updates that changed nothing, and 0 otherwise; a handler may still pass its own.
 */
import type { OwnerReference } from '../api/meta/v1.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from '../predicate/events.ts';
import type { Request } from '../reconcile/reconcile.ts';
import type { AddOpts } from '../util/workqueue/priority-queue.ts';
import type { ResourceKind } from '../client/kinds.ts';
import { defaultLogger } from '../tools/events/logger.ts';

/** Where handlers put requests: the controller's queue, with the event's default priority applied. */
export interface RequestQueue {
  /** Enqueues `request` (deduplicated with a pending one); `opts` may set a priority or a delay. */
  add(request: Request, opts?: AddOpts): void;
}

/**
 * Maps events to requests (handler.EventHandler). Every method is optional; a missing one enqueues
 * nothing for that kind of event.
 */
export interface EventHandler<T extends KubeObject = KubeObject> {
  /** Names the handler in reconcile causes and traces (kubeloom). Default 'EventHandler'. */
  readonly name?: string;
  /** An object was created (or listed initially). */
  create?(e: CreateEvent<T>, queue: RequestQueue): void;
  /** An object was updated (or resynced). */
  update?(e: UpdateEvent<T>, queue: RequestQueue): void;
  /** An object was deleted. */
  delete?(e: DeleteEvent<T>, queue: RequestQueue): void;
  /** A generic event (e.g. from a channel source). */
  generic?(e: GenericEvent<T>, queue: RequestQueue): void;
}

function requestOf(obj: KubeObject): Request {
  return { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
}

/** Enqueues the object of each event (handler.EnqueueRequestForObject): what `for()` uses. */
export function enqueueRequestForObject<T extends KubeObject = KubeObject>(): EventHandler<T> {
  return {
    name: 'EnqueueRequestForObject',
    create: (e, q) => q.add(requestOf(e.object)),
    update: (e, q) => q.add(requestOf(e.objectNew)),
    delete: (e, q) => q.add(requestOf(e.object)),
    generic: (e, q) => q.add(requestOf(e.object)),
  };
}

/** Options of {@link enqueueRequestForOwner}. */
export interface EnqueueRequestForOwnerOptions {
  /**
   * Only the owner reference with `controller: true` (handler.OnlyControllerOwner, what `owns()` uses).
   * Default true; false follows every owner reference of the owner's kind.
   */
  onlyController?: boolean;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Enqueues the owner (of kind `ownerKind`) of each event's object (handler.EnqueueRequestForOwner):
 * what `owns()` uses. Owner references are matched by group and kind, as upstream; a namespaced owner
 * is looked for in the object's namespace, a cluster-scoped one without namespace.
 */
export function enqueueRequestForOwner<T extends KubeObject = KubeObject>(ownerKind: ResourceKind<unknown, unknown>, options: EnqueueRequestForOwnerOptions = {}): EventHandler<T> {
  const onlyController = options.onlyController ?? true;
  const matches = (ref: OwnerReference): boolean => ref.kind === ownerKind.kind && groupOf(ref.apiVersion) === ownerKind.group && (!onlyController || ref.controller === true);
  const enqueue = (obj: KubeObject, q: RequestQueue, seen: Set<string>): void => {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      if (!matches(ref)) continue;
      const req: Request = { namespace: ownerKind.namespaced ? (obj.metadata?.namespace ?? '') : '', name: ref.name };
      const key = `${req.namespace}/${req.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      q.add(req);
    }
  };
  return {
    name: `EnqueueRequestForOwner(${ownerKind.kind})`,
    create: (e, q) => enqueue(e.object, q, new Set()),
    update: (e, q) => {
      const seen = new Set<string>();
      enqueue(e.objectOld, q, seen);
      enqueue(e.objectNew, q, seen);
    },
    delete: (e, q) => enqueue(e.object, q, new Set()),
    generic: (e, q) => enqueue(e.object, q, new Set()),
  };
}

/**
 * Maps an object to the requests it should trigger (handler.MapFunc, which takes a context so it can
 * read the cache). It may return a Promise, e.g. to list the objects that refer to `obj` from the cache.
 */
export type MapFunc<T extends KubeObject = KubeObject> = (obj: T) => readonly Request[] | Promise<readonly Request[]>;

/** Options of {@link enqueueRequestsFromMapFunc}. */
export interface EnqueueRequestsFromMapFuncOptions {
  /** Told when an async map function rejects (nothing is enqueued for that event). Default: the default logger. */
  onError?: (err: unknown) => void;
}

/**
 * Enqueues what `map` returns for each event's object (handler.EnqueueRequestsFromMapFunc); for updates,
 * for both the old and the new object. What `watches(kind, mapFn)` uses. A map function returning
 * requests enqueues them at once; one returning a Promise enqueues them once it resolves.
 *
 * @example
 * // Reconcile every Website that uses a ConfigMap when the ConfigMap changes.
 * enqueueRequestsFromMapFunc<ConfigMap>(async (cm) => (await client.list(websites, { namespace: cm.metadata?.namespace, fieldSelector: `spec.configMap=${cm.metadata?.name}` })).map((w) => ({ namespace: w.metadata!.namespace!, name: w.metadata!.name! })));
 */
export function enqueueRequestsFromMapFunc<T extends KubeObject = KubeObject>(map: MapFunc<T>, options: EnqueueRequestsFromMapFuncOptions = {}): EventHandler<T> {
  const onError = options.onError ?? ((err: unknown) => defaultLogger.error('map function failed', { err: err instanceof Error ? err.message : String(err) }));
  const add = (lists: ReadonlyArray<readonly Request[]>, q: RequestQueue): void => {
    const seen = new Set<string>();
    for (const list of lists) {
      for (const req of list) {
        const key = `${req.namespace}/${req.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        q.add(req);
      }
    }
  };
  const enqueue = (objs: readonly T[], q: RequestQueue): void => {
    const results = objs.map((o) => map(o));
    if (results.every((r) => !(r instanceof Promise))) {
      add(results as ReadonlyArray<readonly Request[]>, q);
      return;
    }
    Promise.all(results.map(async (r) => r)).then((lists) => add(lists, q), onError);
  };
  return {
    name: 'EnqueueRequestsFromMapFunc',
    create: (e, q) => enqueue([e.object], q),
    update: (e, q) => enqueue([e.objectOld, e.objectNew], q),
    delete: (e, q) => enqueue([e.object], q),
    generic: (e, q) => enqueue([e.object], q),
  };
}
