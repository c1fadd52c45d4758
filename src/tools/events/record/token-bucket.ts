/**
 * A passive token bucket (flowcontrol.NewTokenBucketPassiveRateLimiterWithClock over
 * golang.org/x/time/rate): it starts full with `burst` tokens and refills continuously at `qps` per
 * second up to `burst`; `tryAccept` takes a token if one is available, never waiting.
 */
import type { Clock } from '../../../util/clock/clock.ts';

/** See the module comment. */
export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Pick<Clock, 'now'>;
  #tokens: number;
  #last: number;

  constructor(qps: number, burst: number, clock: Pick<Clock, 'now'>) {
    this.#qps = qps;
    this.#burst = burst;
    this.#clock = clock;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  /** Takes one token if available now. */
  tryAccept(): boolean {
    const now = this.#clock.now();
    if (now > this.#last) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
      this.#last = now;
    }
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return true;
    }
    return false;
  }
}
