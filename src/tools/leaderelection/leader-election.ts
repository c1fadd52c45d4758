/**
 * Leader election (client-go tools/leaderelection): candidates compete for a {@link ResourceLock}; the
 * holder renews it every retry period and everyone else takes it over once it has not changed for a lease
 * duration.
 *
 * Electors act only on time measured by their own {@link Clock}: the renew time written in the lock is
 * never compared with the local clock, only its change is noticed. This tolerates arbitrary clock skew
 * between candidates, but not arbitrary skew *rate*; the ratio leaseDuration / renewDeadline is the
 * tolerated rate. Like upstream, this does not fence: a leader that loses the lock learns it at most a
 * renew deadline later, so work guarded by the lock must stop when the `onStartedLeading` signal aborts.
 */
import { KubeloomError, isConflict, isForbidden, isNotFound } from '../../apimachinery/errors.ts';
import { jitter, type RandomSource } from '../../util/backoff/backoff.ts';
import { realClock, type Clock } from '../../util/clock/clock.ts';
import { defaultLogger, type Logger } from '../events/logger.ts';
import type { HealthzAdaptor } from './healthz.ts';
import { globalLeaderMetricsProvider, type LeaderMetric, type LeaderMetricsProvider } from './metrics.ts';
import type { LeaderElectionRecord, ResourceLock } from './resourcelock/interface.ts';

/** Acquire retries wait retryPeriod plus up to this factor of it at random (leaderelection.JitterFactor). */
export const JITTER_FACTOR = 1.2;
/**
 * The lease duration core Kubernetes components use (component-base LeaderElectionConfiguration's
 * default). The library applies no default: pass it (or your own) as `leaseDurationMs`.
 */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/** The renew deadline core components use (component-base); pass it as `renewDeadlineMs`. */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/** The retry period core components use (component-base); pass it as `retryPeriodMs`. */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/**
 * Lifecycle callbacks (leaderelection.LeaderCallbacks). They are invoked asynchronously: a slow or
 * rejecting callback never stalls the election loop (errors are logged).
 */
export interface LeaderCallbacks {
  /**
   * Called when this candidate starts leading. `signal` aborts when leadership ends (lost, or the run
   * was cancelled); stop the guarded work then.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called when {@link LeaderElector.run} ends, whether or not this candidate ever led. */
  onStoppedLeading(): void;
  /** Called when a different leader is observed, including the first one (and '' after a release). */
  onNewLeader?(identity: string): void;
}

/** Configuration of a {@link LeaderElector} (leaderelection.LeaderElectionConfig). Durations in ms. */
export interface LeaderElectionConfig {
  /** The lock to compete for. */
  lock: ResourceLock;
  /**
   * How long non-leaders wait after the last observed change of the lock before taking it over.
   * Required, as in client-go (no library default; core components use
   * {@link DEFAULT_LEASE_DURATION_MS}, 15 000). Stored in the lock in whole seconds, truncated as
   * upstream does.
   */
  leaseDurationMs: number;
  /** How long the leader keeps retrying a renewal before giving up leadership. Required ({@link DEFAULT_RENEW_DEADLINE_MS}: 10 000). */
  renewDeadlineMs: number;
  /** Wait between attempts, acquire attempts jittered by {@link JITTER_FACTOR}. Required ({@link DEFAULT_RETRY_PERIOD_MS}: 2 000). */
  retryPeriodMs: number;
  /** Called when leadership starts, stops, or moves to someone else. */
  callbacks: LeaderCallbacks;
  /** A health check to attach to this elector (see {@link HealthzAdaptor}). */
  watchDog?: HealthzAdaptor;
  /**
   * Release the lock when the run is cancelled, so the next candidate takes over at once instead of
   * after a lease duration. Only safe if the guarded work has stopped by then.
   */
  releaseOnCancel?: boolean;
  /**
   * Also watch the lock while waiting to acquire it, and try again the moment the observed lease
   * expires (or is released or deleted) instead of on the next jittered retry tick. The rule stays
   * client-go's: a lease is expired once this candidate's own clock saw no change of the record for
   * the lease duration; the watch only sees the changes sooner than a poll would, and the wake-up falls
   * exactly at the expiry. Polling every retry period continues alongside, so a broken watch costs
   * nothing but the speed-up. Failover after a crash then takes at most about one lease duration from
   * the dead leader's last renewal, against up to lease duration + 2 jittered retry periods of up to
   * 2.2 × retryPeriod each (≈ 15 + 4.4 + 4.4 = 23.8 s with the 15/10/2 s defaults). Needs {@link ResourceLock.watch}; default false (client-go's
   * algorithm). See docs/leaderelection.md.
   */
  watchLock?: boolean;
  /** Name of the lock for logs, metrics and the health check message (default `lock.describe()`). */
  name?: string;
  /** Where leadership status is reported (default: the global provider, which records nothing unless set). */
  metricsProvider?: LeaderMetricsProvider;
  /** Time source (default: the real clock). */
  clock?: Clock;
  /** Random source in [0, 1) for the acquire jitter (default Math.random). */
  random?: RandomSource;
  /** Where the elector logs (default: errors to stderr). */
  logger?: Logger;
}

