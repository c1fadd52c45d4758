/**
 * A shard ring without a coordinator: every replica of a controller holds a Lease of its own
 * (coordination.k8s.io/v1, labelled with the ring's name), learns the ring's members from the
 * ring's Leases, and computes its hash ranges with consistent hashing ({@link HashRing}). Modelled
 * on timebertt/kubernetes-controller-sharding's shard Leases, with the sharder's job (assignment,
 * drain, hand-over) done by the replicas themselves; timing rules from client-go's leader election
 * (tools/leaderelection: a member is taken for dead only after its Lease did not change for a lease
 * duration on the observer's own clock, and a replica stops working when it could not renew for a
 * renew deadline, shorter than the lease duration).
 *
 * Hand-over, so that no two replicas ever work on the same range at once:
 * - Each Lease lists in the `sharding.kubeloom.io/claims` annotation the ranges its holder holds.
 * - A replica that no longer owns a range stops working on it, waits for in-flight work on it
 *   (its listeners' `onRevoke`), and only then writes its claims without it: that write is the
 *   acknowledgment.
 * - A replica takes a range it owns only when no live member claims it: it writes its claim, then
 *   reads the Leases again with a quorum LIST; if another live member claims any of it, it withdraws
 *   that part and retries later. Of two replicas claiming at once, the later write always sees the
 *   earlier in its LIST, so at most one proceeds. Only then is the range granted (`onGrant`).
 * - Claims of a member whose Lease expired (no change seen for its lease duration) are void. The
 *   holder itself revokes everything once it failed to renew for the renew deadline, before any
 *   other replica may consider it expired.
 */
