/**
 * The Manager's `sharding` option: the replicas of one controller binary split the objects of their
 * controllers among themselves by a shard ring (src/sharding) instead of electing one leader. There
 * is no upstream counterpart: controller-runtime runs a controller on its leader only, and
 * kubernetes-controller-sharding (timebertt) adds a central sharder and a webhook that label objects;
 * here the replicas coordinate through their own Leases (see docs/sharding.md).
 *
 * What the option does: (1) one {@link ShardRing} per Manager, over the Leases of
 * `sharding.namespace`, run in the caches group, so it starts before the controllers and stops after
 * them (its leave revokes everything and waits for the drains); (2) every controller the builder makes
 * is sharded (unless `withOptions({ sharded: false })`): a {@link ShardGate} filters what its event
 * handlers enqueue by key hash, registers each reconcile as in flight, and follows the ring (a revoke
 * awaits the in-flight keys of its ranges, a grant enqueues the cached keys of its ranges, a coverage
 * change moves the informers); (3) the cache's informers of the `for()` kind are created with
 * `shardSelector: ShardSelector.none()` (keyed by uid) and those of `owns()` kinds with
 * `shardKey: controllerShardKey`; (4) sharded controllers do not wait for leader election (they run in
 * the `others` group); (5) each sharded controller adds a `/readyz` check `sharding-<controller>` and
 * the `controller_sharding_*` gauges to the manager's registry.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Lease } from '../api/coordination/v1.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import { ShardSelector } from '../apimachinery/sharding/selector.ts';
import type { InformerCache } from '../cache/cache.ts';
import type { ResourceKind } from '../client/kinds.ts';
import type { EventHandler, RequestQueue } from '../handler/handler.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import { requestKey, type Request } from '../reconcile/reconcile.ts';
import type { RestClient } from '../rest/client.ts';
import { controllerShardKey, informersCache, ownersOf, ShardGate, type OwnedOptions } from '../sharding/shard-gate.ts';
import { ShardRing } from '../sharding/shard-ring.ts';
import type { SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import type { Logger } from '../tools/events/logger.ts';
import type { Clock } from '../util/clock/clock.ts';
import type { PrometheusRegistry } from '../util/prometheus/registry.ts';
import type { Checker } from './healthz.ts';
import { RunnableGroup, type Runnable } from './runnable.ts';

/** The Manager's `sharding` option: the ring its sharded controllers share. */
export interface ShardingOptions {
  /** The ring's name (the `sharding.kubeloom.io/ring` label of its Leases); required. */
  ring: string;
  /** Namespace of the ring's Leases. Default 'default' (in a cluster: the pod's namespace). */
  namespace?: string;
  /**
   * This replica's identity, unique in the ring (use the pod name); its Lease is `<ring>-<identity>`.
   * Default: the host name and 8 random hex digits.
   */
  identity?: string;
  /** How long the others wait after the last change of a Lease before its member is dead. Default 15,000 ms. */
  leaseDurationMs?: number;
  /** How long a replica keeps failing to renew before it revokes everything. Default 10,000 ms. */
  renewDeadlineMs?: number;
  /** Renewal and reassessment period. Default 2,000 ms. */
  retryPeriodMs?: number;
  /** Tokens per member on the hash ring. Default 100. */
  virtualNodes?: number;
  /** Most `shardRange` terms in an informer's selector (default 100; see `ShardGate`). */
  maxSelectorRanges?: number;
}

/** A sharded controller was added too late, or to a manager without the `sharding` option. */
export class ShardingConfigError extends KubeloomError {
  constructor(message: string) {
    super('ERR_SHARDING_CONFIG', message);
  }
}

/** How a sharded controller's watches map objects to keys (what the builder declares). */
export interface ShardedWatches {
  /** The `for()` kind: its objects are hashed by their own uid. */
  forKind?: ResourceKind<KubeObject, unknown>;
  /** The `owns()` kinds: their objects are hashed by their owner's uid. */
  owns: readonly ShardedOwnsWatch[];
}

/** One `owns()` watch of a sharded controller. */
export interface ShardedOwnsWatch {
  /** The owned kind. */
  kind: ResourceKind<KubeObject, unknown>;
  /** Whether every owner reference of the owner's kind counts, not only the controller one. */
  matchEveryOwner: boolean;
}

/** The sharding of a Manager: its ring, and the gates of its sharded controllers. */
export class ManagerSharding {
  /** The ring (one per Manager). */
  readonly ring: ShardRing;
  readonly #cache: InformerCache;
  readonly #maxSelectorRanges: number | undefined;
  readonly #gates: ShardGate[] = [];
  #started = false;

