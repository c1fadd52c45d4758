/**
 * Deterministic simulation throughput and the planted-bug corpus at scale. Run:
 * ./node_modules/.bin/node bench/sim.ts [--seeds 1000] [--bug-seeds 200]
 *
 * - fixed: every fixed controller of test/sim/corpus.ts over `--seeds` seeds (default 1,000, the issue's
 *   figure); each must pass all of them. Reported per fixture: seeds/min and simulated API requests per
 *   second, both per second of this process's CPU time (stable on a shared machine) and of wall time.
 * - bugs: every planted bug over up to `--bug-seeds` seeds (default 200): the first failing seed, the
 *   perturbations it applied, how many remain after the greedy shrinker kubeloom had before (kept here as
 *   a baseline) and after src/sim/shrink.ts (ddmin, one-by-one to a fixpoint, smaller delays), with the
 *   re-runs each took and the total delay left, and whether 10 replays of the shrunk schedule were
 *   byte-identical. `--only bugs` runs just this table.
 *
 * - rest: kubeloom's ReplicaSet controller (src/controllers, over the in-process REST transport) over
 *   `--rs-seeds` seeds (default 200): passes, requests per CPU-second, seeds per CPU-minute.
 *
 * - workloads: kubeloom's Deployment, Job, StatefulSet and DaemonSet controllers (test/sim/workloads.sim.ts)
 *   over `--workload-seeds` seeds each (default 1,000). `--only workloads` runs just these, and
 *   `--workload NAME` (deployment, job, statefulset, daemonset) just that one.
 *
 * - coverage (`--only coverage`, or `--coverage NAME`): the CronJob example (test/sim/cronjob.sim.ts), the
 *   shard ring's hand-over (test/sim/sharding.sim.ts) and two leader-elected replicas with and without
 *   pauses (test/sim/leader-election.sim.ts) over `--coverage-seeds` seeds each (default 1,000). The
 *   CronJob example imports `kubeloom/...`: run with `node --conditions=kubeloom-source bench/sim.ts`
 *   (without it the CronJob row is skipped).
 *
 * Exits 1 when a fixed controller or the ReplicaSet controller fails a seed, or a bug is not found.
 */
import { performance } from 'node:perf_hooks';
import { explore, formatReport, runSimulation, shrink, type SimResult, type Simulation } from '../src/sim/index.ts';
import { leaderElectedPair, leaderElectedPairPaused } from '../test/sim/leader-election.sim.ts';
import { shardHandOver } from '../test/sim/sharding.sim.ts';
import { corpus } from '../test/sim/corpus.ts';
import { replicaSetScaling } from '../test/sim/replicaset.sim.ts';
import { workloads } from '../test/sim/workloads.sim.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
}

const seeds = arg('seeds', 1000);
const bugSeeds = arg('bug-seeds', 200);
const rsSeeds = arg('rs-seeds', 200);
const workloadSeeds = arg('workload-seeds', 1000);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const onlyWorkloads = only === 'workloads' || only === 'coverage';
const onlyBugs = only === 'bugs';
const coverageSeeds = arg('coverage-seeds', 1000);
const onlyCoverage = process.argv.includes('--coverage') ? process.argv[process.argv.indexOf('--coverage') + 1] : undefined;
let failed = false;

const fixedRows: Record<string, string | number>[] = [];
let totalOps = 0;
let totalCpu = 0;
let totalRuns = 0;
for (const [name, c] of onlyWorkloads || onlyBugs ? [] : Object.entries(corpus)) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const r = await explore(c.fix, { seeds });
  const u = process.cpuUsage(cpu);
  const cpuS = (u.user + u.system) / 1e6;
  const wallS = (performance.now() - wall) / 1000;
  totalOps += r.apiOps;
  totalCpu += cpuS;
  totalRuns += r.runs;
  if (r.failure !== undefined) {
    failed = true;
    console.error(formatReport(r.shrunk ?? r.failure));
  }
  fixedRows.push({
    fixture: name,
    result: r.failure === undefined ? `${r.runs}/${seeds} pass` : `FAILS seed ${r.failure.seed}`,
    'seeds/CPU-min': Math.round((r.runs / cpuS) * 60),
    'API ops/CPU-s': Math.round(r.apiOps / cpuS),
    'API ops/s (wall)': Math.round(r.apiOps / wallS),
    'API ops': r.apiOps,
  });
}
if (!onlyWorkloads && !onlyBugs) {
  console.log(`fixed controllers, ${seeds} seeds each`);
  console.table(fixedRows);
  console.log(`all fixtures: ${totalRuns} runs, ${totalOps} simulated API requests in ${totalCpu.toFixed(2)} CPU-s: ${Math.round(totalOps / totalCpu)} ops/CPU-s, ${Math.round((totalRuns / totalCpu) * 60)} seeds/CPU-min`);
}

