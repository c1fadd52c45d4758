/**
 * kubeloom/builder: the typed controller builder (controller-runtime pkg/builder) and the finalizer
 * helper (kube-rs's finalizer()).
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { Builder, BuilderError, controllerManagedBy } from './builder.ts';
export type { BuilderControllerOptions, OwnsOptions, WatchOptions } from './builder.ts';
export { finalizerReconcile } from './finalizer.ts';
export type { FinalizerHandlers } from './finalizer.ts';
export { WebhookBuilder, webhookManagedBy } from './webhook.ts';
export type { Conversions, WebhookRegistration } from './webhook.ts';
export { controllerRegistrations, webhookRegistrations } from './registrations.ts';
export type { ControllerRegistration, RbacRule, RbacVerb } from './registrations.ts';
