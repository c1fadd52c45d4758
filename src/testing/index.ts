/**
 * kubeloom/testing: the embedded Kubernetes API server for tests ("envtest without binaries").
 */
export { startApiServer } from './apiserver/server.ts';
export type { ApiServer, ApiServerOptions } from './apiserver/server.ts';
export type { ApiServerFaults, FailSpec, DelaySpec, Verb } from './apiserver/faults.ts';
