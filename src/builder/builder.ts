/**
 * The controller builder (controller-runtime pkg/builder/controller.go): a thin, typed composition of a
 * {@link ManagedController}, {@link kindSource}s, event handlers and predicates, so everything it does
 * can also be done by hand. `for(kind)` reconciles the kind's objects, `owns(kind)` maps owned objects to
 * their controller owner, `watches(kind, map)` maps anything else, and `complete` registers the
 * controller with the manager. Informers are declared when the controller is built, so the manager's
 * caches start and sync them before leadership is won (warm replicas).
 *
 * kubeloom adds `completeWithFinalizer` (kube-rs's `finalizer()`: `apply` while the object lives,
 * `cleanup` once it is being deleted, the finalizer added and removed for you) and
 * `withOptions({ reconcileEveryMs })` for periodic reconciliation, and sharding: on a manager with the
 * `sharding` option every controller is sharded by default (`withOptions({ sharded: false })` opts
 * out); see src/manager/sharding.ts and docs/sharding.md.
 */
import { KubeloomError } from '../apimachinery/errors.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { metadataOnly as metadataOnlyKind, type MetadataKind } from '../cache/cache.ts';
import type { Client } from '../client/client.ts';
import type { ResourceKind } from '../client/kinds.ts';
import { enqueueRequestForObject, enqueueRequestForOwner, enqueueRequestsFromMapFunc, type EventHandler, type MapFunc } from '../handler/handler.ts';
import { ManagedController, type ControllerOptions } from '../manager/controller.ts';
import type { Manager } from '../manager/manager.ts';
import { shardedHandler, type ShardedWatches } from '../manager/sharding.ts';
import type { Predicate } from '../predicate/predicate.ts';
import { requestKey, type ReconcileContext, type ReconcileFunc, type Reconciler, type Request, type Result } from '../reconcile/reconcile.ts';
import type { ShardGate } from '../sharding/shard-gate.ts';
import { kindSource, type Source } from '../source/source.ts';
import { finalizerReconcile, type FinalizerHandlers } from './finalizer.ts';
import { recordController, type RbacRule } from './registrations.ts';

/** The builder was misused (no `for` and no name, `for` twice, a name taken). */
export class BuilderError extends KubeloomError {
  constructor(message: string) {
    super('ERR_BUILDER', message);
  }
}

/** Options of `for`, `owns` and `watches` (builder.ForOption / OwnsOption / WatchesOption). */
export interface WatchOptions<T extends KubeObject> {
  /** Predicates for this watch only (builder.WithPredicates). */
  predicates?: Predicate<T>[];
  /** Cache only metadata for this kind (builder.OnlyMetadata); handlers then see PartialObjectMetadata. */
  metadataOnly?: boolean;
}

/** Options of `owns`. */
export interface OwnsOptions<T extends KubeObject> extends WatchOptions<T> {
  /** Follow every owner reference of the owner's kind, not just the controller one (builder.MatchEveryOwner). Default false. */
  matchEveryOwner?: boolean;
}

/** Controller options the builder takes (controller.Options); unset ones come from the manager's defaults. */
export type BuilderControllerOptions = Pick<
  ControllerOptions,
  'maxConcurrentReconciles' | 'rateLimiter' | 'reconcileTimeoutMs' | 'cacheSyncTimeoutMs' | 'needLeaderElection' | 'usePriorityQueue' | 'recoverPanic' | 'reconcileEveryMs'
> & {
  /** Allow a name another controller of the manager uses (SkipNameValidation). Default false. */
  skipNameValidation?: boolean;
  /**
   * Shard this controller on the manager's ring (kubeloom): reconcile only the objects of this replica's
   * ranges, without leader election. Default: true when the manager has the `sharding` option, else
   * false (true without it throws {@link BuilderError}).
   */
  sharded?: boolean;
};

type AnyKind = ResourceKind<KubeObject, unknown>;

interface PendingWatch {
  kind: AnyKind | MetadataKind;
  handler: EventHandler<KubeObject>;
  predicates: Predicate<KubeObject>[];
  /** How a sharded controller hashes the watch's objects. */
  role: Parameters<typeof shardedHandler>[2];
}

/**
 * Builds a controller for the manager (builder.Builder). Start with {@link controllerManagedBy}.
 *
 * @example
 * controllerManagedBy(mgr)
 *   .for(cronJobs)
 *   .owns(kinds.batchV1.jobs)
 *   .withOptions({ maxConcurrentReconciles: 2 })
 *   .complete(async ({ namespace, name }, { client }) => { ... });
 */
