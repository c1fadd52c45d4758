/**
 * What a manager runs (controller-runtime pkg/manager: manager.go's Runnable and LeaderElectionRunnable,
 * runnable_group.go's classification). A runnable is started once with a signal and resolves when it
 * stopped; rejecting stops the whole manager with that error.
 *
 * Groups, started in this order and stopped in reverse (runnable_group.go):
 * `httpServers` (metrics and probes) → `webhooks` → `caches` (the manager waits for them to sync) →
 * `others` (runnables that do not need leadership, on every replica) → `leaderElection` (controllers and
 * any runnable that needs leadership, started once this replica leads).
 *
 * A runnable names its group with `runnableGroup`; without one it goes to `others` if
 * `needLeaderElection()` returns false, else to `leaderElection` (upstream's default for plain runnables).
 * A webhook server (kubeloom/webhook) sets `runnableGroup: 'webhooks'` or is added with
 * `manager.addWebhookServer`, and may offer `waitReady` so the manager starts caches only once it serves.
 */

/** The runnable groups, in start order (runnable_group.go's runnables struct). */
export const RunnableGroup = {
  /** HTTP servers: metrics, health probes, extra servers. */
  HttpServers: 'httpServers',
  /** Admission and conversion webhook servers. */
  Webhooks: 'webhooks',
  /** Caches: started and synced before anything that reads them. */
  Caches: 'caches',
  /** Runnables that run on every replica, leader or not. */
  Others: 'others',
  /** Runnables started only once this replica leads (controllers by default). */
  LeaderElection: 'leaderElection',
} as const;

/** One of {@link RunnableGroup}. */
export type RunnableGroupValue = (typeof RunnableGroup)[keyof typeof RunnableGroup];

/**
 * A component the manager starts and stops (manager.Runnable). `start` runs until `signal` aborts and
 * resolves once stopped; a rejection stops the manager with that error.
 *
 * @example
 * mgr.add({ needLeaderElection: () => false, start: async (signal) => { for await (const tick of ticks(signal)) report(tick); } });
 */
export interface Runnable {
  /** Runs until `signal` aborts; resolves once stopped. */
  start(signal: AbortSignal): Promise<void>;
  /** Whether it may run only on the leader (manager.LeaderElectionRunnable). Default: true. */
  needLeaderElection?(): boolean;
  /** The group it belongs to; overrides the classification by `needLeaderElection`. */
  readonly runnableGroup?: RunnableGroupValue;
  /**
   * Resolves true once the runnable is ready for the next group to start (a cache synced, a server
   * listening), false if `signal` aborted first. Without it the runnable counts as ready once started.
   */
  waitReady?(signal: AbortSignal): Promise<boolean>;
}

/** The group a runnable belongs to (runnables.Add's type switch). */
export function groupOf(runnable: Runnable): RunnableGroupValue {
  if (runnable.runnableGroup !== undefined) return runnable.runnableGroup;
  if (runnable.needLeaderElection !== undefined && !runnable.needLeaderElection()) return RunnableGroup.Others;
  return RunnableGroup.LeaderElection;
}
