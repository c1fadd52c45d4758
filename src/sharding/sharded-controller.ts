/**
 * A controller on a shard ring: the {@link Controller} loop whose queue only ever holds keys of the
 * ranges this replica holds, and which lets go of a range only after its in-flight reconciles
 * ended. The shape controller-runtime's Manager would give a sharding option (see
 * docs/sharding.md): the ring replaces leader election, the primary informer lists and watches only
 * the replica's ranges (KEP-5866 `shardSelector`, filtered client-side where the server ignores it),
 * and owned objects follow their controller owner's uid, so `Owns()` watches land on the owner's shard.
 *
 * Keys are hashed by the uid of the primary object (for owned objects: the uid in their controller
 * ownerReference, which is the owner's uid). A key whose hash is not in the active ranges is not
 * enqueued, and is dropped if dequeued after its range was revoked. The hooks themselves live in
 * {@link ShardGate}, shared with the Manager's `sharding` option.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import type { ShardRange } from '../apimachinery/sharding/selector.ts';
import { Controller, type ControllerOptions, type ReconcileContext, type ReconcileFunc, type ReconcileResult } from '../controller/controller.ts';
import { isDeletedFinalStateUnknown, type DeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import type { ResourceEventHandlerRegistration, SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import { informersCache, ownersOf, ShardGate, type OwnedOptions, type ShardingStatus } from './shard-gate.ts';
import type { ShardRing } from './shard-ring.ts';

export { ShardNotReadyError, controllerShardKey, defaultMaxSelectorRanges } from './shard-gate.ts';
export type { OwnedOptions, ShardingStatus } from './shard-gate.ts';

/** Options of a {@link ShardedController}: a controller's options and its ring. */
export interface ShardedControllerOptions extends ControllerOptions {
  /** The ring this replica is a member of (shared by the controllers of one process). */
  ring: ShardRing;
  /**
   * Most `shardRange` terms in the informers' selectors (default 100): beyond, the smallest gaps
   * between ranges are cached too (see `coarsenRanges`). 0 = no limit.
   */
  maxSelectorRanges?: number;
}

/**
 * A controller whose replicas split the work by a shard ring.
 *
 * @example
 * const ring = new ShardRing({ name: 'podsets', namespace, identity, client: cs.coordinationV1().leases(namespace) });
 * const podSets = new SharedIndexInformer<PodSet>(lw, { shardSelector: ShardSelector.none() });
 * const pods = new SharedIndexInformer<Pod>(podLw, { shardSelector: ShardSelector.none(), shardKey: controllerShardKey });
 * const c = new ShardedController({ name: 'podsets', ring, reconcile, informers: [podSets, pods] });
 * c.watchFor(podSets);
 * c.watchOwned(pods, { ownerKind: 'PodSet' });
 * await Promise.all([ring.run({ signal }), podSets.run({ signal }), pods.run({ signal }), c.run({ signal })]);
 */
export class ShardedController {
  /** The underlying controller (its queue, stats and metrics). */
  readonly controller: Controller;
  /** The ring. */
  readonly ring: ShardRing;
  /** The ring hooks (enqueue filter, in-flight map, ring listener). */
  readonly gate: ShardGate;

  constructor(options: ShardedControllerOptions) {
    const reconcile = options.reconcile;
    this.ring = options.ring;
    this.controller = new Controller({ ...options, reconcile: (key, ctx) => this.#reconcile(key, ctx, reconcile) });
    this.gate = new ShardGate({
      ring: options.ring,
      name: this.controller.name,
      enqueue: (key) => this.controller.add(key),
      hasSynced: () => this.controller.hasSynced(),
      ...(options.maxSelectorRanges !== undefined ? { maxSelectorRanges: options.maxSelectorRanges } : {}),
    });
    if (options.metrics !== undefined) this.gate.registerGauges(options.metrics);
  }

  /**
   * Follows the controller's own resource: the informer (created with a `shardSelector`) is kept on
   * this replica's ranges and its objects' keys are enqueued while their range is held.
   */
  watchFor<T extends KubeObject>(informer: SharedIndexInformer<T>): ResourceEventHandlerRegistration {
    this.gate.addPrimary(informersCache([informer as unknown as SharedIndexInformer<KubeObject>]));
    const enqueue = (obj: T | DeletedFinalStateUnknown<T>): void => {
      const o = isDeletedFinalStateUnknown(obj) ? (obj.obj as T | undefined) : obj;
      const key = o !== undefined ? this.gate.recordPrimary(o) : (obj as DeletedFinalStateUnknown<T>).key;
      this.#offer(key);
    };
    return informer.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue });
  }

  /**
   * Follows objects owned by the controller's resource: their controller owner's key is enqueued,
   * sharded by the owner's uid. Create the informer with `shardKey: controllerShardKey`.
   */
  watchOwned<T extends KubeObject>(informer: SharedIndexInformer<T>, options: OwnedOptions): ResourceEventHandlerRegistration {
    this.gate.addFollower(informersCache([informer as unknown as SharedIndexInformer<KubeObject>]), options);
    const enqueue = (obj: T | DeletedFinalStateUnknown<T>): void => {
      const o = isDeletedFinalStateUnknown(obj) ? (obj.obj as T | undefined) : obj;
      if (o === undefined) return;
      for (const owner of ownersOf(o, options)) {
        this.gate.record(owner.key, owner.hash);
        this.#offer(owner.key);
      }
    };
    return informer.addEventHandler({
      onAdd: enqueue,
      onUpdate: (old, n) => {
        enqueue(old);
        enqueue(n);
      },
      onDelete: enqueue,
    });
  }

  /** Runs the controller (see {@link Controller.run}); run the ring and the informers beside it. */
  run({ signal }: { signal: AbortSignal }): Promise<void> {
    return this.controller.run({ signal });
  }

  /** Whether this replica works on `key` now. */
  owns(key: string): boolean {
    return this.gate.owns(key);
  }

  /** The ranges worked on now. */
  activeRanges(): ShardRange[] {
    return this.gate.activeRanges();
  }

  /** Figures for gauges (see {@link ShardingStatus}). */
  status(): ShardingStatus {
    return this.gate.status();
  }

  /**
   * A readiness check (for `/readyz`): an error until the replica renewed its Lease, received its
   * first ranges (or learned it owns none) and the controller's caches synced.
   */
  readyz(): () => Error | undefined {
    return this.gate.readyz();
  }

  #offer(key: string): void {
    if (key !== '' && this.gate.owns(key)) this.controller.add(key);
  }

  async #reconcile(key: string, ctx: ReconcileContext, reconcile: ReconcileFunc): Promise<ReconcileResult | void> {
    if (!this.gate.begin(key)) return undefined;
    try {
      return await reconcile(key, ctx);
    } finally {
      this.gate.end(key);
    }
  }
}
