import { realClock, type Clock } from '../clock/clock.ts';
import { infDurationMs, type RateLimiter } from './rate-limiter.ts';

/** Options of {@link BucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /** Time source of the bucket. Default: {@link realClock}. */
  clock?: Clock;
}

/**
 * An overall token bucket shared by all items (upstream TypedBucketRateLimiter over
 * golang.org/x/time/rate.Limiter). The bucket holds up to `burst` tokens and refills at `qps` tokens per
 * second; it starts full.
 *
 * Each {@link BucketRateLimiter.when} reserves one token as `rate.Limiter.Reserve()` does: if none is
 * left, the token is borrowed from the future (the balance goes negative) and the returned delay is the
 * time until it will have been refilled. So with qps 10 and burst 100, a burst of requeues at one
 * instant gets 100 zero delays, then 100 ms, 200 ms, 300 ms, ...
 *
 * Edge cases follow rate.Limiter: `qps` of `Infinity` (or `Number.MAX_VALUE`, Go's `rate.Inf`) never
 * delays; `qps` 0 grants `burst` tokens in total and then {@link infDurationMs}; a burst below 1
 * always answers {@link infDurationMs}.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly #clock: Clock;
  readonly #qps: number;
  #burst: number;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, options: BucketRateLimiterOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#qps = qps;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = this.#clock.now();
  }

  when(_item: T): number {
    const now = this.#clock.now();
    if (this.#qps >= Number.MAX_VALUE) return 0;
    if (this.#qps === 0) {
      if (this.#burst >= 1) {
        this.#burst -= 1;
        return 0;
      }
      return infDurationMs;
    }
    const tokens = this.#advance(now) - 1;
    const waitMs = tokens < 0 ? this.#durationFromTokens(-tokens) : 0;
    if (this.#burst < 1) return infDurationMs;
    this.#last = now;
    this.#tokens = tokens;
    return waitMs;
  }

  numRequeues(_item: T): number {
    return 0;
  }

  forget(_item: T): void {}

  /** Tokens available at `now`: the balance plus what accrued since the last reservation, capped at burst. */
  #advance(now: number): number {
    // A clock that went backwards accrues nothing (rate.Limiter does the same).
    const last = now < this.#last ? now : this.#last;
    const elapsedSeconds = (now - last) / 1000;
    const tokens = this.#tokens + (this.#qps <= 0 ? 0 : elapsedSeconds * this.#qps);
    return tokens > this.#burst ? this.#burst : tokens;
  }

  /** Time (ms) to accrue `tokens`, truncated to whole nanoseconds as Go's time.Duration is. */
  #durationFromTokens(tokens: number): number {
    if (this.#qps <= 0) return infDurationMs;
    const ns = (tokens / this.#qps) * 1e9;
    // Go caps at math.MaxInt64 ns, which float64 rounds to 2^63.
    if (ns > 2 ** 63) return infDurationMs;
    return Math.trunc(ns) / 1e6;
  }
}
