/**
 * kubeloom/testing: the embedded Kubernetes API server for tests ("envtest without binaries").
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { startApiServer } from './apiserver/server.ts';
export type { ApiServer, ApiServerOptions, ClientCertificate } from './apiserver/server.ts';
export type { StaticUser } from './apiserver/authn/authenticator.ts';
export type { ApiServerFaults, FailSpec, DelaySpec, Verb } from './apiserver/faults.ts';
export { startChaosProxy, type ChaosProxy, type ChaosProxyOptions, type ChaosFault, type ChaosConnection, type ChaosRequestRule, type ChaosStats } from './chaos-proxy.ts';
export type { PodHandlers, PodHandler, ContainerHandler, ExecSession, PortTarget, TerminalSize } from './apiserver/streaming/pod-handlers.ts';
export { loadPodHandlers } from './apiserver/streaming/pod-handlers.ts';
export type { NodeMetricsInput, PodMetricsInput, ResourceUsage } from './apiserver/metrics-api.ts';
