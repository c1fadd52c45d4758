/**
 * kubeloom/testing: the embedded Kubernetes API server for tests ("envtest without binaries"), and what a
 * test needs around it: installing CRDs, polling for a condition.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
// The embedded API server lives in kubeloom/apiserver; re-exported here, where tests have always found it.
export * from '../apiserver/index.ts';
export { installCrds, parseCrdDocuments, CrdInstallError, CrdInstallErrorCode, type CrdInstallOptions } from './crd-install.ts';
export { eventually, EventuallyTimeoutError, type EventuallyOptions } from './eventually.ts';
export { startChaosProxy, type ChaosProxy, type ChaosProxyOptions, type ChaosFault, type ChaosConnection, type ChaosRequestRule, type ChaosStats } from './chaos-proxy.ts';
