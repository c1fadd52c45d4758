/**
 * Running a simulation: one seeded run ({@link runSimulation}), a search over seeds ({@link explore}),
 * shrinking a failure to the fewest perturbations that still break the same invariant ({@link shrink}),
 * and the one-line regression check ({@link assertSimulation}). No upstream counterpart; see
 * docs/simulation.md.
 *
 * A run is a pure function of `(spec, seed, keep)`: the API server (its handler and storage), every process's informers,
 * queues and reconciles, and the scenario run in this process on a {@link FakeClock}, and every choice
 * between them is made by the {@link Scheduler}. While a run is in progress `Math.random` draws from a
 * generator seeded by the run, and timers, `Date` and `performance.now` run on the virtual clock
 * (src/sim/globals.ts); all are restored afterwards, also when the run throws, and runs must not overlap
 * in one process (a SimulationOverlapError). Real I/O by the code under test ends the run with a
 * SimulationRealIoError.
 */
import type { RestConfig } from '../rest/config.ts';
import type { RestClientOptions } from '../rest/client.ts';
import type { LogFields, Logger } from '../tools/events/logger.ts';
import { FakeClock, type Clock } from '../util/clock/clock.ts';
import { SimClient } from './client.ts';
import { SimCluster, type SimKind } from './cluster.ts';
import type { SimControllerSpec } from './controller.ts';
import type { Caller } from './api.ts';
import { newEnv, type SimEnv, type SimFailure, type SimLimits } from './env.ts';
import { SimulationConfigError, SimulationFailedError } from './errors.ts';
import { clusterView, noStuckFinalizers, singleControllerOwner, type ClusterView, type Invariant } from './invariants.ts';
import { defaultPerturbationRates, type PerturbationRates } from './perturbations.ts';
import { Prng } from './prng.ts';
import { SimProcess } from './process.ts';
import { LeaderTracker } from './leaders.ts';
import { ProcessClock, type ClockSkew } from './process-clock.ts';
import { drainMicrotasks, Scheduler, type AppliedPerturbation } from './scheduler.ts';
import { holdVirtualGlobals, installVirtualGlobals } from './globals.ts';
import { shrink, type ShrinkOptions } from './shrink.ts';
import { SimDispatcher } from './transport.ts';

/** What the scenario gets: a client of its own and ways to wait. */
export interface ScenarioContext {
  /** An uncached client whose requests are scheduled like any other but never perturbed. */
  readonly client: SimClient;
  /** The cluster's true state. */
  readonly view: ClusterView;
  /** Resolves once nothing is pending and no timer is due within `settleMs`. */
  readonly settle: () => Promise<void>;
  /** Sleeps on the virtual clock. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Adds a line to the trace. */
  readonly log: (line: string) => void;
  /**
   * Kills a process at once, as `kill -9` (caches, queues, timers and in-flight work lost, its Leases left
   * to expire); it is started again after `restartAfterMs` if given, else never. Throws for an unknown name.
   */
  readonly kill: (process: string, options?: { restartAfterMs?: number }) => void;
}

/**
 * What {@link Simulation.start} gets to run code built on kubeloom's REST client (typed clientsets,
 * informers, the controllers of src/controllers, a Manager) inside the simulation.
 */
export interface SimHarness {
  /** The run's virtual clock: pass it to everything that takes a `clock`. */
  readonly clock: Clock;
  /** Aborted when the run ends or the process crashes: pass it to everything that takes a `signal`. */
  readonly signal: AbortSignal;
  /** Options for a RestClient (or `newClientset`) whose requests go to the simulated cluster as process `name`. */
  restClientOptions(name: string): RestClientOptions;
  /** A RestConfig to go with them (no credentials; the host is never contacted). */
  readonly restConfig: RestConfig;
  /**
   * A logger writing info and error lines into the trace, e.g. a Manager's `logger`. Of debug lines only a
   * Manager controller's 'Reconcile done' is kept, as a `RECONCILE <process>/<controller> <key> <result>
   * (cause: …)` line with the reconcile's causes; other debug lines are dropped.
   */
  readonly logger: Logger;
}

