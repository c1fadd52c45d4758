/**
 * Leader election metrics (client-go tools/leaderelection/metrics.go): whether this process leads each
 * lock, and how often a leader had to renew through the slow path (read, then write) because its
 * optimistic write failed.
 */

/** The metrics of electors, keyed by the elector's name (upstream LeaderMetric). */
export interface LeaderMetric {
  /** This process now leads lock `name` (`leader_election_master_status{name} 1`). */
  on(name: string): void;
  /** This process does not lead lock `name` (`leader_election_master_status{name} 0`). */
  off(name: string): void;
  /** A renewal of lock `name` needed the slow path (`leader_election_slowpath_total{name}`). */
  slowpathExercised(name: string): void;
}

/** Creates the metric electors report to (upstream MetricsProvider). */
export interface LeaderMetricsProvider {
  /** A metric for one elector. */
  newLeaderMetric(): LeaderMetric;
}

const noopLeaderMetric: LeaderMetric = { on() {}, off() {}, slowpathExercised() {} };

/** Records nothing: the default unless {@link setGlobalLeaderMetricsProvider} was called. */
export const noopLeaderMetricsProvider: LeaderMetricsProvider = Object.freeze({ newLeaderMetric: () => noopLeaderMetric });

let globalProvider: LeaderMetricsProvider = noopLeaderMetricsProvider;
let globalProviderSet = false;

/**
 * Sets the provider used by electors whose config names none. Only the first call has an effect (as
 * upstream's SetProvider, guarded by a sync.Once); returns whether this call set it.
 */
export function setGlobalLeaderMetricsProvider(provider: LeaderMetricsProvider): boolean {
  if (globalProviderSet) return false;
  globalProviderSet = true;
  globalProvider = provider;
  return true;
}

/** The provider an elector uses when its config names none. */
export function globalLeaderMetricsProvider(): LeaderMetricsProvider {
  return globalProvider;
}