// The shrinker kubeloom had before ddmin (greedy removal of halves, quarters, ... single perturbations),
// kept here as the baseline the bugs table compares src/sim/shrink.ts with.
async function greedyShrink(spec: Simulation, failing: SimResult): Promise<{ result: SimResult; runs: number }> {
  const invariant = failing.failure!.invariant;
  let runs = 0;
  const attempt = async (keep: number[]): Promise<SimResult | undefined> => {
    runs++;
    const r = await runSimulation(spec, { seed: failing.seed, keep });
    return r.failure?.invariant === invariant ? r : undefined;
  };
  let best = failing;
  let keep = failing.perturbations.map((p) => p.ordinal);
  const none = await attempt([]);
  if (none !== undefined) return { result: none, runs };
  for (let chunk = Math.max(1, Math.ceil(keep.length / 2)); chunk >= 1; chunk = chunk === 1 ? 0 : Math.ceil(chunk / 2)) {
    for (let i = 0; i < keep.length; ) {
      const candidate = [...keep.slice(0, i), ...keep.slice(i + chunk)];
      const r = candidate.length < keep.length ? await attempt(candidate) : undefined;
      if (r !== undefined) {
        best = r;
        keep = r.perturbations.map((p) => p.ordinal);
      } else i += chunk;
    }
  }
  return { result: best, runs };
}

// Total delay (watch, request) and pause time of a schedule's perturbations, in ms as the trace shows them.
function delayMs(r: SimResult): number {
  let total = 0;
  for (const p of r.perturbations) {
    const m = /(?:for|by) (\d+)ms/.exec(p.detail);
    if (m !== null && ['watchDelay', 'requestDelay', 'pause'].includes(p.kind)) total += Number(m[1]);
  }
  return total;
}