  constructor(options: ShardingOptions, deps: { rest: RestClient; cache: InformerCache; clock: Clock; logger: Logger }) {
    const namespace = options.namespace ?? 'default';
    const identity = options.identity ?? `${hostname().toLowerCase().replace(/[^a-z0-9-]/g, '-')}-${randomUUID().slice(0, 8)}`;
    const client = new ResourceClient<Lease>(deps.rest, { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, namespace });
    this.ring = new ShardRing({
      name: options.ring,
      namespace,
      identity,
      client,
      clock: deps.clock,
      logger: deps.logger,
      ...(options.leaseDurationMs !== undefined ? { leaseDurationMs: options.leaseDurationMs } : {}),
      ...(options.renewDeadlineMs !== undefined ? { renewDeadlineMs: options.renewDeadlineMs } : {}),
      ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
      ...(options.virtualNodes !== undefined ? { virtualNodes: options.virtualNodes } : {}),
    });
    this.#cache = deps.cache;
    this.#maxSelectorRanges = options.maxSelectorRanges;
  }

  /** The ring as a runnable of the caches group: started before the controllers, stopped after them. */
  runnable(): Runnable {
    return {
      runnableGroup: RunnableGroup.Caches,
      start: (signal) => {
        this.#started = true;
        return this.ring.run({ signal });
      },
    };
  }

  /** The gates of the sharded controllers, in the order they were added. */
  gates(): readonly ShardGate[] {
    return this.#gates;
  }

  /**
   * Shards the cache's informers of a controller's kinds (before they exist) and returns its gate;
   * `enqueue` puts a key in the controller's queue. Throws once the ring runs (a gate must see the
   * ring's first ranges).
   */
  addController(name: string, watches: ShardedWatches, enqueue: (key: string) => void, extras: { registry?: PrometheusRegistry; addReadyzCheck: (name: string, check: Checker) => void }): ShardGate {
    if (this.#started) throw new ShardingConfigError(`sharded controller ${name}: add it before the manager starts`);
    const cache = this.#cache;
    const gate = new ShardGate({
      ring: this.ring,
      name,
      enqueue,
      hasSynced: () => cache.hasSynced(),
      ...(this.#maxSelectorRanges !== undefined ? { maxSelectorRanges: this.#maxSelectorRanges } : {}),
    });
    const asCache = (kind: ResourceKind<KubeObject, unknown>): ReturnType<typeof informersCache> =>
      informersCache(cache.namespaceInformers(kind) as unknown as Array<SharedIndexInformer<KubeObject>>);
    if (watches.forKind !== undefined) {
      cache.shardKind(watches.forKind, { shardSelector: ShardSelector.none() });
      gate.addPrimary(asCache(watches.forKind));
      for (const o of watches.owns) {
        cache.shardKind(o.kind, { shardSelector: ShardSelector.none(), shardKey: controllerShardKey });
        gate.addFollower(asCache(o.kind), ownedOptions(watches.forKind, o.matchEveryOwner));
      }
    }
    if (extras.registry !== undefined) gate.registerGauges(extras.registry);
    extras.addReadyzCheck(`sharding-${name}`, gate.readyz());
    this.#gates.push(gate);
    return gate;
  }
}

function ownedOptions(owner: ResourceKind<unknown, unknown>, matchEveryOwner: boolean): OwnedOptions {
  return { ownerKind: owner.kind, group: owner.group, matchEveryOwner };
}

/** A queue that passes on only the requests of keys `gate` owns now (the enqueue filter). */
function filtered(gate: ShardGate, queue: RequestQueue): RequestQueue {
  return {
    add(request: Request, opts) {
      if (gate.owns(requestKey(request))) queue.add(request, opts);
    },
  };
}

/**
 * `handler` behind the gate: the keys of the objects of each event are recorded first (by `role`:
 * `for` hashes an object by its uid, `owns` by its owner's uid, `watches` records nothing and relies
 * on the `for()` cache), then the handler enqueues through the enqueue filter.
 */
export function shardedHandler<T extends KubeObject>(gate: ShardGate, handler: EventHandler<T>, role: { for: true } | { owns: ResourceKind<unknown, unknown>; matchEveryOwner: boolean } | { watches: true }): EventHandler<T> {
  const record = (obj: T | undefined): void => {
    if (obj === undefined) return;
    if ('for' in role) gate.recordPrimary(obj);
    else if ('owns' in role) for (const o of ownersOf(obj, ownedOptions(role.owns, role.matchEveryOwner))) gate.record(o.key, o.hash);
  };
  const out: EventHandler<T> = {};
  if (handler.create !== undefined) {
    out.create = (e, q) => {
      record(e.object);
      handler.create!(e, filtered(gate, q));
    };
  }
  if (handler.update !== undefined) {
    out.update = (e, q) => {
      record(e.objectOld);
      record(e.objectNew);
      handler.update!(e, filtered(gate, q));
    };
  }
  if (handler.delete !== undefined) {
    out.delete = (e, q) => {
      record(e.object);
      handler.delete!(e, filtered(gate, q));
    };
  }
  if (handler.generic !== undefined) {
    out.generic = (e, q) => {
      record(e.object);
      handler.generic!(e, filtered(gate, q));
    };
  }
  return out;
}
