/**
 * kubeloom/metrics: the typed client of the resource metrics API (metrics.k8s.io/v1beta1) and
 * `kubectl top`-style summaries.
 */
export * from './types.ts';
export * from './quantity.ts';
export * from './metrics-client.ts';
