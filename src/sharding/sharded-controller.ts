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
 * enqueued, and is dropped if dequeued after its range was revoked.
 */
import type { OwnerReference } from '../api/meta/v1.ts';
import { keyOf, namespaceOf } from '../apimachinery/meta.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { parseApiVersion } from '../apimachinery/object.ts';
import { fnv1a64, type Hash64 } from '../apimachinery/sharding/hash.ts';
import { ShardKeyField, ShardSelector, type ShardRange } from '../apimachinery/sharding/selector.ts';
import { Controller, type ControllerOptions, type ReconcileContext, type ReconcileFunc, type ReconcileResult } from '../controller/controller.ts';
import { isDeletedFinalStateUnknown, type DeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import type { ResourceEventHandlerRegistration, SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { Gauge } from 'prom-client';
import { asPromRegistry, promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { coarsenRanges, formatRanges, rangesFraction } from './ranges.ts';

/**
 * Default {@link ShardedControllerOptions.maxSelectorRanges}: a member of a ring with 100 virtual
 * nodes holds at most ~100 ranges, so its selector stays whole in the steady state (about 10.5 KB
 * URL-encoded, under the 16 KiB request head Node's HTTP server accepts); only the transient union
 * of old and new ranges during a hand-over is coarsened.
 */
export const defaultMaxSelectorRanges = 100;
import type { ShardRing } from './shard-ring.ts';

/** Options of a {@link ShardedController}: a controller's options and its ring. */
export interface ShardedControllerOptions extends ControllerOptions {
  /** The ring this replica is a member of (shared by the controllers of one process). */
  ring: ShardRing;
  /**
   * Most `shardRange` terms in the informers' selectors (default 100): beyond, the smallest gaps
   * between ranges are cached too (see {@link coarsenRanges}). 0 = no limit.
   */
  maxSelectorRanges?: number;
}

/** How owned objects map to their owner (the owner's kind, as `enqueueForOwner`). */
export interface OwnedOptions {
  /** The owner's kind, e.g. `PodSet`. */
  ownerKind: string;
  /** The owner's API group ('' for the core group). Default: any group. */
  group?: string;
}

/** What a sharded controller exposes for metrics and readiness. */
export interface ShardingStatus {
  /** The ring's name. */
  ring: string;
  /** This replica's identity. */
  identity: string;
  /** Live members of the ring, as this replica sees them. */
  members: number;
  /** The ranges this replica works on now, in {@link formatRanges} text. */
  activeRanges: string;
  /** How many disjoint ranges those are. */
  activeRangeCount: number;
  /** The share of the hash space they cover, in [0, 1]. */
  activeFraction: number;
  /** Reconciles running now. */
  inFlight: number;
}

/** The controller has not joined its ring or synced its caches yet (its readiness check's error). */
export class ShardNotReadyError extends KubeloomError {
  constructor(message: string) {
    super('ERR_SHARD_NOT_READY', message);
  }
}

/**
 * The shard key of an owned object for client-side filtering: its controller owner's uid, else its
 * own uid. Give it as `shardKey` to the informers passed to {@link ShardedController.watchOwned}.
 */
export function controllerShardKey(obj: KubeObject): string {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid ?? obj.metadata?.uid ?? '';
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
  #active: ShardSelector = ShardSelector.none();
  /** Key → hash of the uid it is sharded by (the primary object's). */
  readonly #hashes = new Map<string, Hash64>();
  /** Keys being reconciled now, with their hashes. */
  readonly #inFlight = new Map<string, Hash64>();
  #drained: Array<() => void> = [];
  readonly #primary: SharedIndexInformer<KubeObject>[] = [];
  /** Informers of owned objects, with how an object maps to its owner's key and hash. */
  readonly #followers: Array<{ informer: SharedIndexInformer<KubeObject>; ownerOf: (obj: KubeObject) => { key: string; hash: Hash64 } | undefined }> = [];
  #granted = false;

  constructor(options: ShardedControllerOptions) {
    const reconcile = options.reconcile;
    this.ring = options.ring;
    this.controller = new Controller({ ...options, reconcile: (key, ctx) => this.#reconcile(key, ctx, reconcile) });
    if (options.metrics !== undefined) this.#registerGauges(options.metrics);
    this.ring.addListener({
      onRevoke: (ranges) => this.#revoke(ranges),
      onGrant: (ranges) => this.#grant(ranges),
      onCoverage: (ranges) => {
        const sel = new ShardSelector(ShardKeyField.UID, coarsenRanges(ranges, options.maxSelectorRanges ?? defaultMaxSelectorRanges));
        for (const i of [...this.#primary, ...this.#followers.map((f) => f.informer)]) i.setShardSelector(sel);
      },
    });
  }

  /**
   * Follows the controller's own resource: the informer (created with a `shardSelector`) is kept on
   * this replica's ranges and its objects' keys are enqueued while their range is held.
   */
  watchFor<T extends KubeObject>(informer: SharedIndexInformer<T>): ResourceEventHandlerRegistration {
    const i = this.#checked(informer);
    this.#primary.push(i);
    const enqueue = (obj: T | DeletedFinalStateUnknown<T>): void => {
      const o = isDeletedFinalStateUnknown(obj) ? (obj.obj as T | undefined) : obj;
      const key = isDeletedFinalStateUnknown(obj) ? obj.key : keyOf(namespaceOf(obj), obj.metadata?.name ?? '');
      const uid = o?.metadata?.uid;
      if (uid !== undefined) this.#hashes.set(key, fnv1a64(uid));
      this.#offer(key);
    };
    return informer.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue });
  }

  /**
   * Follows objects owned by the controller's resource: their controller owner's key is enqueued,
   * sharded by the owner's uid. Create the informer with `shardKey: controllerShardKey`.
   */
  watchOwned<T extends KubeObject>(informer: SharedIndexInformer<T>, options: OwnedOptions): ResourceEventHandlerRegistration {
    const i = this.#checked(informer);
    const matches = (ref: OwnerReference): boolean =>
      ref.controller === true && ref.kind === options.ownerKind && (options.group === undefined || parseApiVersion(ref.apiVersion).group === options.group);
    const ownerOf = (o: KubeObject): { key: string; hash: Hash64 } | undefined => {
      const ref = o.metadata?.ownerReferences?.find(matches);
      return ref === undefined ? undefined : { key: keyOf(namespaceOf(o), ref.name), hash: fnv1a64(ref.uid) };
    };
    this.#followers.push({ informer: i, ownerOf });
    const enqueue = (obj: T | DeletedFinalStateUnknown<T>): void => {
      const o = isDeletedFinalStateUnknown(obj) ? (obj.obj as T | undefined) : obj;
      const owner = o === undefined ? undefined : ownerOf(o);
      if (owner === undefined) return;
      this.#hashes.set(owner.key, owner.hash);
      this.#offer(owner.key);
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
    const h = this.#hashes.get(key);
    return h !== undefined && this.#active.matchesHash(h);
  }

  /** The ranges worked on now. */
  activeRanges(): ShardRange[] {
    return this.#active.merged();
  }

  /** Figures for gauges (see {@link ShardingStatus}). */
  status(): ShardingStatus {
    const active = this.#active.merged();
    return {
      ring: this.ring.name,
      identity: this.ring.identity,
      members: this.ring.status().members.length,
      activeRanges: formatRanges(active),
      activeRangeCount: active.length,
      activeFraction: rangesFraction(active),
      inFlight: this.#inFlight.size,
    };
  }

  /**
   * A readiness check (for `/readyz`): an error until the replica renewed its Lease, received its
   * first ranges (or learned it owns none) and the controller's caches synced.
   */
  readyz(): () => Error | undefined {
    return () => {
      const s = this.ring.status();
      if (s.lastRenewal === undefined) return new ShardNotReadyError(`shard ring ${this.ring.name}: no lease held`);
      if (!this.#granted && s.desired.length > 0) return new ShardNotReadyError(`shard ring ${this.ring.name}: waiting for ranges to be handed over`);
      if (!this.controller.hasSynced()) return new ShardNotReadyError(`controller ${this.controller.name}: caches not synced`);
      return undefined;
    };
  }

  /**
   * Gauges read at scrape time: controller_sharding_active_fraction, controller_sharding_active_ranges
   * and controller_sharding_members, labelled by controller, ring and identity.
   */
  #registerGauges(metrics: PrometheusRegistry): void {
    const { Gauge } = promClient();
    const registry = asPromRegistry(metrics);
    const labelNames = ['controller', 'ring', 'identity'] as const;
    const labels = { controller: this.controller.name, ring: this.ring.name, identity: this.ring.identity };
    const gauge = (name: string, help: string, value: () => number): void => {
      const existing = registry.getSingleMetric(name) as Gauge<(typeof labelNames)[number]> | undefined;
      const g = existing ?? new Gauge({ name, help, labelNames, registers: [registry] });
      // Each controller refreshes its own series when the registry is scraped.
      const previous = (g as unknown as { collect?: () => void }).collect;
      (g as unknown as { collect: () => void }).collect = () => {
        previous?.call(g);
        g.set(labels, value());
      };
    };
    gauge('controller_sharding_active_fraction', 'Share of the hash space this replica works on.', () => this.status().activeFraction);
    gauge('controller_sharding_active_ranges', 'Disjoint hash ranges this replica works on.', () => this.status().activeRangeCount);
    gauge('controller_sharding_members', 'Live members of the shard ring, as this replica sees them.', () => this.status().members);
  }

  #checked<T extends KubeObject>(informer: SharedIndexInformer<T>): SharedIndexInformer<KubeObject> {
    if (informer.shardSelector() === undefined) throw new ShardNotReadyError(`the informer for ${informer.objectDescription} must be created with a shardSelector (e.g. ShardSelector.none())`);
    return informer as unknown as SharedIndexInformer<KubeObject>;
  }

  #offer(key: string): void {
    if (key !== '' && this.owns(key)) this.controller.add(key);
  }

  async #reconcile(key: string, ctx: ReconcileContext, reconcile: ReconcileFunc): Promise<ReconcileResult | void> {
    const h = this.#hashes.get(key);
    // Checked and registered in one step: a revoke either sees this reconcile or it never starts.
    if (h === undefined || !this.#active.matchesHash(h)) return undefined;
    this.#inFlight.set(key, h);
    try {
      return await reconcile(key, ctx);
    } finally {
      this.#inFlight.delete(key);
      if (!this.#primary.some((i) => i.getStore().getByKey(key) !== undefined)) this.#hashes.delete(key);
      const waiters = this.#drained;
      this.#drained = [];
      for (const w of waiters) w();
    }
  }

  async #revoke(ranges: readonly ShardRange[]): Promise<void> {
    const revoked = new ShardSelector(ShardKeyField.UID, ranges);
    this.#active = new ShardSelector(ShardKeyField.UID, this.ring.activeRanges());
    const busy = (): boolean => [...this.#inFlight.values()].some((h) => revoked.matchesHash(h));
    while (busy()) await new Promise<void>((resolve) => this.#drained.push(resolve));
  }

  #grant(ranges: readonly ShardRange[]): void {
    this.#granted = true;
    this.#active = new ShardSelector(ShardKeyField.UID, this.ring.activeRanges());
    const granted = new ShardSelector(ShardKeyField.UID, ranges);
    for (const informer of this.#primary) {
      for (const obj of informer.getStore().list()) {
        const uid = obj.metadata?.uid;
        if (uid === undefined) continue;
        const h = fnv1a64(uid);
        if (!granted.matchesHash(h)) continue;
        const key = keyOf(namespaceOf(obj), obj.metadata?.name ?? '');
        this.#hashes.set(key, h);
        this.controller.add(key);
      }
    }
    // Owners known only through their dependents (not, or not yet, in a primary cache).
    for (const { informer, ownerOf } of this.#followers) {
      for (const obj of informer.getStore().list()) {
        const owner = ownerOf(obj);
        if (owner === undefined || !granted.matchesHash(owner.hash)) continue;
        this.#hashes.set(owner.key, owner.hash);
        this.controller.add(owner.key);
      }
    }
  }
}