/** A simulation: controllers, a scenario, and what must hold. */
export interface Simulation {
  /** Shown in reports. */
  name: string;
  /** Controllers run by one process named `manager`. */
  controllers?: SimControllerSpec[];
  /**
   * Several processes (instead of, or besides, `controllers`), each running `SimControllerSpec`
   * controllers or, with `start`, code built on kubeloom's REST client (e.g. one replica of a
   * leader-elected or sharded Manager). A process with `start` gets a clock of its own (offset and drift
   * drawn by the seed within `clockSkew`), may be paused (the `pause` perturbation), and its requests
   * appear in the trace as `<process>/<client>`.
   */
  processes?: {
    /** The process's name, as the trace shows it. */
    name: string;
    /** The `SimControllerSpec` controllers the process runs. */
    controllers?: SimControllerSpec[];
    /** Starts the process's REST-based code, as {@link Simulation.start}; called again after a crash. */
    start?: (harness: SimHarness) => void;
  }[];
  /**
   * Clock skew between REST processes: each draws, from the seed, an offset within ±`maxOffsetMs` and a
   * drift within ±`maxDrift` (see {@link ClockSkew}). Default none: every process reads the virtual clock.
   */
  clockSkew?: {
    /** Largest clock offset of a process, either way (ms). */
    maxOffsetMs: number;
    /** Largest rate error of a process's clock, either way (0.01: 10 ms per second). */
    maxDrift: number;
  };
  /**
   * Starts code built on kubeloom's REST client inside the run as one simulated process, e.g. a Manager
   * with the user's `setup(mgr)`, or kube-controller-manager's controllers:
   * `startControllers(newClientset(h.restConfig, h.restClientOptions('kcm')), { controllers: ['replicaset'], clock: h.clock, signal: h.signal })`.
   * After a `crash` perturbation it is called again (after `restartDelayMs`) for the new incarnation.
   * Custom kinds it uses must be listed in `kinds`.
   */
  start?: (harness: SimHarness) => void;
  /** Custom kinds the REST transport serves, each through a CustomResourceDefinition the run writes (built-in kinds are always served). */
  kinds?: SimKind[];
  /** The user's actions, as ordinary async code against a client. */
  scenario(ctx: ScenarioContext): Promise<void>;
  /** Checked after every step that wrote to the cluster (the built-in singleControllerOwner is added). */
  invariants?: Invariant[];
  /** Checked once the run quiesced after the scenario (the built-in noStuckFinalizers is added). */
  eventually?: Invariant[];
  /** Perturbation probabilities; unset ones take {@link defaultPerturbationRates}. */
  perturbations?: Partial<PerturbationRates>;
  /** Sizes of delays; see {@link SimLimits}. */
  limits?: Partial<SimLimits>;
  /** Changes the API server keeps for watch resumption before compacting (older resumes get 410 Gone). Default 40. */
  historySize?: number;
  /** Virtual time the run may take before it counts as not quiescing. Default 600000 ms (10 min). */
  deadlineMs?: number;
  /** Steps the run may take before it counts as not quiescing. Default 20000. */
  maxSteps?: number;
  /** A timer due further away than this does not keep the cluster busy (periodic resyncs). Default 30000 ms. */
  settleMs?: number;
}

/** Which run to make: the seed, and optionally which candidate perturbations to keep. */
export interface RunOptions {
  /** The seed: it decides the schedule and the perturbations. */
  seed: number;
  /** Candidate ordinals to apply; unset applies every candidate. */
  keep?: readonly number[];
  /**
   * Sizes in [0, 1) replacing the drawn ones, by candidate ordinal: a delay or a pause is this fraction of
   * its maximum (`maxWatchDelayMs`, `maxRequestDelayMs`, `maxPauseMs`). Shrinking lowers them.
   */
  magnitudes?: Readonly<Record<number, number>>;
}