export class Builder<T extends KubeObject = KubeObject> {
  readonly #mgr: Manager;
  #for: PendingWatch | undefined;
  #forKind: ResourceKind<T, unknown> | undefined;
  readonly #watches: PendingWatch[] = [];
  readonly #rawSources: Source[] = [];
  readonly #globalPredicates: Predicate<KubeObject>[] = [];
  #name: string | undefined;
  #options: BuilderControllerOptions = {};
  // What `kubeloom manifests` reads back (registrations.ts): declared kinds, rules, finalizer use.
  readonly #ownsKinds: AnyKind[] = [];
  readonly #watchesKinds: AnyKind[] = [];
  readonly #rbac: RbacRule[] = [];
  #finalizer = false;

  constructor(mgr: Manager) {
    this.#mgr = mgr;
  }

  /** The kind this controller reconciles (builder.For): its events enqueue the object itself. */
  for<K extends KubeObject>(kind: ResourceKind<K, unknown>, options: WatchOptions<K> = {}): Builder<K> {
    if (this.#for !== undefined) throw new BuilderError('for() can only be called once');
    const next = this as unknown as Builder<K>;
    next.#forKind = kind;
    next.#for = {
      kind: options.metadataOnly === true ? metadataOnlyKind(kind) : (kind as AnyKind),
      handler: enqueueRequestForObject() as EventHandler<KubeObject>,
      predicates: (options.predicates ?? []) as Predicate<KubeObject>[],
      role: { for: true },
    };
    return next;
  }

