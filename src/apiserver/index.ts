/**
 * kubeloom/apiserver: an in-process Kubernetes API server. It serves the built-in API and custom
 * resources over real HTTP (kubectl works against it), with kube-apiserver's request pipeline
 * (authentication, authorization, admission, validation, defaulting, server-side apply, watch) and the
 * background loops a control plane runs beside it. `kubeloom/testing` re-exports it with the
 * conveniences tests need around it.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { startApiServer } from './server.ts';
export type { ApiServer, ApiServerOptions, ApiServerStorage, ClientCertificate } from './server.ts';
export type { LimitedResource, ResourceQuotaConfiguration } from './admission/resource-quota.ts';
export type { ScopeRequirement } from '../quota/evaluators.ts';
export type { ApiServerSnapshot } from './snapshot.ts';
export { StorageKind } from './storage/interface.ts';
export type { StorageSnapshot } from './storage/interface.ts';
export type { EtcdTlsOptions } from './storage/etcd-client.ts';
export type { WatchCacheOptions } from './watch-cache.ts';
export type { FeatureGates } from './sharding.ts';
export type { StaticUser } from './authn/authenticator.ts';
export type { ApiServerFaults, FailSpec, DelaySpec, Verb } from './faults.ts';
export { controllerNames, UnknownKubeletNodeError } from './controllers/controller-manager.ts';
export type { ControllerName, ControllerOptions, ControllerStats, ServerControllers } from './controllers/controller-manager.ts';
export { defaultNodeName, defaultPodOutcome, kwokNodeName } from './controllers/fake-kubelet.ts';
export { podDraw, podFails } from './controllers/pod-stages.ts';
export type { PodStages } from './controllers/pod-stages.ts';
export { defaultStorageClass, defaultStorageClassName, fakeProvisioner, isDefaultClassAnnotation, selectedNodeAnnotation } from './controllers/fake-volume-binder.ts';
export type { FakeKubeletOptions, PodOutcome } from './controllers/fake-kubelet.ts';
export type { PodHandlers, PodHandler, ContainerHandler, ExecSession, PortTarget, TerminalSize } from './streaming/pod-handlers.ts';
export { loadPodHandlers } from './streaming/pod-handlers.ts';
export type { NodeMetricsInput, PodMetricsInput, ResourceUsage } from './metrics-api.ts';