/** A {@link LeaderElectionConfig} failed validation; `message` is upstream's. */
export class LeaderElectionConfigError extends KubeloomError {
  constructor(message: string) {
    super('ERR_LEADER_ELECTION_CONFIG', message);
  }
}

/** The reason the `onStartedLeading` signal aborts with when renewals failed for a renew deadline. */
export class LeadershipLostError extends KubeloomError {
  constructor(lock: string) {
    super('ERR_LEADERSHIP_LOST', `failed to renew lease ${lock}: renew deadline exceeded`);
  }
}

/** Returned by {@link LeaderElector.check} when the leader has not renewed long past its lease. */
export class LeaderElectionUnhealthyError extends KubeloomError {
  constructor(name: string) {
    super('ERR_LEADER_ELECTION_UNHEALTHY', `failed election to renew leadership on lease ${name}`);
  }
}

/** {@link LeaderElector.run} was called while a run of the same elector was in progress. */
export class LeaderElectorRunningError extends KubeloomError {
  constructor() {
    super('ERR_ALREADY_RUNNING', 'LeaderElector.run is already in progress');
  }
}

class RenewDeadlineExceededError extends KubeloomError {
  constructor() {
    super('ERR_RENEW_DEADLINE_EXCEEDED', 'renew deadline exceeded');
  }
}

const emptyRecord: LeaderElectionRecord = { holderIdentity: '', leaseDurationSeconds: 0, leaderTransitions: 0 };

/**
 * A leader election client (leaderelection.LeaderElector).
 *
 * @example
 * const elector = new LeaderElector({
 *   lock: new LeaseLock({ client: clientset.coordinationV1().leases('default'), namespace: 'default', name: 'demo', identity }),
 *   releaseOnCancel: true,
 *   callbacks: {
 *     onStartedLeading: (signal) => controller.run({ signal }),
 *     onStoppedLeading: () => console.log('stopped leading'),
 *   },
 * });
 * await elector.run({ signal });
 */
export class LeaderElector {
  readonly #lock: ResourceLock;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #callbacks: LeaderCallbacks;
  readonly #releaseOnCancel: boolean;
  readonly #name: string;
  readonly #clock: Clock;
  readonly #random: RandomSource;
  readonly #logger: Logger;
  readonly #metrics: LeaderMetric;

  /** The record as last observed or written. */
  #observedRecord: LeaderElectionRecord = emptyRecord;
  /** Serialized form of the last record read from the lock, to notice any change. */
  #observedRaw: string | undefined;
  /** Local time at which #observedRecord last changed: the lease expires leaseDuration after it. */
  #observedTime = 0;
  /** The leader last reported to onNewLeader; lags #observedRecord until reported. */
  #reportedLeader = '';
  #running = false;
  readonly #watchLock: boolean;
  /** Bumped on every observed change of the record (polled or watched), and when the lock was deleted. */
  #observationSeq = 0;
  /** #observationSeq and the local time when the latest acquire attempt started. */
  #attemptSeq = -1;
  #attemptAt = -Infinity;
  /** The lock was seen deleted by the watch after the last attempt: try to create it at once. */
  #lockDeleted = false;
  /** Wakes the acquire loop's wait to re-plan (a watched change). */
  #wake: (() => void) | undefined;

