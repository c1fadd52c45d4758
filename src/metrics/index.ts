/**
 * kubeloom/metrics: the typed client of the resource metrics API (metrics.k8s.io/v1beta1) and
 * `kubectl top`-style summaries.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './types.ts';
export * from './quantity.ts';
export * from './metrics-client.ts';