  /**
   * A kind this controller creates and owns (builder.Owns): its events enqueue the owner of kind `for`,
   * found through the controller owner reference (every owner reference with `matchEveryOwner`).
   */
  owns<O extends KubeObject>(kind: ResourceKind<O, unknown>, options: OwnsOptions<O> = {}): this {
    if (this.#forKind === undefined) throw new BuilderError('owns() needs for() first: the owner is the for() kind');
    this.#watches.push({
      kind: options.metadataOnly === true ? metadataOnlyKind(kind) : (kind as AnyKind),
      handler: enqueueRequestForOwner(this.#forKind, { onlyController: options.matchEveryOwner !== true }),
      predicates: (options.predicates ?? []) as Predicate<KubeObject>[],
      role: { owns: this.#forKind, matchEveryOwner: options.matchEveryOwner === true },
    });
    this.#ownsKinds.push(kind as AnyKind);
    return this;
  }

  /**
   * Another kind whose events map to requests (builder.Watches): pass a map function
   * (handler.EnqueueRequestsFromMapFunc) or an event handler.
   */
  watches<O extends KubeObject>(kind: ResourceKind<O, unknown>, mapOrHandler: MapFunc<O> | EventHandler<O>, options: WatchOptions<O> = {}): this {
    const handler = typeof mapOrHandler === 'function' ? enqueueRequestsFromMapFunc(mapOrHandler) : mapOrHandler;
    this.#watches.push({ kind: options.metadataOnly === true ? metadataOnlyKind(kind) : (kind as AnyKind), handler: handler as EventHandler<KubeObject>, predicates: (options.predicates ?? []) as Predicate<KubeObject>[], role: { watches: true } });
    this.#watchesKinds.push(kind as AnyKind);
    return this;
  }

  /** A source built by hand, e.g. a channel source (builder.WatchesRawSource). */
  watchesRawSource(source: Source): this {
    this.#rawSources.push(source);
    return this;
  }

  /** A predicate applied to every watch of this controller (builder.WithEventFilter). */
  withEventFilter(predicate: Predicate<KubeObject>): this {
    this.#globalPredicates.push(predicate);
    return this;
  }

  /** The controller's name (builder.Named). Default: the `for` kind in lower case, as upstream. */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  /**
   * RBAC rules the controller needs beyond those its watches imply (kubebuilder's `+kubebuilder:rbac`
   * markers, as code): `kubeloom manifests` writes them into config/rbac/role.yaml. Only declares;
   * grants nothing at run time.
   */
  withRbac(...rules: RbacRule[]): this {
    this.#rbac.push(...rules);
    return this;
  }

  /** Controller options (builder.WithOptions). */
  withOptions(options: BuilderControllerOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** Builds the controller, adds it to the manager and returns it (builder.Complete / Build). */
  complete(reconciler: ReconcileFunc<Client> | Reconciler<Client>): ManagedController<Client> {
    const inner: ReconcileFunc<Client> = typeof reconciler === 'function' ? reconciler : (req, ctx) => reconciler.reconcile(req, ctx);
    const name = this.#name ?? this.#forKind?.kind.toLowerCase();
    if (name === undefined) throw new BuilderError('one of for() or named() must be called');
    const sharding = this.#mgr.getSharding();
    const sharded = this.#options.sharded ?? sharding !== undefined;
    if (sharded && sharding === undefined) throw new BuilderError(`controller ${name}: sharded needs a manager with the sharding option`);
    const defaults = this.#mgr.controllerDefaults();
    this.#mgr.registerControllerName(name, this.#options.skipNameValidation ?? defaults.skipNameValidation ?? false);
    const o = { ...defaults, ...this.#options, ...(sharded ? { needLeaderElection: false } : {}) };
    let gate: ShardGate | undefined;
    // A sharded reconcile starts only on an owned key, registered as in flight in the same step.
    const reconcile: ReconcileFunc<Client> = !sharded
      ? inner
      : async (req, ctx) => {
          const key = requestKey(req);
          if (!gate!.begin(key)) return undefined;
          try {
            return await inner(req, ctx);
          } finally {
            gate!.end(key);
          }
        };
    const queueMetrics = this.#mgr.queueMetricsProvider();
    const controller = new ManagedController<Client>({
      name,
      reconcile,
      client: this.#mgr.getClient(),
      recorder: this.#mgr.getEventRecorderFor(name),
      logger: this.#mgr.getLogger(),
      metrics: this.#mgr.controllerMetrics(),
      clock: o.clock,
      ...(this.#forKind !== undefined ? { forKind: { group: this.#forKind.group, kind: this.#forKind.kind } } : {}),
      ...(queueMetrics !== undefined ? { queueMetricsProvider: queueMetrics } : {}),
      ...(o.maxConcurrentReconciles !== undefined ? { maxConcurrentReconciles: o.maxConcurrentReconciles } : {}),
      ...(o.rateLimiter !== undefined ? { rateLimiter: o.rateLimiter } : {}),
      ...(o.reconcileTimeoutMs !== undefined ? { reconcileTimeoutMs: o.reconcileTimeoutMs } : {}),
      ...(o.cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs: o.cacheSyncTimeoutMs } : {}),
      ...(o.needLeaderElection !== undefined ? { needLeaderElection: o.needLeaderElection } : {}),
      ...(o.usePriorityQueue !== undefined ? { usePriorityQueue: o.usePriorityQueue } : {}),
      ...(o.recoverPanic !== undefined ? { recoverPanic: o.recoverPanic } : {}),
      ...(o.reconcileEveryMs !== undefined ? { reconcileEveryMs: o.reconcileEveryMs } : {}),
    });
    const cache = this.#mgr.getCache();
    if (sharded) {
      const watches: ShardedWatches = {
        ...(this.#for !== undefined ? { forKind: this.#for.kind as AnyKind } : {}),
        owns: this.#watches.flatMap((w) => ('owns' in w.role ? [{ kind: w.kind as AnyKind, matchEveryOwner: w.role.matchEveryOwner }] : [])),
      };
      const registry = this.#mgr.getMetricsRegistry();
      gate = sharding!.addController(name, watches, (key) => controller.queue.add(key), {
        ...(registry !== undefined ? { registry } : {}),
        addReadyzCheck: (n, check) => this.#mgr.addReadyzCheck(n, check),
      });
    }
    for (const w of [...(this.#for !== undefined ? [this.#for] : []), ...this.#watches]) {
      // Declared now: the manager's caches group starts (and syncs) it before leadership.
      cache.informerFor(w.kind as AnyKind);
      const handler = gate !== undefined ? shardedHandler(gate, w.handler, w.role) : w.handler;
      controller.watch(kindSource(cache, w.kind as AnyKind, handler, ...this.#globalPredicates, ...w.predicates));
    }
    for (const s of this.#rawSources) controller.watch(s);
    this.#mgr.add(controller);
    recordController(this.#mgr, { name, for: this.#forKind as AnyKind | undefined, owns: [...this.#ownsKinds], watches: [...this.#watchesKinds], finalizer: this.#finalizer, rbac: [...this.#rbac] });
    return controller;
  }

  /**
   * Builds the controller around a finalizer (kube-rs's `finalizer()`): each request reads the `for`
   * object from the cache; while it lives, the finalizer `finalizerName` is added (first) and `apply`
   * runs; once it is being deleted, `cleanup` runs and the finalizer is removed. An object that is gone
   * is skipped.
   */
  completeWithFinalizer(finalizerName: string, handlers: FinalizerHandlers<T>): ManagedController<Client> {
    const kind = this.#forKind;
    if (kind === undefined) throw new BuilderError('completeWithFinalizer() needs for()');
    this.#finalizer = true;
    return this.complete(finalizerReconcile(kind, finalizerName, handlers));
  }
}

/** Starts a builder for a controller run by `mgr` (builder.ControllerManagedBy). */
export function controllerManagedBy(mgr: Manager): Builder {
  return new Builder(mgr);
}

export type { ReconcileContext, Request, Result };