  /** Validates `config` exactly as upstream's NewLeaderElector; throws {@link LeaderElectionConfigError}. */
  constructor(config: LeaderElectionConfig) {
    // No defaults (NewLeaderElector): a config without durations fails the first check, as upstream's zero values do.
    const leaseDurationMs = config.leaseDurationMs ?? 0;
    const renewDeadlineMs = config.renewDeadlineMs ?? 0;
    const retryPeriodMs = config.retryPeriodMs ?? 0;
    if (!(leaseDurationMs > renewDeadlineMs)) throw new LeaderElectionConfigError('leaseDuration must be greater than renewDeadline');
    if (!(renewDeadlineMs > JITTER_FACTOR * retryPeriodMs)) throw new LeaderElectionConfigError('renewDeadline must be greater than retryPeriod*JitterFactor');
    if (!(leaseDurationMs >= 1)) throw new LeaderElectionConfigError('leaseDuration must be greater than zero');
    if (!(renewDeadlineMs >= 1)) throw new LeaderElectionConfigError('renewDeadline must be greater than zero');
    if (!(retryPeriodMs >= 1)) throw new LeaderElectionConfigError('retryPeriod must be greater than zero');
    if (typeof config.callbacks?.onStartedLeading !== 'function') throw new LeaderElectionConfigError('OnStartedLeading callback must not be nil');
    if (typeof config.callbacks.onStoppedLeading !== 'function') throw new LeaderElectionConfigError('OnStoppedLeading callback must not be nil');
    if (config.lock === undefined || config.lock === null) throw new LeaderElectionConfigError('Lock must not be nil.');
    if (config.lock.identity() === '') throw new LeaderElectionConfigError('Lock identity is empty');

    this.#lock = config.lock;
    this.#leaseDurationMs = leaseDurationMs;
    this.#renewDeadlineMs = renewDeadlineMs;
    this.#retryPeriodMs = retryPeriodMs;
    this.#callbacks = config.callbacks;
    this.#releaseOnCancel = config.releaseOnCancel ?? false;
    this.#watchLock = config.watchLock ?? false;
    this.#name = config.name ?? config.lock.describe();
    this.#clock = config.clock ?? realClock;
    this.#random = config.random ?? Math.random;
    this.#logger = config.logger ?? defaultLogger;
    this.#metrics = (config.metricsProvider ?? globalLeaderMetricsProvider()).newLeaderMetric();
    this.#metrics.off(this.#name);
    config.watchDog?.setLeaderElection(this);
  }

