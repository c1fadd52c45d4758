/**
 * The clock of one simulated process: the run's virtual clock seen through that process's own offset and
 * drift, and stopped while the process is paused. No upstream counterpart; it stands for what a replica's
 * clock looks like in a real cluster (clocks that disagree by an offset and run at slightly different
 * rates, NTP notwithstanding), and for a process stopped by the operating system (a long GC pause,
 * SIGSTOP, a VM migrated): while paused none of its timers fire, and those that came due fire when it
 * resumes.
 *
 * Leader election (tools/leaderelection) and the shard ring never compare a time written by another
 * process with their own clock: they measure durations on their own clock from when they saw a change.
 * An offset therefore changes nothing for them, and a drift only stretches or shrinks their durations;
 * a pause is what defeats them (the classic split brain, see docs/simulation.md).
 */
import { InvalidPeriodError, type Clock, type FakeClock, type Ticker, type Timer } from '../util/clock/clock.ts';

/** A process's clock skew, chosen by the seed. */
export interface ClockSkew {
  /** Added to the virtual time the process reads (ms; may be negative). */
  readonly offsetMs: number;
  /** Relative rate error: the process's clock advances `1 + drift` ms per virtual ms (e.g. 0.001 = 1 ms per second fast). */
  readonly drift: number;
}

/** A {@link Clock} over the run's {@link FakeClock} with an offset, a drift, and a pause gate. */
export class ProcessClock implements Clock {
  readonly #base: FakeClock;
  readonly #startMs: number;
  readonly #skew: ClockSkew;
  readonly #pausedUntil: () => number;

  /**
   * @param base the run's virtual clock.
   * @param skew the process's offset and drift.
   * @param pausedUntil the virtual time until which the process is paused (a past time when it is not).
   */
  constructor(base: FakeClock, skew: ClockSkew, pausedUntil: () => number) {
    this.#base = base;
    this.#startMs = base.now();
    this.#skew = skew;
    this.#pausedUntil = pausedUntil;
  }

  now(): number {
    const t = this.#base.now();
    return Math.round(t + this.#skew.offsetMs + (t - this.#startMs) * this.#skew.drift);
  }

  since(t: number): number {
    return this.now() - t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        timer.stop();
        reject(signal!.reason as Error);
      };
      const timer = this.afterFunc(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  // A local duration in virtual milliseconds: a fast clock (drift > 0) reaches it sooner. Rounded up, so
  // that a positive wait always moves virtual time (code that sleeps until its clock reads some time would
  // otherwise spin at one instant on a wait that rounds to 0).
  #virtual(ms: number): number {
    return ms > 0 ? Math.max(1, Math.ceil(ms / (1 + this.#skew.drift))) : 0;
  }

  afterFunc(ms: number, fn: () => void): Timer {
    let inner: Timer;
    let pending = true;
    const fire = (): void => {
      const wait = this.#pausedUntil() - this.#base.now();
      if (wait > 0) {
        inner = this.#base.afterFunc(wait, fire);
        return;
      }
      pending = false;
      fn();
    };
    inner = this.#base.afterFunc(this.#virtual(ms), fire);
    return {
      stop: (): boolean => {
        const was = pending;
        pending = false;
        inner.stop();
        return was;
      },
      reset: (delay: number): boolean => {
        const was = pending;
        inner.stop();
        pending = true;
        inner = this.#base.afterFunc(this.#virtual(delay), fire);
        return was;
      },
    };
  }

  newTicker(periodMs: number, fn: () => void): Ticker {
    if (!(periodMs > 0)) throw new InvalidPeriodError(periodMs);
    let stopped = false;
    let timer: Timer;
    const tick = (): void => {
      if (stopped) return;
      timer = this.afterFunc(periodMs, tick);
      fn();
    };
    timer = this.afterFunc(periodMs, tick);
    return {
      stop: (): void => {
        stopped = true;
        timer.stop();
      },
    };
  }
}
