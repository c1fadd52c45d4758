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
