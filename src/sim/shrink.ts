/**
 * Shrinking a failing run to a minimal schedule. No upstream counterpart: the algorithm is Zeller and
 * Hildebrandt's delta debugging (ddmin, "Simplifying and Isolating Failure-Inducing Input", 2002) over the
 * perturbations the run applied, followed by one-by-one removal until nothing more can go (1-minimality:
 * removing any single remaining perturbation no longer breaks the invariant), then by lowering the size of
 * each remaining delay or pause (halving toward zero) while the run still breaks, as property-based
 * testing tools (QuickCheck, Hypothesis) shrink numbers.
 *
 * A run is a pure function of `(seed, keep, magnitudes)`, so every attempt is an exact re-run. Removing one
 * perturbation can change the schedule and with it which later decisions happen, so the candidate
 * ordinals of a kept set may name other perturbations than in the original run: each accepted attempt
 * continues from the perturbations *that run* applied, and the result is minimal for the schedule it
 * describes, not a global minimum over every seed. It always replays exactly.
 */
import { holdVirtualGlobals } from './globals.ts';
import type { AppliedPerturbation } from './scheduler.ts';
import { runSimulation, type SimResult, type Simulation } from './simulation.ts';

/** Perturbation kinds whose magnitude is a size (a fraction of its maximum delay or pause). */
const sizedKinds: ReadonlySet<string> = new Set(['watchDelay', 'requestDelay', 'pause']);

// Halvings tried per sized perturbation after trying zero: 1/2, 1/4, ... 1/32 of its drawn size.
const maxHalvings = 5;

/** One step of {@link shrink}, for progress output. */
export interface ShrinkProgress {
  /** `none` (no perturbation at all), `ddmin`, `one-by-one`, `magnitude`, or `done`. */
  readonly phase: 'none' | 'ddmin' | 'one-by-one' | 'magnitude' | 'done';
  /** Runs made so far. */
  readonly runs: number;
  /** The run budget. */
  readonly budget: number;
  /** Perturbations of the smallest failing schedule so far. */
  readonly perturbations: number;
  /** Whether the attempt just made still failed (and was kept). */
  readonly accepted: boolean;
}

/** Options of {@link shrink}. */
export interface ShrinkOptions {
  /** Re-runs the shrinker may make; when spent, it returns the smallest failing schedule found so far. Default 200. */
  budget?: number;
  /** Called after every attempt (and once with `phase: 'done'`). */
  onProgress?: (p: ShrinkProgress) => void;
}

/** The default run budget of {@link shrink}. */
export const defaultShrinkBudget = 200;

/**
 * Shrinks a failing run: the same seed, with as few perturbations as still break the same invariant
 * (ddmin, then one-by-one removal to a fixpoint), each delay and pause as small as still breaks it, within
 * `budget` re-runs. Returns that run (its `keep` and `magnitudes` replay it exactly), or `failing` itself
 * when it did not fail.
 *
 * @example
 * ```ts
 * const found = await explore(spec, { seeds: 200, shrink: false });
 * const minimal = await shrink(spec, found.failure!, { budget: 100, onProgress: (p) => console.error(`${p.phase}: ${p.perturbations}`) });
 * ```
 */
export async function shrink(spec: Simulation, failing: SimResult, options: ShrinkOptions = {}): Promise<SimResult> {
  const invariant = failing.failure?.invariant;
  if (invariant === undefined) return failing;
  const release = holdVirtualGlobals();
  try {
    return await shrinkHeld(spec, failing, invariant, options);
  } finally {
    release();
  }
}

