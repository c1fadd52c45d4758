/**
 * kubeloom/testing: the embedded Kubernetes API server for tests ("envtest without binaries").
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { startApiServer } from './apiserver/server.ts';
export type { ApiServer, ApiServerOptions } from './apiserver/server.ts';
export type { ApiServerFaults, FailSpec, DelaySpec, Verb } from './apiserver/faults.ts';
export { startChaosProxy, type ChaosProxy, type ChaosProxyOptions, type ChaosFault, type ChaosConnection, type ChaosRequestRule, type ChaosStats } from './chaos-proxy.ts';
