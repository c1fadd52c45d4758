/**
 * The one scheduler that decides everything a simulated cluster would otherwise leave to chance: which
 * pending delivery (a watch event to an informer, a request reaching the API server, a response reaching
 * its caller, a worker picking a key) runs next, and which perturbations happen. No upstream counterpart;
 * the design follows deterministic simulation testing (FoundationDB, TigerBeetle's VOPR): one seeded
 * generator, one virtual clock, one task at a time.
 *
 * Work is posted on *lanes*. A lane is a FIFO: an informer's watch stream of one resource is one lane, so
 * its events are never reordered; distinct lanes may be interleaved in any order the seed picks. Each step
 * runs the head of one lane whose `readyAt` has come, then lets the microtasks it started run to completion
 * (see {@link drainMicrotasks}), so async code under test advances exactly as far as the step allows.
 *
 * Perturbations are *candidates* numbered in the order they are drawn. A run is a pure function of
 * `(seed, keep)`: with `keep` unset every candidate is applied; with a set, only the candidates whose ordinal
 * is in it. Shrinking searches for the smallest `keep` that still fails.
 */
import type { FakeClock } from '../util/clock/clock.ts';
import { Prng } from './prng.ts';

/** A unit of work waiting on a lane. */
interface Pending {
  /** Global posting order: the default schedule is FIFO over all lanes. */
  readonly seq: number;
  readonly lane: string;
  /** Virtual time before which it may not run (a delay perturbation sets it in the future). */
  readonly readyAt: number;
  readonly label: string;
  readonly run: () => void;
}

/** A perturbation that was applied in a run. */
export interface AppliedPerturbation {
  /** Its candidate ordinal: the number to list in `keep` to replay it. */
  readonly ordinal: number;
  /** The perturbation's kind (`reorder`, `watchDelay`, `conflict`, ...). */
  readonly kind: string;
  /** Virtual milliseconds since the start of the run. */
  readonly atMs: number;
  /** What it did, for the trace. */
  readonly detail: string;
  /** The number in [0, 1) that sized it (a delay's fraction of its maximum, a choice); see the scheduler's `decide`. */
  readonly magnitude: number;
}

/**
 * Lets every microtask and `process.nextTick` callback queued so far run, and those they queue in turn:
 * a `setImmediate` callback runs only once both queues are empty. Nothing decides on wall time here; it is
 * the boundary between two simulation steps.
 */
