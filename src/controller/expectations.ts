/**
 * Controller expectations (kubernetes/pkg/controller/controller_utils.go): how a controller avoids
 * acting twice on a cache that has not yet caught up with its own writes.
 *
 * Before creating N pods a controller records "expect N creations" for its owner key; the pod
 * informer lowers the count as it observes each creation. While expectations are pending the
 * controller does not compute a new diff (its cache would show too few pods and it would
 * over-create). Failed creates lower the count themselves, and expectations older than
 * {@link expectationsTimeoutMs} are treated as satisfied, so a lost watch event cannot wedge a
 * controller forever.
 */
import { realClock, type Clock } from '../util/clock/clock.ts';

/** After this long, unmet expectations are treated as satisfied (upstream ExpectationsTimeout: 5 min). */
export const expectationsTimeoutMs = 5 * 60 * 1000;

/** The pending creations and deletions recorded for one controller key (upstream ControlleeExpectations). */
export interface ControlleeExpectations {
  /** Creations still expected; may go negative when more were observed than expected. */
  readonly add: number;
  /** Deletions still expected. */
  readonly del: number;
  /** When the expectations were set, in the clock's ms. */
  readonly timestamp: number;
}

/** Options of {@link ControllerExpectations}. */
export interface ControllerExpectationsOptions {
  /** Time source for the expiry. Default: {@link realClock}. */
  clock?: Clock;
  /** Expiry of unmet expectations. Default: {@link expectationsTimeoutMs}. */
  timeoutMs?: number;
}

interface MutableExpectations {
  add: number;
  del: number;
  timestamp: number;
}

/**
 * Expectations per controller key (upstream ControllerExpectations). JavaScript runs one callback at
 * a time, so each method is atomic as upstream's are with their locks.
 *
 * @example
 * expectations.expectCreations(key, diff);          // before issuing the creates
 * // pod informer, on add of a pod owned by `key`:
 * expectations.creationObserved(key);
 * // reconcile:
 * if (expectations.satisfiedExpectations(key)) { ...compute the diff... }
 */
export class ControllerExpectations {
  readonly #items = new Map<string, MutableExpectations>();
  readonly #clock: Clock;
  readonly #timeoutMs: number;

  constructor(options: ControllerExpectationsOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#timeoutMs = options.timeoutMs ?? expectationsTimeoutMs;
  }

  /** The expectations recorded for `key`, if any (a snapshot). */
  getExpectations(key: string): ControlleeExpectations | undefined {
    const e = this.#items.get(key);
    return e === undefined ? undefined : { ...e };
  }

  /**
   * True when the controller may sync `key`: no expectations recorded (a new owner, or ones deleted),
   * all of them met, or their timestamp older than the timeout.
   */
  satisfiedExpectations(key: string): boolean {
    const e = this.#items.get(key);
    if (e === undefined) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.#clock.since(e.timestamp) > this.#timeoutMs;
  }

  /** Forgets `key` (upstream DeleteExpectations), e.g. when the owner is deleted. */
  deleteExpectations(key: string): void {
    this.#items.delete(key);
  }

  /** Replaces the expectations of `key`, timestamped now. */
  setExpectations(key: string, add: number, del: number): void {
    this.#items.set(key, { add, del, timestamp: this.#clock.now() });
  }

  /** Expects `adds` creations (and no deletions) for `key`. */
  expectCreations(key: string, adds: number): void {
    this.setExpectations(key, adds, 0);
  }

  /** Expects `dels` deletions (and no creations) for `key`. */
  expectDeletions(key: string, dels: number): void {
    this.setExpectations(key, 0, dels);
  }

  /** Adds to the pending counts of `key`, if it has expectations (timestamp unchanged). */
  raiseExpectations(key: string, add: number, del: number): void {
    const e = this.#items.get(key);
    if (e === undefined) return;
    e.add += add;
    e.del += del;
  }

  /** Subtracts from the pending counts of `key`, if it has expectations (timestamp unchanged). */
  lowerExpectations(key: string, add: number, del: number): void {
    const e = this.#items.get(key);
    if (e === undefined) return;
    e.add -= add;
    e.del -= del;
  }

  /** One expected creation was observed (or will never happen: a failed create). */
  creationObserved(key: string): void {
    this.lowerExpectations(key, 1, 0);
  }

  /** One expected deletion was observed (or will never happen: a failed delete). */
  deletionObserved(key: string): void {
    this.lowerExpectations(key, 0, 1);
  }
}

/**
 * Expectations that also remember which objects are expected to be deleted
 * (upstream UIDTrackingControllerExpectations), so that a deletion observed twice — by the delete
 * event and again by a relist's tombstone — lowers the count only once.
 */
export class UIDTrackingControllerExpectations extends ControllerExpectations {
  readonly #pendingDeletes = new Map<string, Set<string>>();

  /** The object keys still expected to be deleted for `key`. */
  getUIDs(key: string): ReadonlySet<string> | undefined {
    return this.#pendingDeletes.get(key);
  }

  /** Expects the deletion of exactly `deletedKeys` (object keys or UIDs) for `key`. */
  expectDeletionsOf(key: string, deletedKeys: readonly string[]): void {
    this.#pendingDeletes.set(key, new Set(deletedKeys));
    this.expectDeletions(key, deletedKeys.length);
  }

  /** Records that `deletedKey` was deleted; lowers the count only the first time it is seen. */
  deletionObservedOf(key: string, deletedKey: string): void {
    const pending = this.#pendingDeletes.get(key);
    if (pending?.delete(deletedKey) === true) this.deletionObserved(key);
  }

  override deleteExpectations(key: string): void {
    this.#pendingDeletes.delete(key);
    super.deleteExpectations(key);
  }
}
