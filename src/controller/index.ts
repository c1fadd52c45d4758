/**
 * kubeloom/controller: the controller loop (informers → rate-limited queue → reconcile workers),
 * enqueue helpers, finalizer helpers and expectations, as client-go's sample-controller and
 * kubernetes/pkg/controller use them.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { Controller, ControllerError } from './controller.ts';
export type { ControllerOptions, ControllerStats, ReconcileContext, ReconcileFunc, ReconcileResult } from './controller.ts';
export type { HasSynced, KeySink, ResourceEventHandler } from './event-handler.ts';
export type { PrometheusRegistry } from '../util/prometheus/registry.ts';
export { enqueueForObject, enqueueForOwner, enqueueMapped, keyForNotification, objectOf, ownerKeys } from './enqueue.ts';
export type { EnqueueForOwnerOptions } from './enqueue.ts';
export {
  addFinalizer,
  addFinalizerPatch,
  hasFinalizer,
  isBeingDeleted,
  isFinalizerPatchConflict,
  removeFinalizer,
  removeFinalizerPatch,
} from './finalizers.ts';
export type { JsonPatchOperation, KindPatchClient, PatchClient } from './finalizers.ts';
export { ControllerExpectations, expectationsTimeoutMs, UIDTrackingControllerExpectations } from './expectations.ts';
export type { ControlleeExpectations, ControllerExpectationsOptions } from './expectations.ts';
