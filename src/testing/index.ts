/**
 * kubeloom/testing: the embedded Kubernetes API server for tests ("envtest without binaries"), and what a
 * test needs around it: installing CRDs, polling for a condition.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { startApiServer } from './apiserver/server.ts';
export type { ApiServer, ApiServerOptions, ClientCertificate } from './apiserver/server.ts';
export type { StaticUser } from './apiserver/authn/authenticator.ts';
export type { ApiServerFaults, FailSpec, DelaySpec, Verb } from './apiserver/faults.ts';
export { controllerNames } from './apiserver/controllers/controller-manager.ts';
export type { ControllerName, ControllerOptions, ControllerStats, ServerControllers } from './apiserver/controllers/controller-manager.ts';
export { defaultNodeName, defaultPodOutcome } from './apiserver/controllers/fake-kubelet.ts';
export type { FakeKubeletOptions, PodOutcome } from './apiserver/controllers/fake-kubelet.ts';
export { installCrds, parseCrdDocuments, CrdInstallError, CrdInstallErrorCode, type CrdInstallOptions } from './crd-install.ts';
export { eventually, EventuallyTimeoutError, type EventuallyOptions } from './eventually.ts';
export { startChaosProxy, type ChaosProxy, type ChaosProxyOptions, type ChaosFault, type ChaosConnection, type ChaosRequestRule, type ChaosStats } from './chaos-proxy.ts';
export type { PodHandlers, PodHandler, ContainerHandler, ExecSession, PortTarget, TerminalSize } from './apiserver/streaming/pod-handlers.ts';
export { loadPodHandlers } from './apiserver/streaming/pod-handlers.ts';
export type { NodeMetricsInput, PodMetricsInput, ResourceUsage } from './apiserver/metrics-api.ts';
