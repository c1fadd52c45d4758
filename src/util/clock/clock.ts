/**
 * The one place in kubeloom that reads wall-clock time or schedules timers.
 *
 * Every time-dependent component (reflector backoff, work queue delays, leader election, rate limiters)
 * takes a {@link Clock} so that tests can drive it with a {@link FakeClock} instead of sleeping.
 * This mirrors k8s.io/utils/clock.
 */

/** A one-shot timer created by {@link Clock.afterFunc}. */
export interface Timer {
  /** Prevents the timer from firing. Returns true if it was pending (had not fired or been stopped). */
  stop(): boolean;
  /** Re-arms the timer to fire `ms` from now. Returns true if it was pending before the reset. */
  reset(ms: number): boolean;
}

/** A repeating timer created by {@link Clock.newTicker}. */
export interface Ticker {
  /** Stops the ticker; no further ticks are delivered. */
  stop(): void;
}

/** A source of time and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Milliseconds elapsed since `t` (a value returned by {@link Clock.now}). */
  since(t: number): number;
  /**
   * Resolves after `ms` milliseconds. Rejects with `signal.reason` if the signal aborts first
   * (immediately if it is already aborted). `ms <= 0` resolves on the next turn.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fn` once after `ms` milliseconds unless the returned timer is stopped first. */
  afterFunc(ms: number, fn: () => void): Timer;
  /** Calls `fn` every `periodMs` milliseconds until stopped. `periodMs` must be positive. */
  newTicker(periodMs: number, fn: () => void): Ticker;
}