const bugRows: Record<string, string | number>[] = [];
for (const [name, c] of onlyWorkloads ? [] : Object.entries(corpus)) {
  const cpu = process.cpuUsage();
  const found = await explore(c.bug, { seeds: bugSeeds, shrink: false });
  const findCpu = process.cpuUsage(cpu);
  if (found.failure === undefined) {
    failed = true;
    bugRows.push({ bug: name, found: 'NOT FOUND' });
    continue;
  }
  const greedy = await greedyShrink(c.bug, found.failure);
  const cpu2 = process.cpuUsage();
  let shrinkRuns = 0;
  const shrunk = await shrink(c.bug, found.failure, { onProgress: (p) => void (shrinkRuns = p.runs) });
  const u2 = process.cpuUsage(cpu2);
  const r = { failure: found.failure, shrunk };
  const u = { user: findCpu.user + u2.user, system: findCpu.system + u2.system };
  let identical = 0;
  for (let i = 0; i < 10; i++) {
    const again = await runSimulation(c.bug, { seed: shrunk.seed, keep: shrunk.keep, magnitudes: shrunk.magnitudes });
    if (again.trace.join('\n') === shrunk.trace.join('\n')) identical++;
  }
  bugRows.push({
    bug: name,
    invariant: r.failure.failure!.invariant,
    'found at seed': r.failure.seed,
    applied: r.failure.perturbations.length,
    'greedy (runs)': `${greedy.result.perturbations.length} (${greedy.runs})`,
    'ddmin + 1-minimal (runs)': `${shrunk.perturbations.length} (${shrinkRuns})`,
    'delay ms greedy -> now': `${delayMs(greedy.result)} -> ${delayMs(shrunk)}`,
    'replays identical': `${identical}/10`,
    'CPU ms (find + shrink)': Math.round((u.user + u.system) / 1000),
  });
  if (identical !== 10) failed = true;
}
if (!onlyWorkloads) {
  console.log(`planted bugs, up to ${bugSeeds} seeds each`);
  console.table(bugRows);
}
if (!onlyWorkloads && !onlyBugs) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const r = await explore(replicaSetScaling, { seeds: rsSeeds });
  const u = process.cpuUsage(cpu);
  const cpuS = (u.user + u.system) / 1e6;
  if (r.failure !== undefined) {
    failed = true;
    console.error(formatReport(r.shrunk ?? r.failure));
  }
  console.log(
    `kubeloom ReplicaSet controller over the REST transport: ${r.failure === undefined ? `${r.runs}/${rsSeeds} seeds pass` : `FAILS seed ${r.failure.seed}`}, ` +
      `${r.apiOps} requests, ${Math.round(r.apiOps / cpuS)} requests/CPU-s, ${Math.round((r.runs / cpuS) * 60)} seeds/CPU-min ` +
      `(${((performance.now() - wall) / 1000).toFixed(1)} s wall)`,
  );
}
const workloadRows: Record<string, string | number>[] = [];
const onlyWorkload = process.argv.includes('--workload') ? process.argv[process.argv.indexOf('--workload') + 1] : undefined;
for (const [name, spec] of Object.entries(workloads).filter(([n]) => only !== 'coverage' && !onlyBugs && onlyCoverage === undefined && (onlyWorkload === undefined || n === onlyWorkload))) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const r = await explore(spec, { seeds: workloadSeeds });
  const u = process.cpuUsage(cpu);
  const cpuS = (u.user + u.system) / 1e6;
  if (r.failure !== undefined) {
    failed = true;
    console.error(formatReport(r.shrunk ?? r.failure));
  }
  workloadRows.push({
    controller: name,
    result: r.failure === undefined ? `${r.runs}/${workloadSeeds} pass` : `FAILS seed ${r.failure.seed}`,
    'seeds/CPU-min': Math.round((r.runs / cpuS) * 60),
    'API ops/CPU-s': Math.round(r.apiOps / cpuS),
    'API ops': r.apiOps,
    'wall s': Number(((performance.now() - wall) / 1000).toFixed(1)),
  });
}
if (workloadRows.length > 0) {
  console.log(`kubeloom's workload controllers over the REST transport, ${workloadSeeds} seeds each`);
  console.table(workloadRows);
}

// The CronJob example, the shard ring's hand-over, leader election with and without pauses.
const coverage: Record<string, Simulation> = { sharding: shardHandOver, leaderElection: leaderElectedPair, leaderElectionPaused: leaderElectedPairPaused };
try {
  coverage['cronjob'] = (await import('../test/sim/cronjob.sim.ts')).cronJobSchedule;
} catch {
  console.log('cronjob: skipped (run with node --conditions=kubeloom-source)');
}
const coverageRows: Record<string, string | number>[] = [];
for (const [name, spec] of Object.entries(coverage).filter(([n]) => (only === 'coverage' && onlyCoverage === undefined) || n === onlyCoverage)) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  let apiOps = 0;
  let splitBrains = 0;
  let failure: SimResult | undefined;
  let runs = 0;
  for (let seed = 1; seed <= coverageSeeds; seed++) {
    const r = await runSimulation(spec, { seed });
    runs++;
    apiOps += r.apiOps;
    if (r.trace.some((l) => l.includes('SPLIT BRAIN'))) splitBrains++;
    if (r.failure !== undefined) {
      failure = r;
      break;
    }
  }
  const u = process.cpuUsage(cpu);
  const cpuS = (u.user + u.system) / 1e6;
  if (failure !== undefined) {
    failed = true;
    console.error(formatReport(await shrink(spec, failure)));
  }
  coverageRows.push({
    scenario: name,
    result: failure === undefined ? `${runs}/${coverageSeeds} pass` : `FAILS seed ${failure.seed}`,
    'runs with a split brain': splitBrains,
    'seeds/CPU-min': Math.round((runs / cpuS) * 60),
    'API ops/CPU-s': Math.round(apiOps / cpuS),
    'API ops': apiOps,
    'wall s': Number(((performance.now() - wall) / 1000).toFixed(1)),
  });
}
if (coverageRows.length > 0) {
  console.log(`the CronJob example, the shard ring, leader election, ${coverageSeeds} seeds each`);
  console.table(coverageRows);
}
process.exitCode = failed ? 1 : 0;
