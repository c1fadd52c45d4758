/** kubeloom/kubernetes: the typed clientset generated from one resource table. */
export * from './clientset.ts';
export * from './resource-client.ts';
export * from './resource-table.ts';
export * from './pod-logs.ts';
