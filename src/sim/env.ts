/**
 * What the parts of one simulation run share: the scheduler, the cluster, the perturbation rates, the
 * limits that size perturbations, and the run's failure slot. Internal to src/sim.
 */
import type { SimCluster } from './cluster.ts';
import type { PerturbationRates } from './perturbations.ts';
import type { Scheduler } from './scheduler.ts';

/** Sizes of the perturbations and of the simulated components' own delays. */
export interface SimLimits {
  /** Longest delay of a watch stream (a lagging informer). Default 2000 ms. */
  maxWatchDelayMs: number;
  /** Longest delay of a request or response. Default 500 ms. */
  maxRequestDelayMs: number;
  /** Time a crashed process takes to come back. Default 1000 ms. */
  restartDelayMs: number;
  /** Wait before an informer re-watches after its connection dropped (the reflector's first backoff step, 800 ms in client-go). Default 800 ms. */
  watchRetryMs: number;
  /** Longest `pause` of a REST process. Default 20000 ms: past the default 15 s Lease duration. */
  maxPauseMs: number;
  /**
   * How long a leader that lost its Lease while paused may go on reconciling once it resumes (the
   * `leaderOverlap` invariant's bound on a split brain). Default 15000 ms, controller-runtime's default
   * LeaseDuration (manager.go `defaultLeaseDuration`): a renew cycle of client-go's elector
   * (leaderelection.go `renew`) that starts as the process resumes may retry for its whole RenewDeadline
   * (10 s) before it gives up, and reconciles in flight then still finish; a leader acting longer does not
   * stop its work when it stops leading.
   */
  maxStaleLeaderMs?: number;
}

/** The first broken invariant of a run. */
export interface SimFailure {
  /** The invariant's name (built-in ones are listed in invariants.ts). */
  readonly invariant: string;
  /** What was wrong. */
  readonly message: string;
  /** Virtual milliseconds since the start. */
  readonly atMs: number;
  /** The step it was detected after. */
  readonly step: number;
}

/** Shared state of one run. */
export interface SimEnv {
  readonly sched: Scheduler;
  readonly cluster: SimCluster;
  readonly rates: PerturbationRates;
  readonly limits: SimLimits;
  /** API requests that reached the server. */
  apiOps: number;
  /** Requests sent (names their lanes). */
  calls: number;
  /** Reconciles started. */
  reconciles: number;
  /** Reconciles started per controller and key, for the "did not quiesce" report. */
  readonly reconcileCounts: Map<string, number>;
  failure: SimFailure | undefined;
  /**
   * Virtual time of the last activity: a write to anything but a Lease, a watch event of anything but a
   * Lease delivered, a reconcile. Lease renewals and their timers are not activity, so a leader-elected
   * process does not keep the cluster from settling.
   */
  lastActivityMs: number;
  /** Records activity now (see {@link SimEnv.lastActivityMs}). */
  activity(): void;
  /** Records the first failure (later ones are ignored). */
  fail(invariant: string, message: string): void;
}

/** Creates the shared state of a run. */
export function newEnv(sched: Scheduler, cluster: SimCluster, rates: PerturbationRates, limits: SimLimits): SimEnv {
  const env: SimEnv = {
    sched,
    cluster,
    rates,
    limits,
    apiOps: 0,
    calls: 0,
    reconciles: 0,
    reconcileCounts: new Map(),
    failure: undefined,
    lastActivityMs: sched.clock.now(),
    activity(): void {
      env.lastActivityMs = sched.clock.now();
    },
    fail(invariant: string, message: string): void {
      if (env.failure !== undefined) return;
      env.failure = { invariant, message, atMs: sched.elapsedMs, step: sched.steps };
      sched.log(`FAIL ${invariant}: ${message}`);
    },
  };
  return env;
}

export type { Scheduler };
