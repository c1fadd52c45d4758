/**
 * A health check for leader election (leaderelection.HealthzAdaptor): it fails when this process
 * believes it leads but its election loop has not renewed the lock for longer than the lease duration
 * plus a tolerance, e.g. because it is deadlocked. Non-leaders, and processes whose elector is not
 * attached yet, are healthy.
 */
import type { LeaderElector, LeaderElectionUnhealthyError } from './leader-election.ts';

/** Options of a {@link HealthzAdaptor}. */
export interface HealthzAdaptorOptions {
  /** How long past the lease's expiry a leader may go without renewing before it is reported unhealthy. */
  maxTolerableExpiredLeaseMs: number;
}

/**
 * Adapts a {@link LeaderElector} to a health endpoint. Attach it through the elector's `watchDog` option
 * (or {@link HealthzAdaptor.setLeaderElection}).
 *
 * @example
 * const watchDog = new HealthzAdaptor({ maxTolerableExpiredLeaseMs: 20_000 });
 * const elector = new LeaderElector({ lock, callbacks, watchDog });
 * // in the /healthz handler:
 * const err = watchDog.check();
 * res.statusCode = err === undefined ? 200 : 500;
 */
export class HealthzAdaptor {
  readonly #timeoutMs: number;
  #elector: LeaderElector | undefined;

  constructor(options: HealthzAdaptorOptions) {
    this.#timeoutMs = options.maxTolerableExpiredLeaseMs;
  }

  /** The check's name, as health endpoints list it. */
  name(): string {
    return 'leaderElection';
  }

  /** An error if the attached elector leads but is stuck past its deadline; undefined when healthy. */
  check(): LeaderElectionUnhealthyError | undefined {
    return this.#elector?.check(this.#timeoutMs);
  }

  /** Attaches the elector to check (done by the elector itself when given as `watchDog`). */
  setLeaderElection(elector: LeaderElector): void {
    this.#elector = elector;
  }
}
