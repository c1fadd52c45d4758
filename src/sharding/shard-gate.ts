/**
 * The three hooks that make a controller a member of a shard ring, apart from any one controller
 * loop: an enqueue filter by key hash, an in-flight map, and the ring listener (a revoke awaits the
 * in-flight keys of its ranges, a grant enqueues the cached keys of its ranges, a coverage change
 * moves the informers with `setShardSelector`). {@link ShardedController} puts them around
 * kubeloom's {@link Controller}; the Manager's `sharding` option (src/manager/sharding.ts) puts them
 * around the Manager's controllers. There is no upstream counterpart: controller-runtime has no
 * sharding (kubernetes-controller-sharding does it with labels and a central sharder instead).
 *
 * Keys are hashed by the uid of the primary object (for owned objects: the uid in their controller
 * ownerReference, which is the owner's uid). A key is admitted only while its hash is in the active
 * ranges; {@link ShardGate.begin} checks and registers a reconcile in one synchronous step, so a
 * revoke either waits for it or it never starts.
 */
import type { Gauge } from 'prom-client';
import type { OwnerReference } from '../api/meta/v1.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import { keyOf, namespaceOf } from '../apimachinery/meta.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { parseApiVersion } from '../apimachinery/object.ts';
import { fnv1a64, type Hash64 } from '../apimachinery/sharding/hash.ts';
import { ShardKeyField, ShardSelector, type ShardRange } from '../apimachinery/sharding/selector.ts';
import type { SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import { asPromRegistry, promClient } from '../util/prometheus/prom-client.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import { coarsenRanges, formatRanges, rangesFraction } from './ranges.ts';
import type { ShardRing } from './shard-ring.ts';

/**
 * Default {@link ShardGateOptions.maxSelectorRanges}: a member of a ring with 100 virtual nodes
 * holds at most ~100 ranges, so its selector stays whole in the steady state (about 10.5 KB
 * URL-encoded, under the 16 KiB request head Node's HTTP server accepts); only the transient union
 * of old and new ranges during a hand-over is coarsened.
 */
export const defaultMaxSelectorRanges = 100;

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
 * own uid. Give it as `shardKey` to the informers of owned objects.
 */
export function controllerShardKey(obj: KubeObject): string {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid ?? obj.metadata?.uid ?? '';
}

/**
 * A cache the gate moves and reads: one informer, or the per-namespace informers of one kind.
 * {@link informersCache} adapts informers to it.
 */
export interface ShardedCache {
  /** The objects cached now. */
  list(): readonly KubeObject[];
  /** The object cached under `key`, if any. */
  getByKey(key: string): KubeObject | undefined;
  /** Moves the cache to another selector (relisting as the informer does). */
  setShardSelector(selector: ShardSelector): void;
}

/**
 * The {@link ShardedCache} of informers created with a `shardSelector`; throws
 * {@link ShardNotReadyError} for one created without.
 */
export function informersCache(informers: ReadonlyArray<SharedIndexInformer<KubeObject>>): ShardedCache {
  for (const i of informers) {
    if (i.shardSelector() === undefined) throw new ShardNotReadyError(`the informer for ${i.objectDescription} must be created with a shardSelector (e.g. ShardSelector.none())`);
  }
  return {
    list: () => informers.flatMap((i) => i.getStore().list()),
    getByKey: (key) => {
      for (const i of informers) {
        const o = i.getStore().getByKey(key);
        if (o !== undefined) return o;
      }
      return undefined;
    },
    setShardSelector: (s) => {
      for (const i of informers) i.setShardSelector(s);
    },
  };
}

/** How owned objects map to their owner (the owner's kind, as `enqueueForOwner`). */
export interface OwnedOptions {
  /** The owner's kind, e.g. `PodSet`. */
  ownerKind: string;
  /** The owner's API group ('' for the core group). Default: any group. */
  group?: string;
  /** Follow every owner reference of the owner's kind, not only the controller one. Default false. */
  matchEveryOwner?: boolean;
}

/** An owner's request key and the hash of its uid. */
export interface OwnerShardKey {
  /** The owner's `namespace/name`. */
  key: string;
  /** FNV-1a 64 of the owner's uid. */
  hash: Hash64;
}

/** The owners of `obj` of the kind in `options`: their keys and the hashes of their uids. */
export function ownersOf(obj: KubeObject, options: OwnedOptions): OwnerShardKey[] {
  const matches = (ref: OwnerReference): boolean =>
    (options.matchEveryOwner === true || ref.controller === true) && ref.kind === options.ownerKind && (options.group === undefined || parseApiVersion(ref.apiVersion).group === options.group);
  return (obj.metadata?.ownerReferences ?? []).filter(matches).map((ref) => ({ key: keyOf(namespaceOf(obj), ref.name), hash: fnv1a64(ref.uid) }));
}

/** Options of a {@link ShardGate}. */
export interface ShardGateOptions {
  /** The ring this replica is a member of (shared by the controllers of one process). */
  ring: ShardRing;
  /** The controller's name (for messages and metric labels). */
  name: string;
  /** Puts a key in the controller's queue (for the keys of granted ranges). */
  enqueue: (key: string) => void;
  /** Whether the controller's caches synced (for {@link ShardGate.readyz}). */
  hasSynced: () => boolean;
  /**
   * Most `shardRange` terms in the informers' selectors (default 100): beyond, the smallest gaps
   * between ranges are cached too (see {@link coarsenRanges}). 0 = no limit.
   */
  maxSelectorRanges?: number;
}

/**
 * A controller's membership in a shard ring: which keys it may enqueue and reconcile now, and what
 * it does when its ranges change. Register it before the ring runs.
 *
 * @example
 * const gate = new ShardGate({ ring, name: 'podsets', enqueue: (k) => queue.add(k), hasSynced: () => informer.hasSynced() });
 * gate.addPrimary(informersCache([informer]));
 * // in the event handler: gate.record(key, fnv1a64(uid)); if (gate.owns(key)) queue.add(key);
 * // in the worker: if (!gate.begin(key)) return; try { await reconcile(key) } finally { gate.end(key) }
 */
export class ShardGate {
  /** The ring. */
  readonly ring: ShardRing;
  /** The controller's name. */
  readonly name: string;
  readonly #enqueue: (key: string) => void;
  readonly #hasSynced: () => boolean;
  #active: ShardSelector = ShardSelector.none();
  /** Key → hash of the uid it is sharded by (the primary object's). */
  readonly #hashes = new Map<string, Hash64>();
  /** Keys being reconciled now, with their hashes. */
  readonly #inFlight = new Map<string, Hash64>();
  #drained: Array<() => void> = [];
  readonly #primary: ShardedCache[] = [];
  /** Caches of owned objects, with how an object maps to its owners' keys and hashes. */
  readonly #followers: Array<{ cache: ShardedCache; ownersOf: (obj: KubeObject) => OwnerShardKey[] }> = [];
  #granted = false;

  constructor(options: ShardGateOptions) {
    this.ring = options.ring;
    this.name = options.name;
    this.#enqueue = options.enqueue;
    this.#hasSynced = options.hasSynced;
    const max = options.maxSelectorRanges ?? defaultMaxSelectorRanges;
    this.ring.addListener({
      onRevoke: (ranges) => this.#revoke(ranges),
      onGrant: (ranges) => this.#grant(ranges),
      onCoverage: (ranges) => {
        const sel = new ShardSelector(ShardKeyField.UID, coarsenRanges(ranges, max));
        for (const c of [...this.#primary, ...this.#followers.map((f) => f.cache)]) c.setShardSelector(sel);
      },
    });
  }

  /** Adds the cache of the controller's own resource (keyed by the objects' uids). */
  addPrimary(cache: ShardedCache): void {
    this.#primary.push(cache);
  }

  /** Adds a cache of owned objects, sharded by their owners' uids. */
  addFollower(cache: ShardedCache, options: OwnedOptions): void {
    this.#followers.push({ cache, ownersOf: (o) => ownersOf(o, options) });
  }

  /** Remembers the hash `key` is sharded by (from an event of its object or a dependent). */
  record(key: string, hash: Hash64): void {
    if (key !== '') this.#hashes.set(key, hash);
  }

  /** Records the key and hash of a primary object; returns its key. */
  recordPrimary(obj: KubeObject): string {
    const key = keyOf(namespaceOf(obj), obj.metadata?.name ?? '');
    const uid = obj.metadata?.uid;
    if (uid !== undefined) this.record(key, fnv1a64(uid));
    return key;
  }

  /** The hash `key` is sharded by: recorded, else its primary object's uid in the caches. */
  hashOf(key: string): Hash64 | undefined {
    const h = this.#hashes.get(key);
    if (h !== undefined) return h;
    for (const c of this.#primary) {
      const uid = c.getByKey(key)?.metadata?.uid;
      if (uid !== undefined) {
        const hash = fnv1a64(uid);
        this.#hashes.set(key, hash);
        return hash;
      }
    }
    return undefined;
  }

  /** Whether this replica works on `key` now (the enqueue filter). */
  owns(key: string): boolean {
    const h = this.hashOf(key);
    return h !== undefined && this.#active.matchesHash(h);
  }

  /**
   * Checks that `key` is owned and registers its reconcile as in flight, in one synchronous step;
   * false means: skip it (its range was revoked, the new owner reconciles it). Pair with {@link end}.
   */
  begin(key: string): boolean {
    const h = this.hashOf(key);
    if (h === undefined || !this.#active.matchesHash(h)) return false;
    this.#inFlight.set(key, h);
    return true;
  }

  /** Ends a reconcile registered by {@link begin}; a revoke waiting for it goes on. */
  end(key: string): void {
    this.#inFlight.delete(key);
    if (!this.#primary.some((c) => c.getByKey(key) !== undefined)) this.#hashes.delete(key);
    const waiters = this.#drained;
    this.#drained = [];
    for (const w of waiters) w();
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
      if (!this.#hasSynced()) return new ShardNotReadyError(`controller ${this.name}: caches not synced`);
      return undefined;
    };
  }

  /**
   * Gauges read at scrape time: controller_sharding_active_fraction, controller_sharding_active_ranges,
   * controller_sharding_members and controller_sharding_in_flight, labelled by controller, ring and identity.
   */
  registerGauges(metrics: PrometheusRegistry): void {
    const { Gauge } = promClient();
    const registry = asPromRegistry(metrics);
    const labelNames = ['controller', 'ring', 'identity'] as const;
    const labels = { controller: this.name, ring: this.ring.name, identity: this.ring.identity };
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
    gauge('controller_sharding_in_flight', 'Reconciles of this replica running now.', () => this.status().inFlight);
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
    for (const cache of this.#primary) {
      for (const obj of cache.list()) {
        const uid = obj.metadata?.uid;
        if (uid === undefined) continue;
        const h = fnv1a64(uid);
        if (!granted.matchesHash(h)) continue;
        const key = keyOf(namespaceOf(obj), obj.metadata?.name ?? '');
        this.#hashes.set(key, h);
        this.#enqueue(key);
      }
    }
    // Owners known only through their dependents (not, or not yet, in a primary cache).
    for (const { cache, ownersOf: owners } of this.#followers) {
      for (const obj of cache.list()) {
        for (const owner of owners(obj)) {
          if (!granted.matchesHash(owner.hash)) continue;
          this.#hashes.set(owner.key, owner.hash);
          this.#enqueue(owner.key);
        }
      }
    }
  }
}