import type { Lease } from '../api/coordination/v1.ts';
import type { KubeList } from '../apimachinery/object.ts';
import type { DeleteOptions, ListOptions, RequestOptions, UpdateOptions, CreateOptions } from '../apimachinery/options.ts';
import type { Watch } from '../apimachinery/watch.ts';
import { KubeloomError, isConflict, isNotFound } from '../apimachinery/errors.ts';
import type { ShardRange } from '../apimachinery/sharding/selector.ts';
import { realClock, type Clock, type Timer } from '../util/clock/clock.ts';
import { formatMicroTime } from '../tools/events/meta-time.ts';
import { newListWatchFromClient } from '../tools/cache/listwatch.ts';
import { isDeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import { SharedIndexInformer } from '../tools/cache/shared-informer.ts';
import { defaultLogger, type Logger } from '../tools/events/logger.ts';
import { HashRing, defaultVirtualNodes } from './hash-ring.ts';
import { formatRanges, intersectRanges, parseRanges, sameRanges, subtractRanges, unionRanges } from './ranges.ts';

/** The label naming a Lease's ring. */
export const RingLabel = 'sharding.kubeloom.io/ring';
/** The annotation listing the ranges a Lease's holder holds ({@link formatRanges} text). */
export const ClaimsAnnotation = 'sharding.kubeloom.io/claims';

/** Lease duration, renew deadline and retry period: leader election's defaults (component-base). */
export const defaultRingLeaseDurationMs = 15_000;
/** See {@link defaultRingLeaseDurationMs}. */
export const defaultRingRenewDeadlineMs = 10_000;
/** See {@link defaultRingLeaseDurationMs}. */
export const defaultRingRetryPeriodMs = 2_000;

/** The Lease operations of a ring, in its namespace (`clientset.coordinationV1().leases(namespace)` fits). */
export interface RingLeaseClient {
  /** Reads a Lease. */
  get(name: string, options?: RequestOptions): Promise<Lease>;
  /** Creates a Lease. */
  create(lease: Lease, options?: CreateOptions): Promise<Lease>;
  /** Updates a Lease (optimistic concurrency on resourceVersion). */
  update(lease: Lease, options?: UpdateOptions): Promise<Lease>;
  /** Deletes a Lease. */
  delete(name: string, options?: DeleteOptions): Promise<unknown>;
  /** Lists Leases. */
  list(options: ListOptions): Promise<KubeList<Lease>>;
  /** Watches Leases. */
  watch(options: ListOptions): Promise<Watch<Lease>>;
}

/** Told when this replica's ranges change. */
export interface ShardRingListener {
  /**
   * Stop working on these ranges; resolve once no work on them is in flight. The ring writes the
   * release only afterwards. Also called with everything when the replica lost its Lease.
   */
  onRevoke(ranges: readonly ShardRange[]): Promise<void>;
  /** Work on these ranges may start (no other live member holds them). */
  onGrant(ranges: readonly ShardRange[]): void;
  /**
   * The ranges this replica needs in its caches changed: the ranges it owns on the ring plus those
   * it still holds. Caches should follow before the ranges are granted.
   */
  onCoverage?(ranges: readonly ShardRange[]): void;
}

/** Options of a {@link ShardRing}. */
export interface ShardRingOptions {
  /** The ring's name (the value of the {@link RingLabel} label). */
  name: string;
  /** Namespace of the ring's Leases. */
  namespace: string;
  /** This replica's identity, unique in the ring (e.g. the pod name); its Lease is `<name>-<identity>`. */
  identity: string;
  /** Lease client for `namespace`. */
  client: RingLeaseClient;
  /** How long others wait after the last change they saw of a Lease before its member is dead (default 15 s). */
  leaseDurationMs?: number;
  /** How long a replica keeps failing to renew before it revokes everything (default 10 s; < leaseDurationMs). */
  renewDeadlineMs?: number;
  /** Renewal and reassessment period (default 2 s). */
  retryPeriodMs?: number;
  /** Tokens per member on the hash ring (default 100). */
  virtualNodes?: number;
  /** Delete Leases whose member has been dead this long (default 5 lease durations; 0 = never). */
  deadLeaseCleanupMs?: number;
  /** Time source (default: the real clock). */
  clock?: Clock;
  /** Random source in [0, 1) for the back-off after a contested claim (default Math.random). */
  random?: () => number;
  /** Where the ring logs (default: errors to stderr). */
  logger?: Logger;
}

/** Invalid ring options. */
export class ShardRingConfigError extends KubeloomError {
  constructor(message: string) {
    super('ERR_SHARD_RING_CONFIG', message);
  }
}

/** A member of the ring as this replica sees it. */
export interface RingMember {
  /** The member's identity. */
  identity: string;
  /** The ranges its Lease says it holds. */
  claims: ShardRange[];
  /** Whether its Lease changed within its lease duration (by this replica's clock). */
  alive: boolean;
}

/** What a replica last saw of one Lease. */
interface Observation {
  lease: Lease;
  resourceVersion: string;
  observedAt: number;
}

/** A snapshot of a replica's view, for metrics, readiness and tests. */
export interface ShardRingStatus {
  /** Live members (this replica included once it holds its Lease). */
  members: string[];
  /** Ranges this replica owns on the ring. */
  desired: ShardRange[];
  /** Ranges its Lease claims. */
  claimed: ShardRange[];
  /** Ranges it may work on now. */
  active: ShardRange[];
  /** When it last renewed its Lease (clock ms), undefined before the first renewal. */
  lastRenewal: number | undefined;
}

/**
 * One replica's membership in a shard ring.
 *
 * @example
 * const ring = new ShardRing({ name: 'widgets', namespace: 'ops', identity: podName, client: cs.coordinationV1().leases('ops') });
 * ring.addListener({ onGrant: (r) => start(r), onRevoke: async (r) => stopAndDrain(r) });
 * await ring.run({ signal });
 */
export class ShardRing {
  /** The ring's name. */
  readonly name: string;
  /** This replica's identity. */
  readonly identity: string;
  /** This replica's Lease name. */
  readonly leaseName: string;
  readonly #namespace: string;
  readonly #client: RingLeaseClient;
  readonly #leaseMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryMs: number;
  readonly #virtualNodes: number;
  readonly #cleanupMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: Logger;
  readonly #listeners: ShardRingListener[] = [];
  readonly #observed = new Map<string, Observation>();
  readonly #informer: SharedIndexInformer<Lease>;
  #own: Lease | undefined;
  #desired: ShardRange[] = [];
  #claimed: ShardRange[] = [];
  /** The claims the last successful Lease write carried: only those are visible to the others. */
  #written: ShardRange[] = [];
  #active: ShardRange[] = [];
  #coverage: ShardRange[] = [];
  #members: string[] = [];
  #lastRenewal: number | undefined;
  #fence: Timer | undefined;
  /** Bumped when everything was revoked for a missed renew deadline: a tick in flight must not grant. */
  #epoch = 0;
  #acquireNotBefore = 0;
  #wake: (() => void) | undefined;
  #dirty = false;
  #writing: Promise<void> = Promise.resolve();

  constructor(options: ShardRingOptions) {
    this.name = options.name;
    this.identity = options.identity;
    this.leaseName = `${options.name}-${options.identity}`;
    this.#namespace = options.namespace;
    this.#client = options.client;
    this.#leaseMs = options.leaseDurationMs ?? defaultRingLeaseDurationMs;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? defaultRingRenewDeadlineMs;
    this.#retryMs = options.retryPeriodMs ?? defaultRingRetryPeriodMs;
    this.#virtualNodes = options.virtualNodes ?? defaultVirtualNodes;
    this.#cleanupMs = options.deadLeaseCleanupMs ?? 5 * this.#leaseMs;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger ?? defaultLogger;
    if (!(this.#leaseMs > this.#renewDeadlineMs)) throw new ShardRingConfigError('leaseDurationMs must be greater than renewDeadlineMs');
    if (!(this.#renewDeadlineMs > this.#retryMs)) throw new ShardRingConfigError('renewDeadlineMs must be greater than retryPeriodMs');
    if (this.#leaseMs % 1000 !== 0) throw new ShardRingConfigError('leaseDurationMs must be whole seconds (a Lease stores seconds)');
    this.#informer = new SharedIndexInformer<Lease>(newListWatchFromClient(options.client, { labelSelector: `${RingLabel}=${options.name}` }), {
      clock: this.#clock,
      objectDescription: `leases of ring ${options.name}`,
    });
    this.#informer.addEventHandler({
      onAdd: (l) => this.#observe(l),
      onUpdate: (_o, l) => this.#observe(l),
      onDelete: (l) => {
        // A deleted Lease is a member that left (or was cleaned up): its claims are gone with it.
        const name = isDeletedFinalStateUnknown(l) ? l.key.slice(l.key.indexOf('/') + 1) : (l.metadata?.name ?? '');
        if (name !== this.leaseName) this.#observed.delete(name);
        this.#poke();
      },
    });
  }

  /** Registers a listener (before {@link ShardRing.run}). */
  addListener(listener: ShardRingListener): void {
    this.#listeners.push(listener);
  }

  /** This replica's current view. */
  status(): ShardRingStatus {
    return { members: [...this.#members], desired: [...this.#desired], claimed: [...this.#claimed], active: [...this.#active], lastRenewal: this.#lastRenewal };
  }

  /** The ranges this replica may work on now. */
  activeRanges(): ShardRange[] {
    return [...this.#active];
  }

  /** The members as this replica sees them, from the ring's Leases. */
  members(): RingMember[] {
    const now = this.#clock.now();
    return [...this.#observed.values()].map((o) => ({ identity: o.lease.spec?.holderIdentity ?? '', claims: parseRanges(o.lease.metadata?.annotations?.[ClaimsAnnotation]), alive: this.#alive(o, now) }));
  }

  /**
   * Joins the ring and follows it until `signal` aborts; then revokes everything, waits for the
   * listeners, and deletes its Lease so that the others take over at once.
   */
  async run({ signal }: { signal: AbortSignal }): Promise<void> {
    const informerStop = new AbortController();
    const informing = this.#informer.run({ signal: informerStop.signal });
    try {
      while (!signal.aborted && !this.#informer.hasSynced()) {
        try {
          await this.#clock.sleep(50, signal);
        } catch {
          break;
        }
      }
      // Renewals run on their own, so that a long drain never delays them past the renew deadline.
      const renewing = (async () => {
        while (!signal.aborted) {
          await this.#renew(signal);
          try {
            await this.#clock.sleep(this.#retryMs, signal);
          } catch {
            break;
          }
        }
      })();
      while (!signal.aborted) {
        try {
          await this.#tick(signal);
        } catch (err) {
          if (signal.aborted) break;
          this.#logger.error(`shard ring ${this.name}: ${err instanceof Error ? err.message : String(err)}`, { identity: this.identity });
        }
        await this.#waitForWork(signal);
      }
      await renewing;
    } finally {
      this.#fence?.stop();
      await this.#leave();
      informerStop.abort();
      await informing;
    }
  }

  /** Wakes the loop (a Lease changed). */
  #poke(): void {
    this.#dirty = true;
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  }

  async #waitForWork(signal: AbortSignal): Promise<void> {
    if (this.#dirty) {
      this.#dirty = false;
      return;
    }
    // Wake at the next expiry of a member's Lease rather than on the next retry tick, so that a dead
    // member's ranges are taken over a lease duration after its last renewal was seen, not up to a
    // retry period later.
    const delay = Math.max(0, Math.min(this.#retryMs, this.#nextExpiry() - this.#clock.now()));
    await new Promise<void>((resolve) => {
      const timer = this.#clock.afterFunc(delay, () => finish());
      const onAbort = (): void => finish();
      const finish = (): void => {
        timer.stop();
        signal.removeEventListener('abort', onAbort);
        this.#wake = undefined;
        resolve();
      };
      this.#wake = finish;
      signal.addEventListener('abort', onAbort, { once: true });
    });
    this.#dirty = false;
  }

  #observe(lease: Lease): void {
    const name = lease.metadata?.name ?? '';
    const rv = lease.metadata?.resourceVersion ?? '';
    const prev = this.#observed.get(name);
    if (prev === undefined || prev.resourceVersion !== rv) {
      this.#observed.set(name, { lease, resourceVersion: rv, observedAt: this.#clock.now() });
      if (name !== this.leaseName) this.#poke();
    }
  }

  /** The earliest local time at which a member now alive (other than this replica) expires; Infinity if none. */
  #nextExpiry(): number {
    const now = this.#clock.now();
    let next = Infinity;
    for (const [name, o] of this.#observed) {
      if (name === this.leaseName || !this.#alive(o, now)) continue;
      next = Math.min(next, o.observedAt + (o.lease.spec?.leaseDurationSeconds ?? this.#leaseMs / 1000) * 1000);
    }
    return next;
  }

  #alive(o: Observation, now: number): boolean {
    const holder = o.lease.spec?.holderIdentity ?? '';
    if (holder === '') return false;
    const duration = (o.lease.spec?.leaseDurationSeconds ?? this.#leaseMs / 1000) * 1000;
    return now - o.observedAt < duration;
  }

  /** Claims of live members other than this replica. */
  #othersClaims(now: number): ShardRange[] {
    let out: ShardRange[] = [];
    for (const [name, o] of this.#observed) {
      if (name === this.leaseName || !this.#alive(o, now)) continue;
      out = unionRanges(out, parseRanges(o.lease.metadata?.annotations?.[ClaimsAnnotation]));
    }
    return out;
  }

  /** One round: renew, recompute the ring, release what is no longer ours, take what is free. */
  async #tick(signal: AbortSignal): Promise<void> {
    const epoch = this.#epoch;
    if (this.#lastRenewal === undefined) return;
    const now = this.#clock.now();
    // Dead Leases are removed after a while, so that crashed replicas do not pile up.
    if (this.#cleanupMs > 0) await this.#cleanup(now);
    const members = [this.identity];
    for (const [name, o] of this.#observed) if (name !== this.leaseName && this.#alive(o, now)) members.push(o.lease.spec!.holderIdentity!);
    const ring = new HashRing(members, this.#virtualNodes);
    this.#members = [...ring.members];
    this.#desired = ring.rangesOf(this.identity);
    this.#updateCoverage();

    // Release: stop, drain, then acknowledge by writing the claims without the lost ranges.
    const lost = subtractRanges(this.#active, this.#desired);
    if (lost.length > 0) {
      this.#active = subtractRanges(this.#active, lost);
      await this.#revoke(lost);
    }
    const release = subtractRanges(this.#claimed, this.#desired);
    if (release.length > 0) {
      this.#claimed = subtractRanges(this.#claimed, release);
      await this.#renew(signal);
      this.#updateCoverage();
    }
    if (epoch !== this.#epoch || now < this.#acquireNotBefore) return;

    // Acquire: claim what is ours and free, then verify against a quorum read before granting.
    const free = subtractRanges(subtractRanges(this.#desired, this.#claimed), this.#othersClaims(now));
    if (free.length > 0) {
      this.#claimed = unionRanges(this.#claimed, free);
      await this.#renew(signal);
    }
    // Only claims a successful write published may be verified: the others cannot see the rest.
    const pending = subtractRanges(intersectRanges(intersectRanges(this.#claimed, this.#written), this.#desired), this.#active);
    if (pending.length === 0 || this.#lastRenewal === undefined) return;
    const fresh = await this.#client.list({ labelSelector: `${RingLabel}=${this.name}`, resourceVersion: '', signal });
    for (const l of fresh.items) this.#observe(l);
    const conflicts = intersectRanges(pending, this.#othersClaims(this.#clock.now()));
    if (conflicts.length > 0) {
      // Contested (the members see different rings for now): withdraw and retry after a random pause.
      this.#claimed = subtractRanges(this.#claimed, conflicts);
      this.#acquireNotBefore = this.#clock.now() + this.#retryMs * (1 + this.#random());
      await this.#renew(signal);
    }
    const granted = subtractRanges(pending, conflicts);
    if (granted.length === 0 || epoch !== this.#epoch) return;
    this.#active = unionRanges(this.#active, granted);
    for (const l of this.#listeners) {
      try {
        l.onGrant(granted);
      } catch (err) {
        this.#logger.error(`shard ring ${this.name}: onGrant failed: ${err instanceof Error ? err.message : String(err)}`, {});
      }
    }
  }

  #updateCoverage(): void {
    const coverage = unionRanges(this.#desired, this.#claimed);
    if (sameRanges(coverage, this.#coverage)) return;
    this.#coverage = coverage;
    for (const l of this.#listeners) l.onCoverage?.(coverage);
  }

  async #revoke(ranges: ShardRange[]): Promise<void> {
    await Promise.all(
      this.#listeners.map(async (l) => {
        try {
          await l.onRevoke(ranges);
        } catch (err) {
          this.#logger.error(`shard ring ${this.name}: onRevoke failed: ${err instanceof Error ? err.message : String(err)}`, {});
        }
      }),
    );
  }

  /** Writes this replica's Lease (renewTime and claims), one write at a time. */
  #renew(signal: AbortSignal): Promise<void> {
    const next = this.#writing.then(() => this.#write(signal));
    this.#writing = next;
    return next;
  }

  /** One Lease write; on success re-arms the renew-deadline fence. Never rejects. */
  async #write(signal: AbortSignal): Promise<void> {
    const attempt = this.#clock.now();
    const abort = new AbortController();
    // As leader election, one attempt may take up to the renew deadline (the fence acts regardless).
    const timer = this.#clock.afterFunc(this.#renewDeadlineMs, () => abort.abort(new KubeloomError('ERR_SHARD_RING_TIMEOUT', 'lease write timed out')));
    const opts = { signal: AbortSignal.any([signal, abort.signal]) };
    try {
      const desired = (base: Lease | undefined, claims: ShardRange[]): Lease => ({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          ...base?.metadata,
          name: this.leaseName,
          namespace: this.#namespace,
          labels: { ...base?.metadata?.labels, [RingLabel]: this.name },
          annotations: { ...base?.metadata?.annotations, [ClaimsAnnotation]: formatRanges(claims) },
        },
        spec: {
          ...base?.spec,
          holderIdentity: this.identity,
          leaseDurationSeconds: this.#leaseMs / 1000,
          renewTime: formatMicroTime(attempt),
          ...(base?.spec?.acquireTime === undefined || base.spec.holderIdentity !== this.identity ? { acquireTime: formatMicroTime(attempt) } : {}),
        },
      });
      try {
        if (this.#own === undefined) {
          try {
            this.#own = await this.#client.get(this.leaseName, opts);
          } catch (err) {
            if (!isNotFound(err)) throw err;
            // A fresh Lease claims nothing. If ours vanished while we held ranges (deleted by hand), the
            // others may take them any time now: give them up first.
            if (this.#active.length > 0) this.#fenced();
            this.#claimed = [];
            this.#own = await this.#client.create(desired(undefined, []), opts);
            this.#written = [];
            this.#renewed(attempt);
            this.#poke();
            return;
          }
          if (this.#lastRenewal === undefined) this.#claimed = [];
        }
        const first = this.#lastRenewal === undefined;
        const sent = first ? [] : this.#claimed;
        this.#own = await this.#client.update(desired(this.#own, sent), opts);
        this.#written = sent;
        this.#renewed(attempt);
        if (first) this.#poke();
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) this.#own = undefined;
        if (signal.aborted) return;
        this.#logger.error(`shard ring ${this.name}: renewing lease ${this.leaseName} failed: ${err instanceof Error ? err.message : String(err)}`, {});
      }
    } finally {
      timer.stop();
    }
  }

  #renewed(attempt: number): void {
    this.#lastRenewal = attempt;
    if (this.#own !== undefined) this.#observe(this.#own);
    // The fence: if no renewal succeeds within the renew deadline (counted from this attempt's
    // start), every range is revoked before any other replica may take this Lease for expired.
    const remaining = this.#renewDeadlineMs - (this.#clock.now() - attempt);
    if (this.#fence === undefined) this.#fence = this.#clock.afterFunc(remaining, () => this.#fenced());
    else this.#fence.reset(remaining);
  }

  #fenced(): void {
    this.#epoch++;
    this.#logger.error(`shard ring ${this.name}: could not renew lease ${this.leaseName} within ${this.#renewDeadlineMs} ms; giving up every range`, {});
    const all = this.#active;
    this.#active = [];
    this.#claimed = [];
    this.#written = [];
    this.#lastRenewal = undefined;
    if (all.length > 0) void this.#revoke(all);
  }

  async #cleanup(now: number): Promise<void> {
    for (const [name, o] of this.#observed) {
      if (name === this.leaseName || this.#alive(o, now)) continue;
      const duration = (o.lease.spec?.leaseDurationSeconds ?? this.#leaseMs / 1000) * 1000;
      if (now - o.observedAt < duration + this.#cleanupMs) continue;
      try {
        await this.#client.delete(name, { preconditions: { resourceVersion: o.resourceVersion } });
      } catch {
        // Someone else removed or renewed it.
      }
      this.#observed.delete(name);
    }
  }

  /** Revokes everything, then deletes this replica's Lease (the others may take over at once). */
  async #leave(): Promise<void> {
    const all = this.#active;
    this.#active = [];
    if (all.length > 0) await this.#revoke(all);
    this.#claimed = [];
    if (this.#own === undefined) return;
    try {
      await this.#writing;
      await this.#client.delete(this.leaseName);
    } catch (err) {
      if (!isNotFound(err)) this.#logger.error(`shard ring ${this.name}: deleting lease ${this.leaseName} failed: ${err instanceof Error ? err.message : String(err)}`, {});
    }
    this.#own = undefined;
  }
}
