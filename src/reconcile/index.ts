/**
 * Reconcile requests, results and terminal errors (controller-runtime pkg/reconcile).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { TerminalError, isTerminalError, requestFromKey, requestKey } from './reconcile.ts';
export type { ReconcileContext, ReconcileFunc, Reconciler, Request, Result } from './reconcile.ts';
export { CauseTracker, CauseType, causeTrackerFor, errorMessage, formatCause, maxCausesPerRequest, registerCauseTracker } from './causes.ts';
export type { CauseTypeValue, ReconcileCause } from './causes.ts';
