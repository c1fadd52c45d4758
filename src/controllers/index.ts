/**
 * kubeloom/controllers: kube-controller-manager's workload controllers (kubernetes/pkg/controller/<name>),
 * written on kubeloom's client-go layer, one folder per upstream controller. They run inside the
 * embedded API server (`startApiServer({ controllers: { workloads: true } })`, `kubeloom apiserver`) or
 * against any cluster ({@link startControllers}, `kubeloom controller-manager`). See docs/controllers.md.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export {
  controllersDisabledByDefault,
  implementedControllers,
  isControllerEnabled,
  knownControllers,
  parseControllersFlag,
  startControllers,
  UnknownControllerError,
} from './controller-manager.ts';
export type { RunningControllers, StartControllersOptions } from './controller-manager.ts';
export type { ControllerContext } from './controller-context.ts';
export { ReplicaSetController, burstReplicas } from './replicaset/replica-set-controller.ts';
export type { ReplicaSetControllerOptions } from './replicaset/replica-set-controller.ts';
export { DeploymentController } from './deployment/deployment-controller.ts';
export type { DeploymentControllerOptions } from './deployment/deployment-controller.ts';
export { JobController, isJobFinished, matchPodFailurePolicy, defaultJobPodFailureBackOffMs, maxJobPodFailureBackOffMs } from './job/job-controller.ts';
export type { JobControllerOptions, PodFailurePolicyMatch } from './job/job-controller.ts';
export { TtlAfterFinishedController, timeLeft } from './ttlafterfinished/ttl-after-finished-controller.ts';
export { EndpointsController, findPort, headlessServiceLabel, repackSubsets, shouldPodBeInEndpoints } from './endpoint/endpoints-controller.ts';
export { ServiceAccountsController, defaultServiceAccounts } from './serviceaccount/service-accounts-controller.ts';
export { RootCACertPublisher, rootCACertConfigMapName, rootCACertDescription } from './rootcacertpublisher/publisher.ts';
export type { StatefulSetControllerOptions } from './statefulset/stateful-set-controller.ts';
export { StatefulSetController, controllerRevisionHashLabel, ordinalOf, podIndexLabel, revisionHistoryHashLabel, statefulSetPodNameLabel } from './statefulset/stateful-set-controller.ts';
export { DaemonSetsController, daemonPodTolerations, nodeShouldRunDaemonPod, updatedDesiredNodeCounts } from './daemon/daemon-set-controller.ts';
export type { RollingUpdateBudget } from './daemon/daemon-set-controller.ts';
export { FeatureGateError, defaultControllerFeatureGates, parseControllerFeatureGates, resolveControllerFeatureGates } from './feature-gates.ts';
export type { ControllerFeatureGates } from './feature-gates.ts';
export { OrderedIntervals, completionIndexEnvName, getCompletionIndex, unknownCompletionIndex, isIndexedJob, jobCompletionIndexAnnotation, jobIndexFailureCountAnnotation, jobIndexIgnoredFailureCountAnnotation, matchSuccessPolicy } from './job/indexed-job-utils.ts';
export type { Interval } from './job/indexed-job-utils.ts';
export { CronJobController, cronJobScheduledTimestampAnnotation, missedScheduleTimes } from './cronjob/cronjob-controller.ts';
export { CronScheduleError, cronMatches, nextScheduleTime, parseCronSchedule } from './cronjob/cron-schedule.ts';
export type { CronSchedule } from './cronjob/cron-schedule.ts';
export { DisruptionController, disruptedPodTimeoutMs } from './disruption/disruption-controller.ts';
export { ResourceQuotaController } from './resourcequota/resource-quota-controller.ts';
export { PodGCController, defaultTerminatedPodThreshold, gcCheckPeriodMs, isPodTerminated, quarantineTimeMs } from './podgc/gc-controller.ts';
export type { PodGCOptions } from './podgc/gc-controller.ts';
export { computePodTemplateHash, spewPodTemplateSpec } from './hash/compute-hash.ts';
export { SpewUnsupportedError } from './hash/spew-format.ts';
export { EndpointSliceController, desiredSlices, managedByLabel, managedByValue, maxEndpointsPerSlice, serviceNameLabel } from './endpointslice/endpointslice-controller.ts';
export type { DesiredSlice } from './endpointslice/endpointslice-controller.ts';
export {
  NodeLifecycleController,
  ZoneState,
  computeZoneState,
  getZoneKey,
  defaultNodeMonitorPeriodMs,
  defaultNodeMonitorGracePeriodMs,
  defaultNodeStartupGracePeriodMs,
  defaultNodeEvictionRate,
  defaultSecondaryNodeEvictionRate,
  defaultLargeClusterSizeThreshold,
  defaultUnhealthyZoneThreshold,
} from './nodelifecycle/node-lifecycle-controller.ts';
export type { NodeLifecycleOptions, ZoneHealth, ZoneStateValue } from './nodelifecycle/node-lifecycle-controller.ts';
export type { MatchingTolerations } from './nodelifecycle/taint-manager.ts';
export { NoExecuteTaintManager, getMatchingTolerations, getMinTolerationTime, getNoExecuteTaints } from './nodelifecycle/taint-manager.ts';
