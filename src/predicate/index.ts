/**
 * kubeloom/predicate: event filters (controller-runtime pkg/predicate) and the events they see
 * (pkg/event).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { allows, and, annotationChanged, generationChanged, labelChanged, labelSelector, newPredicateFuncs, not, or, resourceVersionChanged } from './predicate.ts';
export type { Predicate } from './predicate.ts';
export type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from './events.ts';
