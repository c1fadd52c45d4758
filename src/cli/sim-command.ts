/**
 * `kubeloom sim FILE`: runs the deterministic simulations a module exports (src/sim, docs/simulation.md)
 * over many seeds, stops at the first broken invariant, shrinks it and prints the report with the line
 * that replays it; or replays one schedule (`--seed`, `--keep`) with its full trace.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from './commands.ts';

const usage = `usage: kubeloom sim FILE [--export NAME] [--seeds N] [--first-seed S] [--shrink-budget N]
       kubeloom sim FILE [--export NAME] --seed S [--keep 1,4,7] [--magnitudes 4=0.125,7=0] [--trace]

Runs the simulations FILE exports (every export shaped as a Simulation, or only NAME) over seeds
S, S+1, ... (default 1 to 100), stops at the first broken invariant, shrinks it (at most
--shrink-budget re-runs, default 200, progress on stderr) to the fewest perturbations, each delay
as small as still breaks it, and prints the report: seed, kept perturbations, the replay line
and the trace's tail. With --seed, runs that one schedule (--keep limits it to those perturbations,
--magnitudes sets their sizes) and prints its report; --trace prints the whole trace. Exit code 1
when a simulation failed.
`;

/** Where the command writes (injectable for tests). */
export interface SimCommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

function isSimulation(v: unknown): v is import('../sim/simulation.ts').Simulation {
  return typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { scenario?: unknown }).scenario === 'function';
}

/** Runs `kubeloom sim` with `args`; resolves to the exit code. */
export async function runSimCommand(args: string[], io: SimCommandIo): Promise<number> {
  let file: string | undefined;
  const opts = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--help' || a === '-h') {
      io.stdout(usage);
      return 0;
    }
    if (a === '--trace') flags.add(a);
    else if (a.startsWith('--')) {
      const v = args[++i];
      if (v === undefined) {
        io.stderr(`kubeloom sim: ${a} needs a value\n${usage}`);
        return 2;
      }
      opts.set(a, v);
    } else if (file === undefined) file = a;
    else {
      io.stderr(`kubeloom sim: unexpected argument ${a}\n${usage}`);
      return 2;
    }
  }
  if (file === undefined) {
    io.stderr(usage);
    return 2;
  }
  const number = (name: string, fallback: number): number => {
    const v = opts.get(name);
    const n = v === undefined ? fallback : Number(v);
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
    return n;
  };
  const sim = await import('../sim/index.ts');
  const mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  const only = opts.get('--export');
  const entries = Object.entries(mod).filter(([name, v]) => isSimulation(v) && (only === undefined || name === only));
  if (entries.length === 0) {
    io.stderr(`kubeloom sim: ${file} exports no simulation${only === undefined ? '' : ` named ${only}`}\n`);
    return 2;
  }
  let failed = false;
  try {
    for (const [name, value] of entries) {
      const spec = value as import('../sim/simulation.ts').Simulation;
      if (opts.has('--seed')) {
        const keepText = opts.get('--keep');
        const keep = keepText === undefined ? undefined : keepText === '' ? [] : keepText.split(',').map((s) => Number(s));
        const magText = opts.get('--magnitudes');
        const magnitudes = magText === undefined || magText === '' ? undefined : Object.fromEntries(magText.split(',').map((pair) => {
          const [k, v] = pair.split('=');
          const u = Number(v);
          if (!Number.isInteger(Number(k)) || !(u >= 0 && u < 1)) throw new RangeError(`--magnitudes takes ORDINAL=SIZE pairs with SIZE in [0, 1), got ${pair}`);
          return [Number(k), u];
        }));
        const r = await sim.runSimulation(spec, { seed: number('--seed', 0), keep, magnitudes });
        io.stdout(`${name}: ${sim.formatReport(r, flags.has('--trace') ? Infinity : 80)}\n`);
        if (r.failure !== undefined) failed = true;
        continue;
      }
      const seeds = number('--seeds', 100);
      const onProgress = (p: import('../sim/shrink.ts').ShrinkProgress): void => {
        if (p.accepted || p.phase === 'done') io.stderr(`shrink ${name}: ${p.phase}, ${p.perturbations} perturbation(s) (run ${p.runs} of at most ${p.budget})\n`);
      };
      const r = await sim.explore(spec, { seeds, firstSeed: number('--first-seed', 1), shrink: { budget: number('--shrink-budget', sim.defaultShrinkBudget), onProgress } });
      if (r.failure === undefined) {
        io.stdout(`${name}: ${r.runs} seeds passed (${r.apiOps} simulated API requests)\n`);
        continue;
      }
      failed = true;
      const shrunk = r.shrunk ?? r.failure;
      io.stdout(`${name}: seed ${r.failure.seed} failed after ${r.runs} seed(s); shrunk from ${r.failure.perturbations.length} to ${shrunk.perturbations.length} perturbation(s)\n`);
      io.stdout(`${sim.formatReport(shrunk, flags.has('--trace') ? Infinity : 80)}\n`);
      const mags = Object.entries(shrunk.magnitudes ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
      io.stdout(`replay: kubeloom sim ${file} --export ${name} --seed ${shrunk.seed} --keep ${(shrunk.keep ?? []).join(',')}${mags === '' ? '' : ` --magnitudes ${mags}`}\n`);
    }
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    io.stderr(`kubeloom sim: ${err.message}\n`);
    return 2;
  }
  return failed ? 1 : 0;
}

/** The `sim` subcommand. */
export const simCommand: Command = {
  summary: 'run deterministic controller simulations over many seeds, shrink and replay failures',
  run: (args) => runSimCommand(args, { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) }),
};