export function drainMicrotasks(): Promise<void> {
  // eslint-disable-next-line no-restricted-globals -- a step boundary, not a timer: no virtual time passes.
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** The deterministic scheduler of one simulation run. */
export class Scheduler {
  readonly clock: FakeClock;
  /** The virtual time the run started at. */
  readonly startMs: number;
  /** Every line of the run's trace, in order. */
  readonly trace: string[] = [];
  /** Perturbations applied so far. */
  readonly applied: AppliedPerturbation[] = [];
  /** Candidate perturbations drawn so far (applied or not). */
  candidates = 0;
  /** Steps run so far. */
  steps = 0;
  readonly #decisions: Prng;
  readonly #keep: ReadonlySet<number> | undefined;
  readonly #magnitudes: ReadonlyMap<number, number> | undefined;
  readonly #reorderRate: number;
  // A lane is in #lanes iff it has at least one pending item; items within a lane are in posting order.
  readonly #lanes = new Map<string, Pending[]>();
  #seq = 0;
  #pendingCount = 0;
  // Lane-name prefixes of paused processes, and the virtual time each pause ends at.
  readonly #paused = new Map<string, number>();

  /**
   * @param seed the run's seed.
   * @param keep the candidate ordinals to apply; undefined applies all.
   * @param reorderRate probability that a step runs another ready lane than the oldest.
   * @param magnitudes sizes replacing the drawn ones, by candidate ordinal (what shrinking lowers).
   */
  constructor(clock: FakeClock, seed: number, keep: ReadonlySet<number> | undefined, reorderRate: number, magnitudes?: ReadonlyMap<number, number>) {
    this.clock = clock;
    this.startMs = clock.now();
    this.#decisions = new Prng(seed);
    this.#keep = keep;
    this.#magnitudes = magnitudes;
    this.#reorderRate = reorderRate;
  }

  /** Virtual milliseconds since the start of the run. */
  get elapsedMs(): number {
    return this.clock.now() - this.startMs;
  }

  /** Number of items waiting on every lane. */
  get pendingCount(): number {
    return this.#pendingCount;
  }

  /** Appends a line to the trace, stamped with the virtual time and step. */
  log(line: string): void {
    this.trace.push(`${String(this.elapsedMs).padStart(7)}ms #${String(this.steps).padStart(5, '0')} ${line}`);
  }

  /**
   * Draws a candidate perturbation of probability `probability`. Returns undefined when it does not happen
   * (or is not kept), else a number in [0, 1) to size it (a delay, a choice). Two numbers are drawn every
   * time, whatever the outcome, so removing one perturbation does not shift the draws of the others. A
   * magnitude given for the candidate's ordinal replaces the drawn size.
   */
  decide(kind: string, probability: number, detail: (u: number) => string): number | undefined {
    const roll = this.#decisions.next();
    const drawn = this.#decisions.next();
    if (!(roll < probability)) return undefined;
    const ordinal = this.candidates++;
    if (this.#keep !== undefined && !this.#keep.has(ordinal)) return undefined;
    const u = this.#magnitudes?.get(ordinal) ?? drawn;
    const text = detail(u);
    this.applied.push({ ordinal, kind, atMs: this.elapsedMs, detail: text, magnitude: u });
    this.log(`PERTURB #${ordinal} ${kind}: ${text}`);
    return u;
  }

  /** Posts `run` on `lane`, to run no earlier than `delayMs` from now and after everything posted before on the lane. */
  post(lane: string, label: string, run: () => void, delayMs = 0): void {
    const item: Pending = { seq: this.#seq++, lane, readyAt: this.clock.now() + delayMs, label, run };
    const q = this.#lanes.get(lane);
    if (q === undefined) this.#lanes.set(lane, [item]);
    else q.push(item);
    this.#pendingCount++;
  }

  /** Discards everything pending on the lanes whose name starts with `prefix` (a dropped connection, a crash). */
  dropLanes(prefix: string): number {
    let dropped = 0;
    for (const [lane, q] of this.#lanes) {
      if (!lane.startsWith(prefix)) continue;
      dropped += q.length;
      this.#lanes.delete(lane);
    }
    this.#pendingCount -= dropped;
    return dropped;
  }

  /**
   * Holds every lane whose name starts with one of `prefixes` until `untilMs` (virtual): a paused process
   * receives nothing meanwhile, and what came due runs once it resumes.
   */
  pause(prefixes: readonly string[], untilMs: number): void {
    for (const p of prefixes) this.#paused.set(p, Math.max(untilMs, this.#paused.get(p) ?? 0));
  }

  // The head's readyAt, held back while its lane's process is paused.
  #readyAt(lane: string, head: Pending): number {
    if (this.#paused.size === 0) return head.readyAt;
    let t = head.readyAt;
    for (const [prefix, until] of this.#paused) if (until > t && lane.startsWith(prefix)) t = until;
    return t;
  }

  /** The earliest `readyAt` of a lane head, or undefined when nothing is pending. */
  nextReadyAt(): number | undefined {
    let best: number | undefined;
    for (const [lane, q] of this.#lanes) {
      // A lane's head must run first, so a later item never makes the lane ready earlier.
      const t = this.#readyAt(lane, q[0]!);
      if (best === undefined || t < best) best = t;
    }
    return best;
  }

  /**
   * Runs one ready lane head and returns true, or returns false when none is ready yet. The oldest ready
   * head runs unless a `reorder` perturbation picks another one.
   */
  runOne(): boolean {
    const now = this.clock.now();
    const ready: Pending[] = [];
    for (const [lane, q] of this.#lanes) if (this.#readyAt(lane, q[0]!) <= now) ready.push(q[0]!);
    if (ready.length === 0) return false;
    ready.sort((a, b) => a.seq - b.seq);
    let chosen = ready[0]!;
    if (ready.length > 1) {
      const u = this.decide('reorder', this.#reorderRate, (x) => {
        const pick = ready[1 + Math.floor(x * (ready.length - 1))]!;
        return `run "${pick.label}" before "${chosen.label}"`;
      });
      if (u !== undefined) chosen = ready[1 + Math.floor(u * (ready.length - 1))]!;
    }
    const q = this.#lanes.get(chosen.lane)!;
    q.shift();
    if (q.length === 0) this.#lanes.delete(chosen.lane);
    this.#pendingCount--;
    this.steps++;
    chosen.run();
    return true;
  }
}
