/**
 * kubeloom/handler: event handlers turning watch events into reconcile requests (controller-runtime
 * pkg/handler).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { enqueueRequestForObject, enqueueRequestForOwner, enqueueRequestsFromMapFunc } from './handler.ts';
export type { EnqueueRequestForOwnerOptions, EnqueueRequestsFromMapFuncOptions, EventHandler, MapFunc, RequestQueue } from './handler.ts';
export { LowPriority } from '../util/workqueue/priority-queue.ts';
export type { AddOpts } from '../util/workqueue/priority-queue.ts';