  /**
   * Runs the election until `signal` aborts or leadership is lost: acquires the lock (retrying every
   * jittered retry period), calls `onStartedLeading`, renews until a renewal keeps failing for the renew
   * deadline, releases the lock if `releaseOnCancel`, and always calls `onStoppedLeading` before resolving.
   * An elector runs once at a time ({@link LeaderElectorRunningError} otherwise); to compete again after
   * losing, call `run` again.
   */
  async run(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#running) throw new LeaderElectorRunningError();
    this.#running = true;
    const signal = options.signal ?? new AbortController().signal;
    try {
      if (!(await this.#acquire(signal))) return;
      const leading = new AbortController();
      const forward = (): void => leading.abort(signal.reason);
      if (signal.aborted) forward();
      else signal.addEventListener('abort', forward, { once: true });
      this.#invoke('onStartedLeading', () => this.#callbacks.onStartedLeading(leading.signal));
      let lost = false;
      try {
        lost = await this.#renew(leading.signal);
      } finally {
        signal.removeEventListener('abort', forward);
        this.#metrics.off(this.#name);
        this.#lock.recordEvent('stopped leading');
        // The guarded work stops before the lock can be handed to someone else.
        leading.abort(lost ? new LeadershipLostError(this.#lock.describe()) : signal.reason);
        if (this.#releaseOnCancel) await this.#release();
      }
    } finally {
      this.#running = false;
      try {
        this.#callbacks.onStoppedLeading();
      } catch (err) {
        this.#logger.error('onStoppedLeading callback failed', { lock: this.#lock.describe(), err });
      }
    }
  }

  /** Identity of the last observed leader, '' if none has been observed (or the lock was released). */
  getLeader(): string {
    return this.#observedRecord.holderIdentity;
  }

  /** True if the last observed leader is this candidate. */
  isLeader(): boolean {
    return this.#observedRecord.holderIdentity === this.#lock.identity();
  }

  /**
   * Health check: an error when this candidate believes it leads but has not renewed for longer than
   * leaseDuration + `maxTolerableExpiredLeaseMs` (its loop is stuck); undefined otherwise, including
   * for non-leaders.
   */
  check(maxTolerableExpiredLeaseMs: number): LeaderElectionUnhealthyError | undefined {
    if (!this.isLeader()) return undefined;
    if (this.#clock.since(this.#observedTime) > this.#leaseDurationMs + maxTolerableExpiredLeaseMs) {
      return new LeaderElectionUnhealthyError(this.#name);
    }
    return undefined;
  }

  /** Tries until it acquires the lock (true) or `signal` aborts (false). */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    const desc = this.#lock.describe();
    this.#logger.info('attempting to acquire leader lease', { lock: desc });
    const stopWatch = new AbortController();
    const watching = this.#watchLock ? this.#followLock(AbortSignal.any([signal, stopWatch.signal])) : undefined;
    try {
      for (;;) {
        if (signal.aborted) return false;
        this.#attemptSeq = this.#observationSeq;
        this.#attemptAt = this.#clock.now();
        this.#lockDeleted = false;
        const succeeded = await this.#tryAcquireOrRenew(signal);
        this.#maybeReportTransition();
        if (succeeded) {
          this.#lock.recordEvent('became leader');
          this.#metrics.on(this.#name);
          this.#logger.info('successfully acquired lease', { lock: desc });
          return true;
        }
        this.#logger.debug('failed to acquire lease', { lock: desc });
        if (!(await this.#waitToRetry(jitter(this.#retryPeriodMs, JITTER_FACTOR, this.#random), signal))) return false;
      }
    } finally {
      stopWatch.abort();
      await watching;
    }
  }

  /**
   * Waits the jittered retry period (client-go), or with `watchLock` until the observed lease expires,
   * is released or the lock deleted, whichever comes first. False when `signal` aborted.
   */
  async #waitToRetry(delayMs: number, signal: AbortSignal): Promise<boolean> {
    const retryAt = this.#clock.now() + delayMs;
    for (;;) {
      if (signal.aborted) return false;
      const now = this.#clock.now();
      const at = this.#watchLock ? Math.min(retryAt, this.#expiryWake()) : retryAt;
      if (now >= at) return true;
      await new Promise<void>((resolve) => {
        const finish = (): void => {
          timer.stop();
          signal.removeEventListener('abort', finish);
          this.#wake = undefined;
          resolve();
        };
        const timer = this.#clock.afterFunc(at - now, finish);
        signal.addEventListener('abort', finish, { once: true });
        this.#wake = finish;
      });
    }
  }

  /**
   * When the next acquire attempt can succeed, as far as this candidate knows: at once when the lock
   * was released or deleted since the last attempt started, else at the local expiry of the observed
   * record (observedTime + its lease duration) if that falls after the last attempt; Infinity when
   * nothing is known to change (a failing attempt then waits for the retry period, never spins).
   */
  #expiryWake(): number {
    const changed = this.#observationSeq !== this.#attemptSeq;
    if (changed && (this.#lockDeleted || this.#observedRecord.holderIdentity === '')) return this.#observedTime;
    if (this.#observedRecord.holderIdentity === '') return Infinity;
    const expiry = this.#observedTime + this.#observedRecord.leaseDurationSeconds * 1000;
    return expiry > this.#attemptAt ? expiry : Infinity;
  }

  /**
   * Watches the lock while acquiring, noting each change as a poll would (observedTime = now) and
   * waking the wait; restarts the watch a retry period after it ends or fails, gives up if the lock
   * cannot be watched.
   */
  async #followLock(signal: AbortSignal): Promise<void> {
    const lock = this.#lock;
    if (lock.watch === undefined) {
      this.#logger.info('lock cannot be watched; polling only', { lock: lock.describe() });
      return;
    }
    while (!signal.aborted) {
      try {
        for await (const observed of lock.watch({ signal })) {
          if (signal.aborted) break;
          if (observed === undefined) {
            this.#lockDeleted = true;
            this.#observationSeq++;
            this.#observedTime = this.#clock.now();
          } else if (observed.raw !== this.#observedRaw) {
            this.#setObservedRecord(observed.record);
            this.#observedRaw = observed.raw;
            this.#maybeReportTransition();
          } else continue;
          this.#wake?.();
        }
      } catch (err) {
        if (signal.aborted) break;
        // Without the watch verb (an RBAC Role granting only get/create/update) retrying is pointless.
        if ((err instanceof KubeloomError && err.code === 'ERR_LOCK_WATCH_UNSUPPORTED') || isForbidden(err)) {
          this.#logger.info('lock cannot be watched; polling only', { lock: lock.describe(), err });
          return;
        }
        this.#logger.debug('lock watch failed', { lock: lock.describe(), err });
      }
      try {
        await this.#clock.sleep(this.#retryPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /**
   * Renews every retry period until a renewal round fails (true: leadership lost) or `signal` aborts
   * (false).
   */
  async #renew(signal: AbortSignal): Promise<boolean> {
    const desc = this.#lock.describe();
    for (;;) {
      if (signal.aborted) return false;
      const renewed = await this.#renewWithinDeadline(signal);
      this.#maybeReportTransition();
      if (!renewed) {
        if (signal.aborted) return false;
        this.#logger.info('failed to renew lease', { lock: desc });
        return true;
      }
      this.#logger.debug('successfully renewed lease', { lock: desc });
      try {
        await this.#clock.sleep(this.#retryPeriodMs, signal);
      } catch {
        return false;
      }
    }
  }

  /**
   * One renewal round (wait.PollUntilContextTimeout, immediate): attempts at once, then on every tick of
   * a retry-period ticker, until one succeeds or the renew deadline passes; requests in flight at the
   * deadline are aborted.
   */
  async #renewWithinDeadline(signal: AbortSignal): Promise<boolean> {
    const deadline = new AbortController();
    const timer = this.#clock.afterFunc(this.#renewDeadlineMs, () => deadline.abort(new RenewDeadlineExceededError()));
    const attemptSignal = AbortSignal.any([signal, deadline.signal]);
    const start = this.#clock.now();
    let nextTick = start + this.#retryPeriodMs;
    try {
      for (;;) {
        if (attemptSignal.aborted) return false;
        if (await this.#tryAcquireOrRenew(attemptSignal)) return true;
        const now = this.#clock.now();
        if (now >= nextTick) {
          // A ticker keeps at most one missed tick: go again at once, then resume on the tick grid.
          nextTick = start + (Math.floor((now - start) / this.#retryPeriodMs) + 1) * this.#retryPeriodMs;
          continue;
        }
        try {
          await this.#clock.sleep(nextTick - now, attemptSignal);
        } catch {
          return false;
        }
        nextTick += this.#retryPeriodMs;
      }
    } finally {
      timer.stop();
    }
  }

  /**
   * Acquires the lock if it is free or expired, or renews it if held by this candidate
   * (tryAcquireOrRenew). Returns true on success.
   */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.#clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: this.#lock.identity(),
      leaseDurationSeconds: Math.trunc(this.#leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };
    const desc = this.#lock.describe();

    // 1. Fast path: the leader updates optimistically, assuming its last observation is current.
    if (this.isLeader() && this.#isLeaseValid(now)) {
      record.acquireTime = this.#observedRecord.acquireTime;
      record.leaderTransitions = this.#observedRecord.leaderTransitions;
      if (record.acquireTime === undefined) delete record.acquireTime;
      try {
        await this.#lock.update(record, { signal });
        this.#setObservedRecord(record);
        return true;
      } catch (err) {
        this.#logger.debug('failed to update lease optimistically, falling back to slow path', { lock: desc, err });
      }
    }

    // 2. Read the lock, creating it when it does not exist.
    let observed;
    try {
      observed = await this.#lock.get({ signal });
    } catch (err) {
      if (!isNotFound(err)) {
        this.#logger.error('error retrieving lease lock', { lock: desc, err });
        return false;
      }
      try {
        await this.#lock.create(record, { signal });
      } catch (createErr) {
        this.#logger.error('error initially creating lease lock', { lock: desc, err: createErr });
        return false;
      }
      this.#setObservedRecord(record);
      return true;
    }

    // 3. Any change restarts the expiry clock; someone else's unexpired lease cannot be taken.
    if (this.#observedRaw !== observed.raw) {
      this.#setObservedRecord(observed.record);
      this.#observedRaw = observed.raw;
    }
    const old = observed.record;
    if (old.holderIdentity !== '' && this.#isLeaseValid(now) && !this.isLeader()) {
      this.#logger.debug('lease is held and has not yet expired', { lock: desc, holder: old.holderIdentity });
      return false;
    }

    // 4. Take over or renew, keeping acquireTime across renewals and counting transitions.
    if (this.isLeader()) {
      if (old.acquireTime === undefined) delete record.acquireTime;
      else record.acquireTime = old.acquireTime;
      record.leaderTransitions = old.leaderTransitions;
      this.#metrics.slowpathExercised(this.#name);
    } else {
      record.leaderTransitions = old.leaderTransitions + 1;
    }
    try {
      await this.#lock.update(record, { signal });
    } catch (err) {
      this.#logger.error('failed to update lease', { lock: desc, err });
      return false;
    }
    this.#setObservedRecord(record);
    return true;
  }

  /** Releases the lock if this candidate still holds it, within one renew deadline (retrying conflicts). */
  async #release(): Promise<boolean> {
    const deadline = new AbortController();
    const timer = this.#clock.afterFunc(this.#renewDeadlineMs, () => deadline.abort(new RenewDeadlineExceededError()));
    const desc = this.#lock.describe();
    try {
      for (;;) {
        let observed;
        try {
          observed = await this.#lock.get({ signal: deadline.signal });
        } catch (err) {
          if (isNotFound(err)) this.#logger.info('lease lock not found', { lock: desc });
          else this.#logger.error('error retrieving lease lock', { lock: desc, err });
          return false;
        }
        if (!this.isLeader()) return true;
        // Decide from the record just read: never clear a lock someone else holds now.
        if (observed.record.holderIdentity !== this.#lock.identity()) return true;
        const now = this.#clock.now();
        const released: LeaderElectionRecord = {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaderTransitions: observed.record.leaderTransitions,
        };
        try {
          await this.#lock.update(released, { signal: deadline.signal });
        } catch (err) {
          // A renewal that completed on the server after we stopped waiting for it bumps the version.
          if (isConflict(err) && !deadline.signal.aborted) continue;
          this.#logger.error('failed to release lease', { lock: desc, err });
          return false;
        }
        this.#setObservedRecord(released);
        return true;
      }
    } finally {
      timer.stop();
    }
  }

  #isLeaseValid(now: number): boolean {
    return this.#observedTime + this.#observedRecord.leaseDurationSeconds * 1000 > now;
  }

  #setObservedRecord(record: LeaderElectionRecord): void {
    this.#observedRecord = { ...record };
    this.#observedTime = this.#clock.now();
    this.#observationSeq++;
  }

  #maybeReportTransition(): void {
    const holder = this.#observedRecord.holderIdentity;
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    const callbacks = this.#callbacks;
    if (callbacks.onNewLeader !== undefined) this.#invoke('onNewLeader', () => callbacks.onNewLeader?.(holder));
  }

  /** Runs a callback on a later microtask, logging a throw or a rejection instead of propagating it. */
  #invoke(name: string, fn: () => void | Promise<void>): void {
    queueMicrotask(() => {
      try {
        const result = fn();
        if (result instanceof Promise) {
          result.catch((err: unknown) => this.#logger.error(`${name} callback failed`, { lock: this.#lock.describe(), err }));
        }
      } catch (err) {
        this.#logger.error(`${name} callback failed`, { lock: this.#lock.describe(), err });
      }
    });
  }
}
