/**
 * The client-side token-bucket rate limiter (flowcontrol.NewTokenBucketRateLimiter): tokens refill at
 * `qps` per second up to `burst`; each request takes one, waiting for it when the bucket is empty.
 */
import { realClock, type Clock } from '../util/clock/clock.ts';
import type { RequestRateLimiter } from './config.ts';

/** Options of {@link TokenBucketRateLimiter}. */
export interface TokenBucketOptions {
  /** Tokens added per second. */
  qps: number;
  /** Bucket size: how many requests may go out back to back. Starts full. */
  burst: number;
  /** Time source (default: the real clock). */
  clock?: Clock;
}

/**
 * A token bucket as golang.org/x/time/rate (which client-go's limiter wraps): a waiter reserves a token
 * immediately — the balance may go negative — and sleeps until its token has been earned, so waiters
 * are served in arrival order at exactly `qps`. Aborting a wait returns its token.
 */
export class TokenBucketRateLimiter implements RequestRateLimiter {
  /** Sustained requests per second. */
  readonly qps: number;
  /** Requests allowed at once after an idle period. */
  readonly burst: number;
  readonly #clock: Clock;
  // Token balance as of #last; negative when waiters have reserved tokens not yet earned.
  #tokens: number;
  #last: number;

  constructor(options: TokenBucketOptions) {
    this.qps = options.qps;
    this.burst = Math.max(1, options.burst);
    this.#clock = options.clock ?? realClock;
    this.#tokens = this.burst;
    this.#last = this.#clock.now();
  }

  #advance(): void {
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#last);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.qps) / 1000);
    this.#last = now;
  }

  /** Takes a token without waiting; false when none is available (flowcontrol.RateLimiter.TryAccept). */
  tryAccept(): boolean {
    this.#advance();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return true;
    }
    return false;
  }

  async wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.#advance();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    const waitMs = Math.ceil((-this.#tokens * 1000) / this.qps);
    try {
      await this.#clock.sleep(waitMs, signal);
    } catch (err) {
      this.#advance();
      this.#tokens = Math.min(this.burst, this.#tokens + 1);
      throw err;
    }
  }
}

/** A limiter that never waits (what a negative QPS selects). */
export const unlimitedRateLimiter: RequestRateLimiter = {
  async wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
  },
};
