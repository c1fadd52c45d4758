/**
 * kubeloom/clientcmd: kubeconfig loading, merging, validation and writing; RestConfig from a kubeconfig
 * or the in-cluster environment; exec credential plugins. Mirrors client-go's tools/clientcmd.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './api/types.ts';
export type * from './api/v1/types.ts';
export { kubeConfigFromV1, kubeConfigToV1 } from './api/v1/conversion.ts';
export * from './errors.ts';
export * from './load.ts';
export * from './merge.ts';
export * from './overrides.ts';
export * from './validate.ts';
export * from './rest-config.ts';
export * from './in-cluster.ts';
export * from './exec-credential-provider.ts';
export * from './token-file-provider.ts';
export * from './write.ts';
export { REDACTED, DATA_OMITTED, redactAuthInfo, redactCluster, redactKubeConfig, redactRestConfig, scrubText } from './redact.ts';