/** Error thrown for a non-positive ticker period, as Go's time.NewTicker panics. */
export class InvalidPeriodError extends RangeError {
  /** Stable identifier of this error. */
  readonly code = 'ERR_INVALID_PERIOD';
  constructor(periodMs: number) {
    super(`ticker period must be positive, got ${periodMs} ms`);
    this.name = 'InvalidPeriodError';
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Implements {@link Clock.sleep} on top of any clock's {@link Clock.afterFunc}. */
function sleepOn(clock: Pick<Clock, 'afterFunc'>, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.stop();
      reject(abortReason(signal!));
    };
    const timer = clock.afterFunc(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The real clock, backed by `Date.now` and Node's timers. Its timers keep the process alive while
 * pending (as goroutines do in Go): long-running components stop them on shutdown or abort.
 */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  since(t: number): number {
    return Date.now() - t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  afterFunc(ms: number, fn: () => void): Timer {
    let handle: NodeJS.Timeout | undefined;
    const arm = (delay: number): void => {
      handle = setTimeout(() => {
        handle = undefined;
        fn();
      }, Math.max(0, delay));
    };
    arm(ms);
    return {
      stop(): boolean {
        if (handle === undefined) return false;
        clearTimeout(handle);
        handle = undefined;
        return true;
      },
      reset(delay: number): boolean {
        const wasPending = handle !== undefined;
        if (handle !== undefined) clearTimeout(handle);
        arm(delay);
        return wasPending;
      },
    };
  }

  newTicker(periodMs: number, fn: () => void): Ticker {
    if (!(periodMs > 0)) throw new InvalidPeriodError(periodMs);
    const handle = setInterval(fn, periodMs);
    return { stop: () => clearInterval(handle) };
  }
}

/** The shared real clock: the default wherever a component accepts an optional `clock`. */
export const realClock: Clock = new RealClock();

interface FakeTimerEntry {
  when: number;
  seq: number;
  fn: () => void;
  active: boolean;
  /** Set for tickers: the timer re-arms itself this many ms after each firing. */
  period?: number;
}

/** Lets pending promise callbacks (and anything they chain) run before the next timer fires. */
async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * A manually driven clock for tests. Time only moves when the test calls {@link FakeClock.step}
 * (or {@link FakeClock.setTime}); due timers then fire in time order, and promise callbacks they
 * trigger are allowed to settle between firings, so code awaiting `clock.sleep` runs to its next
 * await before time moves on.
 *
 * @example
 * const clock = new FakeClock();
 * const slept = clock.sleep(1000);
 * await clock.step(1000); // `slept` has resolved and its continuations have run
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: FakeTimerEntry[] = [];

  /** @param start initial time in ms since the epoch (default: 2024-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2024, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  since(t: number): number {
    return this.#now - t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  afterFunc(ms: number, fn: () => void): Timer {
    const entry = this.#schedule(ms, fn);
    let current = entry;
    return {
      stop: (): boolean => {
        const wasPending = current.active;
        current.active = false;
        this.#timers = this.#timers.filter((t) => t !== current);
        return wasPending;
      },
      reset: (delay: number): boolean => {
        const wasPending = current.active;
        current.active = false;
        this.#timers = this.#timers.filter((t) => t !== current);
        current = this.#schedule(delay, fn);
        return wasPending;
      },
    };
  }

  newTicker(periodMs: number, fn: () => void): Ticker {
    if (!(periodMs > 0)) throw new InvalidPeriodError(periodMs);
    const entry = this.#schedule(periodMs, fn, periodMs);
    return {
      stop: (): void => {
        entry.active = false;
        this.#timers = this.#timers.filter((t) => t !== entry);
      },
    };
  }

  /** True when at least one timer, sleep or ticker is pending. */
  hasWaiters(): boolean {
    return this.#timers.length > 0;
  }

  /** Number of pending timers, sleeps and tickers. */
  waiterCount(): number {
    return this.#timers.length;
  }

  /** Milliseconds until the earliest pending timer fires, or undefined when none is pending. */
  nextTimerIn(): number | undefined {
    const first = this.#earliest();
    return first === undefined ? undefined : Math.max(0, first.when - this.#now);
  }

  /**
   * Advances time by `ms`, firing every timer that falls due in order of due time (ties in creation
   * order), letting promise callbacks settle after each firing.
   */
  async step(ms: number): Promise<void> {
    await this.setTime(this.#now + Math.max(0, ms));
  }

  /** Moves time forward to `t` (never backwards), firing due timers as {@link FakeClock.step} does. */
  async setTime(t: number): Promise<void> {
    await settle();
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.when > t) break;
      this.#now = Math.max(this.#now, next.when);
      if (next.period !== undefined) {
        next.when += next.period;
      } else {
        next.active = false;
        this.#timers = this.#timers.filter((e) => e !== next);
      }
      next.fn();
      await settle();
    }
    this.#now = Math.max(this.#now, t);
    await settle();
  }

  /** Advances time to the earliest pending timer and fires it (and any due at the same time). */
  async stepToNextTimer(): Promise<boolean> {
    const next = this.#earliest();
    if (next === undefined) return false;
    await this.setTime(next.when);
    return true;
  }

  /**
   * Resolves once at least `count` timers are pending, polling between event-loop turns. Use it to wait
   * until the code under test has reached its next `sleep` before stepping the clock.
   */
  async waitForWaiters(count = 1, maxTurns = 10_000): Promise<void> {
    for (let i = 0; i < maxTurns; i++) {
      if (this.#timers.length >= count) return;
      await settle(1);
    }
    throw new Error(`FakeClock: expected ${count} waiter(s), have ${this.#timers.length}`);
  }

  #schedule(ms: number, fn: () => void, period?: number): FakeTimerEntry {
    const entry: FakeTimerEntry = { when: this.#now + Math.max(0, ms), seq: this.#seq++, fn, active: true };
    if (period !== undefined) entry.period = period;
    this.#timers.push(entry);
    return entry;
  }

  #earliest(): FakeTimerEntry | undefined {
    let best: FakeTimerEntry | undefined;
    for (const t of this.#timers) {
      if (best === undefined || t.when < best.when || (t.when === best.when && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
