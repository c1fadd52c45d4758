/**
 * The lock a {@link LeaderElector} competes for (client-go tools/leaderelection/resourcelock.Interface),
 * and the record stored in it.
 */
import { KubeloomError } from '../../../apimachinery/errors.ts';
import type { KubeObject } from '../../../apimachinery/object.ts';

/**
 * The state of an election as stored in the lock (resourcelock.LeaderElectionRecord).
 *
 * Times are ms since the epoch from the writer's clock. Electors never compare them with their own
 * clock: they only notice that the record changed, and time its expiry locally.
 */
export interface LeaderElectionRecord {
  /** Identity of the current holder; '' when the lock was released. */
  holderIdentity: string;
  /** How long the holder's claim lasts after its last renewal, in whole seconds. */
  leaseDurationSeconds: number;
  /** When the current holder acquired the lock (undefined when never set). */
  acquireTime?: number;
  /** When the current holder last renewed the lock (undefined when never set). */
  renewTime?: number;
  /** How many times the lock changed hands. */
  leaderTransitions: number;
}

/** The subset of an event recorder a lock uses to report "became leader" / "stopped leading". */
export interface LockEventRecorder {
  /** Records an event about `object` (the legacy core/v1 recorder's signature). */
  eventf(object: KubeObject, eventType: string, reason: string, message: string): void;
}

/** Options common to every lock (resourcelock.ResourceLockConfig). */
export interface ResourceLockConfig {
  /** Unique identity of this candidate, e.g. the pod name or hostname plus a random suffix. Must not be empty. */
  identity: string;
  /** Where leadership changes are reported as events (none by default). */
  eventRecorder?: LockEventRecorder;
}

/** Options for a lock operation. */
export interface LockRequestOptions {
  /** Aborts the request; the elector aborts it when the renew deadline passes or the run is cancelled. */
  signal?: AbortSignal;
}

/** A record as read from the lock, with the serialized form used to detect changes. */
export interface ObservedLeaderElectionRecord {
  /** The record read from the lock. */
  record: LeaderElectionRecord;
  /** A canonical serialization of the record: two reads are the same state iff their `raw` are equal. */
  raw: string;
}

/**
 * A lock an elector can read, create and update with optimistic concurrency: `update` must fail with a
 * Conflict when the lock changed since it was last read or written through this object.
 */
export interface ResourceLock {
  /** Reads the current record; rejects with a NotFound StatusError when the lock does not exist. */
  get(options?: LockRequestOptions): Promise<ObservedLeaderElectionRecord>;
  /** Creates the lock holding `record`; rejects (AlreadyExists) if someone created it first. */
  create(record: LeaderElectionRecord, options?: LockRequestOptions): Promise<void>;
  /** Replaces the record, conditional on the version last seen by `get`/`create`/`update`. */
  update(record: LeaderElectionRecord, options?: LockRequestOptions): Promise<void>;
  /** Reports a leadership change (`"<identity> <message>"`) through the configured recorder, if any. */
  recordEvent(message: string): void;
  /** This candidate's identity. */
  identity(): string;
  /** A human-readable name of the lock for logs, `namespace/name`. */
  describe(): string;
  /**
   * Optional: follows the lock, yielding its record every time the server reports a change (the
   * current record first), and `undefined` when the lock is deleted. The iterable ends or rejects when
   * the stream does (the elector starts a new one), and ends when `signal` aborts. Rejects with
   * {@link LockWatchUnsupportedError} when the lock cannot be watched. An elector with
   * `watchLock` uses it only to notice changes earlier; every decision still rests on `get`/`update`.
   */
  watch?(options?: LockRequestOptions): AsyncIterable<ObservedLeaderElectionRecord | undefined>;
}

/** {@link ResourceLock.watch} was called on a lock whose client cannot watch. */
export class LockWatchUnsupportedError extends KubeloomError {
  constructor(lock: string) {
    super('ERR_LOCK_WATCH_UNSUPPORTED', `lock ${lock} cannot be watched: its client has no watch`);
  }
}

/** Serializes a record canonically (fixed field order, absent times as null). */
export function rawRecord(record: LeaderElectionRecord): string {
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime ?? null,
    record.renewTime ?? null,
    record.leaderTransitions,
  ]);
}
