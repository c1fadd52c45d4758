/**
 * Exponential backoff, mirroring k8s.io/apimachinery/pkg/util/wait's Backoff and
 * ExponentialBackoffManager (the reflector's relist backoff).
 */
import { realClock, type Clock } from '../clock/clock.ts';

/** A random source returning values in [0, 1); injectable so tests are deterministic. */
export type RandomSource = () => number;

/** Parameters of an exponential backoff (wait.Backoff). Durations in ms. */
export interface BackoffOptions {
  /** The first delay. */
  durationMs: number;
  /** Multiplier applied after each step (0 or 1 = constant). */
  factor?: number;
  /** Each delay is increased by up to `jitter × delay` at random (0 = none). */
  jitter?: number;
  /** Remaining steps: the delay stops growing when they run out (and retry loops stop). */
  steps?: number;
  /** Upper bound for the un-jittered delay; reaching it sets steps to 0, as upstream. */
  capMs?: number;
  /** Random source for jitter (default Math.random). */
  random?: RandomSource;
}

/** Returns `ms` plus up to `maxFactor × ms` at random (wait.Jitter; maxFactor ≤ 0 means 1). */
export function jitter(ms: number, maxFactor: number, random: RandomSource = Math.random): number {
  const factor = maxFactor <= 0 ? 1 : maxFactor;
  return ms + random() * factor * ms;
}

/**
 * A stateful exponential backoff (wait.Backoff with its Step method).
 *
 * @example
 * const b = new Backoff({ durationMs: 10, factor: 5, jitter: 0.1, steps: 4 });
 * b.step(); // ~10 ms, then ~50, ~250, ~1250, then stays at 6250 (plus jitter)
 */
export class Backoff {
  /** The next un-jittered delay. */
  durationMs: number;
  /** Multiplier applied to the delay after each step. */
  readonly factor: number;
  /** Randomness added to each delay, as a fraction of it (0.1 = up to +10%). */
  readonly jitter: number;
  /** Steps left; when below 1 the delay no longer changes. */
  steps: number;
  /** Upper bound of the delay (0 = none). */
  readonly capMs: number;
  readonly #random: RandomSource;

  constructor(options: BackoffOptions) {
    this.durationMs = options.durationMs;
    this.factor = options.factor ?? 0;
    this.jitter = options.jitter ?? 0;
    this.steps = options.steps ?? 0;
    this.capMs = options.capMs ?? 0;
    this.#random = options.random ?? Math.random;
  }

  /** Returns the next delay and advances the backoff (wait.Backoff.Step). */
  step(): number {
    if (this.steps < 1) return this.jitter > 0 ? jitter(this.durationMs, this.jitter, this.#random) : this.durationMs;
    this.steps--;
    const current = this.durationMs;
    if (this.factor !== 0) {
      this.durationMs = this.durationMs * this.factor;
      if (this.capMs > 0 && this.durationMs > this.capMs) {
        this.durationMs = this.capMs;
        this.steps = 0;
      }
    }
    return this.jitter > 0 ? jitter(current, this.jitter, this.#random) : current;
  }
}

/** A source of successive delays with a reset, as the reflector uses between failed list/watch attempts. */
export interface BackoffManager {
  /** The delay to wait before the next attempt. */
  nextDelay(): number;
}

/** Options of {@link ExponentialBackoffManager} (wait.NewExponentialBackoffManager). */
export interface ExponentialBackoffManagerOptions {
  /** The first delay. */
  initialMs: number;
  /** The largest delay. */
  maxMs: number;
  /** After this long without a backoff the delay starts again from `initialMs`. */
  resetAfterMs: number;
  /** Multiplier applied after each backoff. */
  factor: number;
  /** Randomness added to each delay, as a fraction of it. */
  jitter: number;
  /** Time source (default: the real clock). */
  clock?: Clock;
  /** Randomness for the jitter (default: Math.random). */
  random?: RandomSource;
}

/**
 * Exponential backoff that resets after a quiet period (wait.exponentialBackoffManagerImpl): each
 * call doubles (×factor) the delay up to `maxMs`, jittered; if more than `resetAfterMs` passed since
 * the previous call, the delay starts again from `initialMs`.
 */
export class ExponentialBackoffManager implements BackoffManager {
  readonly #options: ExponentialBackoffManagerOptions;
  readonly #clock: Clock;
  #backoff: Backoff;
  #lastStart: number;

  constructor(options: ExponentialBackoffManagerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#backoff = this.#fresh();
    this.#lastStart = this.#clock.now();
  }

  nextDelay(): number {
    const now = this.#clock.now();
    if (now - this.#lastStart > this.#options.resetAfterMs) this.#backoff = this.#fresh();
    this.#lastStart = now;
    return this.#backoff.step();
  }

  #fresh(): Backoff {
    const { initialMs, maxMs, factor, jitter: j, random } = this.#options;
    const opts: BackoffOptions = { durationMs: initialMs, factor, jitter: j, steps: 2 ** 31 - 1, capMs: maxMs };
    if (random !== undefined) opts.random = random;
    return new Backoff(opts);
  }
}

/**
 * A backoff that starts over every `resetIntervalMs` (wait.Backoff.DelayWithReset): the interval is
 * counted from the last reset, not from the last failure, so a client failing without pause still
 * returns to the initial delay every interval. With `factor` ≤ 0 it never grows and never resets;
 * with `resetIntervalMs` ≤ 0 every delay is the initial one.
 *
 * @example
 * // The reflector's: 800 ms doubling to 30 s, full jitter, back to 800 ms every 2 minutes.
 * const b = new DelayWithReset({ durationMs: 800, capMs: 30_000, steps: 38, factor: 2, jitter: 1 }, 120_000, clock);
 */
export class DelayWithReset implements BackoffManager {
  readonly #initial: BackoffOptions;
  readonly #resetIntervalMs: number;
  readonly #clock: Clock;
  #backoff: Backoff;
  #lastStart: number;

  constructor(options: BackoffOptions, resetIntervalMs: number, clock: Clock = realClock) {
    const factor = options.factor ?? 0;
    // Without growth there is nothing to reset; without a reset interval nothing may grow.
    this.#initial = factor > 0 && resetIntervalMs <= 0 ? { ...options, steps: 0, factor: 0 } : options;
    this.#resetIntervalMs = factor > 0 ? resetIntervalMs : Number.POSITIVE_INFINITY;
    this.#clock = clock;
    this.#backoff = new Backoff(this.#initial);
    this.#lastStart = clock.now();
  }

  nextDelay(): number {
    const now = this.#clock.now();
    if (now - this.#lastStart > this.#resetIntervalMs) {
      this.#backoff = new Backoff(this.#initial);
      this.#lastStart = now;
    }
    return this.#backoff.step();
  }
}
