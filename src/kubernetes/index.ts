/** kubeloom/kubernetes: the typed clientset, generated from Kubernetes' OpenAPI documents. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './clientset.ts';
export * from './resource-client.ts';
export * from './resource-spec.ts';
export * from './verbs.ts';
export * from './pod-logs.ts';
export { withSubresources, subresourceMethodNames } from './subresources.ts';
export { builtinGroupVersions } from './typed/resources.ts';
export type { TypedClientset } from './typed/clientset.ts';
