/**
 * The errors of the simulator (src/sim), each with a stable `code` (see src/apimachinery/errors.ts).
 */
import { KubeloomError } from '../apimachinery/errors.ts';

/** A simulation was misconfigured (an unknown kind, a controller registered twice, a bad option). */
export class SimulationConfigError extends KubeloomError {
  constructor(message: string) {
    super('ERR_SIM_CONFIG', message);
  }
}

/**
 * A simulation broke an invariant, never quiesced, or its scenario failed. `report` is the readable
 * failure report (seed, kept perturbations, the replay line and the trace's tail).
 */
export class SimulationFailedError extends KubeloomError {
  /** The full report, as {@link formatReport} writes it. */
  readonly report: string;

  constructor(report: string) {
    super('ERR_SIM_FAILED', report);
    this.report = report;
  }
}

/**
 * A simulation run was started while another one was in progress in the same process (nested in a
 * scenario, or two runs awaited together). A run replaces process-wide globals (timers, `Date`,
 * `Math.random`, ...) with its own virtual ones, so two at once would read each other's clocks: run them
 * one after the other, or in separate processes (node:test runs test files in separate processes).
 */
export class SimulationOverlapError extends KubeloomError {
  constructor(message: string) {
    super('ERR_SIM_OVERLAP', message);
  }
}

/**
 * The code under test did real I/O during a simulation run (a network connection leaving the process, an
 * asynchronous file-system call, a child process): its outcome arrives on wall-clock time, outside the
 * seeded scheduler, so the run could not be replayed. `operation` names what was attempted, e.g.
 * `net.connect 203.0.113.7:443` or `fs.promises.readFile`.
 */
export class SimulationRealIoError extends KubeloomError {
  /** What the code under test attempted. */
  readonly operation: string;

  constructor(operation: string) {
    super('ERR_SIM_REAL_IO', `real I/O during a simulation run: ${operation} (its result would arrive on wall-clock time, outside the seeded scheduler; give the code under test a simulated dependency instead)`);
    this.operation = operation;
  }
}
