/** kubeloom/kubernetes: the typed clientset generated from one resource table. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './clientset.ts';
export * from './resource-client.ts';
export * from './resource-table.ts';
export * from './pod-logs.ts';
