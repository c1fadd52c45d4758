/**
 * A poller for tests, like Gomega's `Eventually`: calls a function until it passes — it returns without
 * throwing, and what it returns is not falsy (`undefined`, what an assertion-style function returns, counts
 * as passing) — or until the time is up, then fails with the last error as the cause. Time comes from the
 * injected clock, so a test on a FakeClock steps through the polls instead of waiting.
 */
import { KubeloomError } from '../apimachinery/errors.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';

/** Options of {@link eventually}. */
export interface EventuallyOptions {
  /** Give up after this long (default 1000 ms, Gomega's default). */
  timeoutMs?: number;
  /** Pause between attempts (default 10 ms, Gomega's default). */
  intervalMs?: number;
  /** Time source for the pauses and the deadline (default: the real clock). */
  clock?: Clock;
  /** Aborting stops polling; `eventually` rejects with the abort reason. */
  signal?: AbortSignal;
}

/** Thrown by {@link eventually} when the time is up; `cause` is the last attempt's error, if it threw. */
export class EventuallyTimeoutError extends KubeloomError {
  /** How many times the function was called. */
  readonly attempts: number;
  /** What the last attempt returned, when it returned a falsy value instead of throwing. */
  readonly lastResult: unknown;

  constructor(timeoutMs: number, attempts: number, last: { error: unknown } | { result: unknown }) {
    const why = 'error' in last ? (last.error instanceof Error ? last.error.message : String(last.error)) : `it returned ${describe(last.result)}`;
    super('ERR_EVENTUALLY_TIMEOUT', `timed out after ${timeoutMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'}): ${why}`, 'error' in last ? { cause: last.error } : undefined);
    this.attempts = attempts;
    this.lastResult = 'result' in last ? last.result : undefined;
  }
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  return String(v);
}

/** Whether an attempt's result counts as passing: anything but a falsy value other than `undefined`. */
function passes(result: unknown): boolean {
  return result === undefined || Boolean(result);
}

/**
 * Calls `fn` until it passes (see the file comment) and returns what it returned last. An attempt still
 * running at the deadline counts as failed.
 *
 * @example
 * await eventually(async () => {
 *   const pod = await pods.get('web-0');
 *   assert.equal(pod.status?.phase, 'Running');
 * }, { timeoutMs: 5000 });
 * const node = await eventually(() => nodes.list().then((l) => l.items[0] ?? null));
 */
export async function eventually<T>(fn: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  const clock = options.clock ?? realClock;
  const timeoutMs = options.timeoutMs ?? 1000;
  const intervalMs = options.intervalMs ?? 10;
  const { signal } = options;
  const deadline = clock.now() + timeoutMs;
  let attempts = 0;
  let last: { error: unknown } | { result: unknown } = { result: undefined };
  for (;;) {
    signal?.throwIfAborted();
    attempts++;
    const stop = new AbortController();
    const timedOut = Symbol('timed out');
    const attempt = (async () => fn())();
    // Abandoned at the deadline, a late failure must not surface as an unhandled rejection.
    attempt.catch(() => {});
    // An attempt that never settles must not outlive the deadline.
    const limit = clock.sleep(Math.max(0, deadline - clock.now()), AbortSignal.any([stop.signal, ...(signal === undefined ? [] : [signal])])).then(
      () => timedOut,
      () => timedOut,
    );
    try {
      const result = await Promise.race([attempt, limit]);
      if (result === timedOut) last = { error: new Error(`attempt ${attempts} was still running at the deadline`) };
      else if (passes(result)) return result as T;
      else last = { result };
    } catch (error) {
      last = { error };
    } finally {
      stop.abort();
    }
    signal?.throwIfAborted();
    const left = deadline - clock.now();
    if (left <= 0) throw new EventuallyTimeoutError(timeoutMs, attempts, last);
    await clock.sleep(Math.min(intervalMs, left), signal);
  }
}
