/**
 * The per-zone queue of nodes waiting for their NoExecute taint (kubernetes/pkg/controller/nodelifecycle/
 * scheduler/rate_limited_queue.go, v1.24): a set of node names plus a queue ordered by when each is due,
 * drained by {@link RateLimitedTimedQueue.try} through a token bucket whose rate the zone's disruption
 * state sets ({@link RateLimitedTimedQueue.swapLimiter}). As upstream, a name stays in the set after it
 * was processed, so adding it again is refused until {@link RateLimitedTimedQueue.remove} forgets it (the
 * controller removes a node when it is reachable again or its taint went away), and `try` spends a token
 * per look at the head even when the head is not due yet.
 */
import type { Clock } from '../../util/clock/clock.ts';

/** EvictionRateLimiterBurst (rate_limited_queue.go): one eviction may happen at once after a quiet period. */
export const evictionRateLimiterBurst = 1;

/** One queued node (TimedValue). */
export interface TimedValue {
  /** The node's name. */
  value: string;
  /** The node's uid when it was queued. */
  uid: string;
  /** When it was added (ms since the epoch). */
  addedAt: number;
  /** When it is due (ms since the epoch). */
  processAt: number;
}

/** What `try` does with a due value: done (`true`), or not yet, to be retried after `retryAfterMs`. */
export type TimedQueueAction = (value: TimedValue) => { done: true } | { done: false; retryAfterMs: number };

/**
 * The rate limiter of one zone: a token bucket of {@link evictionRateLimiterBurst} (flowcontrol's
 * TokenBucketRateLimiter), or none at all when the rate is 0 (fakeAlwaysRejectRateLimiter). The balance
 * is kept in milliseconds of refill rather than in fractions of a token, so that a token is due exactly
 * 1/qps seconds after the last one however often the bucket is asked (no float drift).
 */
class ZoneLimiter {
  readonly qps: number;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #costMs: number;
  // Refill time banked as of #last, at most burst tokens' worth; starts full.
  #creditMs: number;
  #last: number;
  constructor(qps: number, clock: Pick<Clock, 'now'>) {
    this.qps = qps;
    this.#clock = clock;
    this.#costMs = qps > 0 ? 1000 / qps : Infinity;
    this.#creditMs = this.#costMs * evictionRateLimiterBurst;
    this.#last = clock.now();
  }
  tryAccept(): boolean {
    if (this.qps <= 0) return false;
    const now = this.#clock.now();
    this.#creditMs = Math.min(this.#costMs * evictionRateLimiterBurst, this.#creditMs + Math.max(0, now - this.#last));
    this.#last = now;
    if (this.#creditMs < this.#costMs) return false;
    this.#creditMs -= this.#costMs;
    return true;
  }
}

/** See the file comment. */
export class RateLimitedTimedQueue {
  readonly #clock: Pick<Clock, 'now'>;
  // The set (UniqueQueue.set): every name added and not removed, processed or not.
  readonly #set = new Set<string>();
  // The queue (UniqueQueue.queue), kept sorted by processAt then insertion.
  #queue: TimedValue[] = [];
  #limiter: ZoneLimiter;

  constructor(qps: number, clock: Pick<Clock, 'now'>) {
    this.#clock = clock;
    this.#limiter = new ZoneLimiter(qps, clock);
  }

  /** The current rate (tokens per second; 0 rejects everything). */
  get qps(): number {
    return this.#limiter.qps;
  }

  /** Queues `value`, due now; false when it is in the set already. */
  add(value: string, uid: string): boolean {
    if (this.#set.has(value)) return false;
    const now = this.#clock.now();
    this.#set.add(value);
    this.#insert({ value, uid, addedAt: now, processAt: now });
    return true;
  }

  /** Forgets `value` (queue and set); true when it was in the set. */
  remove(value: string): boolean {
    this.#queue = this.#queue.filter((v) => v.value !== value);
    return this.#set.delete(value);
  }

  /** The names queued and not yet processed, in order. */
  queued(): string[] {
    return this.#queue.map((v) => v.value);
  }

  /** When the head is due, or undefined when the queue is empty. */
  nextDue(): number | undefined {
    return this.#queue[0]?.processAt;
  }

  /**
   * Processes due values in order while the limiter gives tokens: a value `fn` completes leaves the queue
   * (not the set), one it does not is due again `retryAfterMs` later.
   */
  try(fn: TimedQueueAction): void {
    let head = this.#queue[0];
    while (head !== undefined) {
      if (!this.#limiter.tryAccept()) break;
      const now = this.#clock.now();
      if (now < head.processAt) break;
      this.#queue.shift();
      const result = fn(head);
      // Go's now.Add(wait + 1): one nanosecond later, which is the same millisecond here.
      if (!result.done) this.#insert({ ...head, processAt: now + result.retryAfterMs });
      head = this.#queue[0];
    }
  }

  /**
   * Replaces the limiter with one of `qps` (0: reject all), unless the rate is the same; a new bucket
   * starts empty when the old one had no token left, as upstream drains it (burst 1).
   */
  swapLimiter(qps: number): void {
    if (this.#limiter.qps === qps) return;
    const next = new ZoneLimiter(qps, this.#clock);
    if (!this.#limiter.tryAccept()) next.tryAccept();
    this.#limiter = next;
  }

  #insert(v: TimedValue): void {
    const i = this.#queue.findIndex((q) => q.processAt > v.processAt);
    if (i < 0) this.#queue.push(v);
    else this.#queue.splice(i, 0, v);
  }
}