async function shrinkHeld(spec: Simulation, failing: SimResult, invariant: string, options: ShrinkOptions): Promise<SimResult> {
  const budget = options.budget ?? defaultShrinkBudget;
  let runs = 0;
  let best = failing;
  const report = (phase: ShrinkProgress['phase'], accepted: boolean): void => options.onProgress?.({ phase, runs, budget, perturbations: best.perturbations.length, accepted });
  // Runs one candidate schedule; keeps it when it breaks the same invariant with no more perturbations.
  const attempt = async (phase: ShrinkProgress['phase'], keep: readonly number[], magnitudes: Record<number, number>): Promise<boolean> => {
    if (runs >= budget) return false;
    runs++;
    const r = await runSimulation(spec, { seed: failing.seed, keep, magnitudes: restrict(magnitudes, keep) });
    const ok = r.failure?.invariant === invariant && r.perturbations.length <= best.perturbations.length;
    if (ok) best = r;
    report(phase, ok);
    return ok;
  };
  const ordinals = (): number[] => best.perturbations.map((p) => p.ordinal);
  const mags = (): Record<number, number> => ({ ...best.magnitudes });

  if (await attempt('none', [], {})) return finish();

  // ddmin: try each of n chunks alone, then each complement; refine n when neither fails.
  let n = 2;
  while (ordinals().length >= 2 && runs < budget) {
    const current = ordinals();
    const chunks = split(current, Math.min(n, current.length));
    let reduced = false;
    for (const c of chunks) {
      if (await attempt('ddmin', c, mags())) {
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && chunks.length > 2) {
      for (const c of chunks) {
        const complement = current.filter((o) => !c.includes(o));
        if (await attempt('ddmin', complement, mags())) {
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (reduced) continue;
    if (n >= current.length) break;
    n = Math.min(current.length, 2 * n);
  }

  // One-by-one removal and smaller sizes, until neither changes anything.
  for (let changed = true; changed && runs < budget; ) {
    changed = false;
    for (let i = 0; i < ordinals().length && runs < budget; ) {
      const current = ordinals();
      if (await attempt('one-by-one', [...current.slice(0, i), ...current.slice(i + 1)], mags())) changed = true;
      else i++;
    }
    for (const p of best.perturbations) {
      if (runs >= budget) break;
      if (await smaller(p, ordinals(), attempt, mags())) changed = true;
    }
  }
  return finish();

  async function finish(): Promise<SimResult> {
    // The result replays exactly: keep exactly what it applied, with its sizes.
    const keep = ordinals();
    if (best.keep === undefined || best.keep.length !== keep.length) {
      runs++;
      const r = await runSimulation(spec, { seed: failing.seed, keep, magnitudes: restrict(mags(), keep) });
      if (r.failure?.invariant === invariant) best = r;
    }
    report('done', true);
    return best;
  }
}

// Lowers the size of one sized perturbation of the schedule `keep`: the smallest of zero, 1/32, 1/16, ...
// 1/2 of its current size that still fails is kept. True when it got smaller.
async function smaller(p: AppliedPerturbation, keep: readonly number[], attempt: (phase: 'magnitude', keep: readonly number[], m: Record<number, number>) => Promise<boolean>, mags: Record<number, number>): Promise<boolean> {
  if (!sizedKinds.has(p.kind) || p.magnitude === 0 || !keep.includes(p.ordinal)) return false;
  const sizes = [0, ...Array.from({ length: maxHalvings }, (_, i) => p.magnitude / 2 ** (maxHalvings - i))];
  for (const u of sizes) if (await attempt('magnitude', keep, { ...mags, [p.ordinal]: u })) return true;
  return false;
}

// Only the sizes of kept ordinals (the rest would be ignored, and would clutter the replay line).
function restrict(magnitudes: Record<number, number>, keep: readonly number[]): Record<number, number> | undefined {
  const out: Record<number, number> = {};
  for (const o of keep) if (magnitudes[o] !== undefined) out[o] = magnitudes[o];
  return Object.keys(out).length === 0 ? undefined : out;
}

// Splits `items` into `n` contiguous chunks of nearly equal size.
function split<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = start + Math.ceil((items.length - start) / (n - i));
    out.push(items.slice(start, end));
    start = end;
  }
  return out;
}