/** The outcome of one run. */
export interface SimResult {
  /** The simulation's name ({@link Simulation.name}). */
  readonly name: string;
  /** The seed of the run. */
  readonly seed: number;
  /** The `keep` the run was made with (undefined: all). */
  readonly keep: readonly number[] | undefined;
  /** The `magnitudes` the run was made with (undefined: as drawn). */
  readonly magnitudes: Readonly<Record<number, number>> | undefined;
  /** The first broken invariant, if any. */
  readonly failure: SimFailure | undefined;
  /** Perturbations applied, in order. */
  readonly perturbations: readonly AppliedPerturbation[];
  /** Candidate perturbations drawn. */
  readonly candidates: number;
  /** Scheduler steps taken. */
  readonly steps: number;
  /** Requests the server handled (including informers' lists). */
  readonly apiOps: number;
  /** Reconciles of `SimControllerSpec` controllers (those of a REST process are not counted). */
  readonly reconciles: number;
  /** Virtual time the run took, in milliseconds. */
  readonly virtualMs: number;
  /** The trace: one line per event, reconcile, API call and perturbation. */
  readonly trace: readonly string[];
}

// Defaults documented on SimLimits.
const defaultLimits: SimLimits = { maxWatchDelayMs: 2000, maxRequestDelayMs: 500, restartDelayMs: 1000, watchRetryMs: 800, maxPauseMs: 20_000 };

