/**
 * Leader election on coordination.k8s.io/v1 Leases (client-go tools/leaderelection).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
  LeaderElectionConfigError,
  LeaderElectionUnhealthyError,
  LeaderElector,
  LeaderElectorRunningError,
  LeadershipLostError,
} from './leader-election.ts';
export type { LeaderCallbacks, LeaderElectionConfig } from './leader-election.ts';
export { HealthzAdaptor } from './healthz.ts';
export { globalLeaderMetricsProvider, noopLeaderMetricsProvider, setGlobalLeaderMetricsProvider } from './metrics.ts';
export type { LeaderMetric, LeaderMetricsProvider } from './metrics.ts';
export { newPrometheusLeaderMetricsProvider } from './prometheus-metrics.ts';
export type { PrometheusRegistry } from '../../util/prometheus/registry.ts';
export type { HealthzAdaptorOptions } from './healthz.ts';
export { LockWatchUnsupportedError, rawRecord } from './resourcelock/interface.ts';
export type {
  LeaderElectionRecord,
  LockEventRecorder,
  LockRequestOptions,
  ObservedLeaderElectionRecord,
  ResourceLock,
  ResourceLockConfig,
} from './resourcelock/interface.ts';
export { LeaseLock, LeaseNotInitializedError, LeaseWatchError, leaderElectionRecordToLeaseSpec, leaseSpecToLeaderElectionRecord } from './resourcelock/lease-lock.ts';
export type { LeaseClient, LeaseLockOptions } from './resourcelock/lease-lock.ts';
export { FakeLeaseClient, FakeLeaseStore } from './resourcelock/fake-lease-client.ts';
export type { LeaseCall, LeaseFault, LeaseVerb } from './resourcelock/fake-lease-client.ts';
export type { Logger, LogFields } from '../events/logger.ts';