/** Runs a simulation once. */
export async function runSimulation(spec: Simulation, options: RunOptions): Promise<SimResult> {
  const clock = new FakeClock();
  const rates: PerturbationRates = { ...defaultPerturbationRates, ...spec.perturbations };
  const magnitudes = options.magnitudes === undefined ? undefined : new Map(Object.entries(options.magnitudes).map(([k, v]) => [Number(k), v]));
  const sched = new Scheduler(clock, options.seed, options.keep === undefined ? undefined : new Set(options.keep), rates.reorder, magnitudes);
  // Every kind a SimControllerSpec process watches, then `kinds`: served (custom ones through a CRD) from the start.
  const controllerKinds = [...(spec.controllers ?? []), ...(spec.processes ?? []).flatMap((p) => p.controllers ?? [])].flatMap((c) => [c.for, ...(c.owns ?? []), ...(c.watches ?? []).map((w) => w.kind)]);
  const cluster = new SimCluster(sched, spec.historySize ?? 40, options.seed, [...controllerKinds, ...(spec.kinds ?? [])]);
  const env = newEnv(sched, cluster, rates, { ...defaultLimits, ...spec.limits });
  const view = clusterView(cluster);
  const always = [singleControllerOwner, ...(spec.invariants ?? [])];
  const eventually = [noStuckFinalizers, ...(spec.eventually ?? [])];
  const deadlineMs = spec.deadlineMs ?? 600_000;
  const maxSteps = spec.maxSteps ?? 20_000;
  const settleMs = spec.settleMs ?? 30_000;

  // Timers, Date, performance.now, Math.random and crypto of the code under test run on the seed and the
  // virtual clock (src/sim/globals.ts); throws SimulationOverlapError while another run is in progress.
  const globals = installVirtualGlobals({ sched, seed: options.seed, uncaught: (err) => env.fail('uncaughtException', `a timer callback threw: ${err instanceof Error ? err.message : String(err)}`) });
  const stop = new AbortController();
  try {
    const processes = [...(spec.controllers === undefined ? [] : [{ name: 'manager', controllers: spec.controllers }]), ...(spec.processes ?? [])];
    const killers = new Map<string, (restartAfterMs: number | undefined) => void>();
    for (const p of processes) {
      if (p.controllers === undefined) continue;
      const proc = new SimProcess(env, p.name, p.controllers);
      proc.start();
      killers.set(p.name, (after) => proc.kill(after));
    }
    for (const k of spec.kinds ?? []) cluster.register(k);
    const leaders = new LeaderTracker(env);
    if (spec.start !== undefined) killers.set('process', startRestProcess(env, leaders, 'process', false, spec.start, clock, stop.signal, undefined, options.seed));
    for (const p of spec.processes ?? []) if (p.start !== undefined) killers.set(p.name, startRestProcess(env, leaders, p.name, true, p.start, clock, stop.signal, spec.clockSkew, options.seed));

    const settleWaiters: (() => void)[] = [];
    const scenarioCaller = { name: 'user', perturbable: false, epoch: () => 0, beforeResponse: () => true };
    const ctx: ScenarioContext = {
      client: new SimClient(env, scenarioCaller, undefined),
      view,
      settle: () => new Promise<void>((resolve) => settleWaiters.push(resolve)),
      sleep: (ms) => clock.sleep(ms),
      log: (line) => sched.log(`SCENARIO ${line}`),
      kill: (name, o) => {
        const k = killers.get(name);
        if (k === undefined) throw new SimulationConfigError(`kill: no process named ${JSON.stringify(name)} (processes: ${[...killers.keys()].join(', ')})`);
        sched.log(`SCENARIO kill ${name}${o?.restartAfterMs === undefined ? '' : ` (restart in ${o.restartAfterMs}ms)`}`);
        k(o?.restartAfterMs);
      },
    };
    let scenarioDone = false;
    void (async () => {
      try {
        await spec.scenario(ctx);
      } catch (err) {
        env.fail('scenario', `the scenario threw: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        scenarioDone = true;
      }
    })();

    let checkedRevision = -1;
    for (;;) {
      await drainMicrotasks();
      if (env.failure !== undefined || globals.realIo !== undefined) break;
      if (cluster.storage.revision !== checkedRevision) {
        checkedRevision = cluster.storage.revision;
        for (const inv of always) {
          const msg = inv.check(view);
          if (msg !== undefined) {
            env.fail(inv.name, msg);
            break;
          }
        }
        if (env.failure !== undefined) break;
      }
      if (sched.steps >= maxSteps || sched.elapsedMs > deadlineMs) {
        env.fail('quiescence', `the cluster did not quiesce within ${sched.steps >= maxSteps ? `${maxSteps} steps` : `${deadlineMs}ms`}; busiest: ${busiest(env.reconcileCounts)}`);
        break;
      }
      // Lease renewals never stop: a cluster whose only traffic for settleMs was Leases is quiet too.
      const idle = clock.now() - env.lastActivityMs >= settleMs;
      if (!idle && sched.runOne()) continue;
      // Before time moves: work that takes several event-loop turns (a REST client's error path, for one)
      // gets them, so that what it posts runs now rather than after the next timer.
      if (!idle && (await lateWork(sched, clock))) continue;
      const nextReady = sched.nextReadyAt();
      const timerIn = clock.nextTimerIn();
      const quiet = idle || (nextReady === undefined && (timerIn === undefined || timerIn > settleMs));
      if (quiet && settleWaiters.length > 0) {
        sched.log('SCENARIO settled');
        for (const w of settleWaiters.splice(0)) w();
        env.activity();
        continue;
      }
      if (idle && !scenarioDone) {
        // Idle while the scenario sleeps: the sleep is activity to come, so time goes on.
        if (sched.runOne()) continue;
      }
      if (quiet && scenarioDone) {
        for (const inv of eventually) {
          const msg = inv.check(view);
          if (msg !== undefined) {
            env.fail(inv.name, msg);
            break;
          }
        }
        if (env.failure === undefined) sched.log('QUIESCENT: every invariant holds');
        break;
      }
      const candidates = [nextReady, timerIn === undefined ? undefined : clock.now() + timerIn].filter((t): t is number => t !== undefined);
      if (candidates.length === 0) {
        env.fail('scenario', 'the scenario waits for something that can never happen (nothing pending, no timer)');
        break;
      }
      await clock.setTime(Math.min(...candidates));
    }
  } finally {
    stop.abort();
    // Lets what the abort started (informers and workers stopping) run while the run's bindings hold.
    for (let i = 0; i < 3; i++) await drainMicrotasks();
    globals.restore();
  }
  if (globals.realIo !== undefined) throw globals.realIo;
  return {
    name: spec.name,
    seed: options.seed,
    keep: options.keep,
    magnitudes: options.magnitudes,
    failure: env.failure,
    perturbations: sched.applied,
    candidates: sched.candidates,
    steps: sched.steps,
    apiOps: env.apiOps,
    reconciles: env.reconciles,
    virtualMs: sched.elapsedMs,
    trace: sched.trace,
  };
}

// Runs `start` as one simulated process: a crash perturbation, decided before each response it receives,
// aborts its signal, silences its connections (its requests no longer leave, responses due to it are
// dropped, its watches end) and starts a fresh incarnation after restartDelayMs: a restarted process, or
// a standby taking over a lost lease, with empty caches and queues. A pause perturbation (when its rate is
// above 0) holds everything due to the process, its timers included, for up to maxPauseMs. `prefixed`
// names its clients `<process>/<client>` (named processes); the single `start` process keeps the bare
// client names, so its traces stay as they were.
function startRestProcess(env: SimEnv, leaders: LeaderTracker, name: string, prefixed: boolean, start: (h: SimHarness) => void, clock: FakeClock, runSignal: AbortSignal, skewLimits: Simulation['clockSkew'], seed: number): (restartAfterMs: number | undefined) => void {
  const { sched, rates, limits } = env;
  let pausedUntil = 0;
  const clientNames = new Set<string>();
  const skew = skewLimits === undefined ? undefined : drawSkew(seed, name, skewLimits);
  if (skew !== undefined) sched.log(`PROCESS ${name} clock offset ${skew.offsetMs}ms, drift ${skew.drift.toFixed(6)}`);
  const processClock: Clock = skew === undefined && rates.pause === 0 ? clock : new ProcessClock(clock, skew ?? { offsetMs: 0, drift: 0 }, () => pausedUntil);
  const pause = (client: string): void => {
    if (rates.pause === 0) return;
    const u = sched.decide('pause', rates.pause, (x) => `pause ${name} for ${Math.round(x * limits.maxPauseMs)}ms (after a response to ${client})`);
    if (u === undefined) return;
    pausedUntil = clock.now() + Math.round(u * limits.maxPauseMs);
    leaders.paused(name, clock.now(), pausedUntil);
    sched.pause([...clientNames].flatMap((c) => [`api/${c}/`, `${c}/`]), pausedUntil);
  };
  let killCurrent: (restartAfterMs: number | undefined) => void = () => undefined;
  // Set by a kill without restart: a restart already pending (after a crash) does not happen.
  let killed = false;
  const incarnation = (n: number): void => {
    if (killed) return;
    const crash = new AbortController();
    let alive = true;
    const dispatchers: SimDispatcher[] = [];
    const die = (restartAfterMs: number | undefined): void => {
      if (!alive) return;
      alive = false;
      for (const d of dispatchers) d.kill();
      sched.log(`PROCESS ${name} crashed (incarnation ${n})`);
      leaders.crashed(name);
      crash.abort(new Error('the simulated process crashed'));
      if (restartAfterMs !== undefined) sched.post(`${name}/restart`, `restart ${name}`, () => incarnation(n + 1), restartAfterMs);
    };
    killCurrent = die;
    const caller = (client: string): Caller => ({
      name: client,
      perturbable: true,
      epoch: () => (alive ? n : -1),
      beforeResponse: () => {
        if (sched.decide('crash', rates.crash, () => `crash the process of ${client} (restart in ${limits.restartDelayMs}ms)`) === undefined) {
          pause(client);
          return true;
        }
        die(limits.restartDelayMs);
        return false;
      },
    });
    sched.log(`PROCESS ${name} start (incarnation ${n})`);
    start({
      clock: processClock,
      signal: AbortSignal.any([runSignal, crash.signal]),
      restConfig: { host: 'http://simulated.invalid', qps: 1_000_000, burst: 1_000_000 },
      logger: {
        debug: (m, f) => {
          if (!alive) return;
          // A Manager controller's end of reconcile (src/manager/controller.ts): its result and causes.
          if (m === 'Reconcile done' && f !== undefined && typeof f.controller === 'string') {
            sched.log(reconcileLine(name, f));
            env.activity();
            leaders.reconciled(name, String(f.controller), String(f.object));
          }
        },
        info: (m, f) => {
          if (!alive) return;
          sched.log(`LOG ${m}${logFields(f)}`);
          // The Manager's line names the Lease as `lease`; the elector's own as `lock`.
          if (m === 'successfully acquired lease' && f !== undefined) {
            const lease = typeof f.lease === 'string' ? f.lease : typeof f.lock === 'string' ? f.lock : undefined;
            if (lease !== undefined) leaders.acquired(name, lease);
          }
        },
        error: (m, f) => {
          if (alive) sched.log(`LOG ERROR ${m}${logFields(f)}`);
        },
      },
      restClientOptions: (client) => {
        const full = prefixed ? `${name}/${client}` : client;
        clientNames.add(full);
        const d = new SimDispatcher(env, caller(full));
        dispatchers.push(d);
        return { clock: processClock, dispatcher: d };
      },
    });
  };
  incarnation(0);
  return (restartAfterMs) => {
    killed = restartAfterMs === undefined;
    killCurrent(restartAfterMs);
  };
}

// A process's clock skew, from a generator of its own (seeded by the run's seed and the process's name),
// so that turning skew on does not shift the scheduler's draws.
function drawSkew(seed: number, name: string, limits: NonNullable<Simulation['clockSkew']>): ClockSkew {
  let h = seed ^ 0x51c0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  const g = new Prng(h >>> 0);
  return { offsetMs: Math.round((g.next() * 2 - 1) * limits.maxOffsetMs), drift: (g.next() * 2 - 1) * limits.maxDrift };
}

// The trace line of a REST process's reconcile, from the fields of its 'Reconcile done' debug line
// (controller, object, result, causes as formatted by formatCause); the trace id is left out.
function reconcileLine(process: string, f: LogFields): string {
  const causes = Array.isArray(f.causes) ? (f.causes as unknown[]).map(String) : [];
  return `RECONCILE ${process}/${String(f.controller)} ${String(f.object)} ${String(f.result)} (cause: ${causes.length === 0 ? 'none' : causes.join('; ')})`;
}

// A logger's fields for the trace. `reconcileID` is left out: ManagedController numbers reconciles with a
// process-wide counter, so its value depends on how many runs the process made before, not on the seed.
function logFields(fields: LogFields | undefined): string {
  if (fields === undefined) return '';
  const { reconcileID: _id, ...rest } = fields;
  return ` ${JSON.stringify(rest)}`;
}

// True when a few more event-loop turns made an item ready now (after which the loop runs it).
async function lateWork(sched: Scheduler, clock: FakeClock): Promise<boolean> {
  for (let i = 0; i < 4; i++) {
    await drainMicrotasks();
    const t = sched.nextReadyAt();
    if (t !== undefined && t <= clock.now()) return true;
  }
  return false;
}

function busiest(counts: ReadonlyMap<string, number>): string {
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, n]) => `${k} reconciled ${n} times`).join(', ') || 'no reconciles';
}

/** The outcome of {@link explore}. */
export interface ExploreResult {
  /** Runs made before the first failure (or all of them). */
  readonly runs: number;
  /** Simulated API requests over all runs. */
  readonly apiOps: number;
  /** The first failing run, as found. */
  readonly failure: SimResult | undefined;
  /** The same failure shrunk (when `shrink` was not false). */
  readonly shrunk: SimResult | undefined;
}

/**
 * Runs seeds `firstSeed`, `firstSeed + 1`, ... until one fails or `seeds` runs passed; shrinks the failure
 * (`shrink: false` skips that; an object passes {@link ShrinkOptions}: budget, progress).
 */
export async function explore(spec: Simulation, options: { seeds: number; firstSeed?: number; shrink?: boolean | ShrinkOptions }): Promise<ExploreResult> {
  const first = options.firstSeed ?? 1;
  let apiOps = 0;
  // The virtual globals stay installed from one seed to the next (they serve each run in turn).
  const release = holdVirtualGlobals();
  try {
    for (let i = 0; i < options.seeds; i++) {
      const r = await runSimulation(spec, { seed: first + i });
      apiOps += r.apiOps;
      if (r.failure !== undefined) {
        const shrunk = options.shrink === false ? undefined : await shrink(spec, r, options.shrink === true ? undefined : options.shrink);
        return { runs: i + 1, apiOps, failure: r, shrunk };
      }
    }
  } finally {
    release();
  }
  return { runs: options.seeds, apiOps, failure: undefined, shrunk: undefined };
}

/** A readable report of a run: verdict, replay line, perturbations and the trace's last `traceLines` lines. */
export function formatReport(r: SimResult, traceLines = 80): string {
  const mags = r.magnitudes === undefined || Object.keys(r.magnitudes).length === 0 ? '' : `, magnitudes: { ${Object.entries(r.magnitudes).map(([k, v]) => `${k}: ${v}`).join(', ')} }`;
  const keep = r.keep === undefined ? undefined : `[${r.keep.join(', ')}]${mags}`;
  const lines = [
    r.failure === undefined ? `simulation "${r.name}" passed (seed ${r.seed})` : `simulation "${r.name}" failed: ${r.failure.invariant}: ${r.failure.message}`,
    `seed ${r.seed}, ${r.perturbations.length} perturbation(s) applied of ${r.candidates} candidate(s); ${r.steps} steps, ${r.apiOps} API requests, ${r.reconciles > 0 ? `${r.reconciles} reconciles, ` : ''}${r.virtualMs}ms virtual`,
    `replay: assertSimulation(simulation, { seed: ${r.seed}${keep === undefined ? '' : `, keep: ${keep}`} })`,
  ];
  if (r.perturbations.length > 0) {
    lines.push('perturbations:');
    for (const p of r.perturbations) lines.push(`  #${p.ordinal} at ${p.atMs}ms ${p.kind}: ${p.detail}`);
  }
  const tail = r.trace.slice(-traceLines);
  lines.push(`trace${tail.length < r.trace.length ? ` (last ${tail.length} of ${r.trace.length} lines)` : ''}:`, ...tail.map((l) => `  ${l}`));
  return lines.join('\n');
}

/**
 * Runs one schedule and throws a {@link SimulationFailedError} with the report when it fails: the one-line
 * regression test for a seed once found.
 *
 * @example
 * ```ts
 * test('regression: duplicate pods after a lost create response', () => assertSimulation(podSet, { seed: 17, keep: [4] }));
 * ```
 */
export async function assertSimulation(spec: Simulation, options: RunOptions): Promise<SimResult> {
  const r = await runSimulation(spec, options);
  if (r.failure !== undefined) throw new SimulationFailedError(formatReport(r));
  return r;
}

/** Runs `seeds` seeds and throws the shrunk report of the first failure. */
export async function assertSeeds(spec: Simulation, options: { seeds: number; firstSeed?: number }): Promise<ExploreResult> {
  const r = await explore(spec, options);
  if (r.failure !== undefined) throw new SimulationFailedError(formatReport(r.shrunk ?? r.failure));
  return r;
}
