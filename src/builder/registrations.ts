/**
 * What the builders registered on a manager, read back without starting it: the kinds each controller
 * reconciles, owns and watches, the RBAC rules it declares in code, and the webhooks of each kind.
 * kubebuilder learns the same from `+kubebuilder:rbac` and `+kubebuilder:webhook` markers read by
 * controller-gen; kubeloom has no markers, so `kubeloom manifests` runs the project's `setup(mgr)` on
 * a manager that is never started and reads these registrations (see src/manifests and docs/ship.md).
 */
import type { PolicyRule } from '../api/rbac/v1.ts';
import type { ResourceKind } from '../client/kinds.ts';
import type { Manager } from '../manager/manager.ts';
import type { WebhookRegistration } from './webhook.ts';

/** An API verb a rule grants (the verbs kube-apiserver's authorizer knows; no `*`). */
export type RbacVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * An RBAC rule a controller declares next to its reconciler (`+kubebuilder:rbac` without a marker):
 * either by kind, optionally on one of its subresources, or as a plain PolicyRule.
 *
 * @example
 * controllerManagedBy(mgr).for(widgets).withRbac({ kind: kinds.coreV1.secrets, verbs: ['get'] }).complete(reconcile);
 */
export type RbacRule =
  | {
      /** The kind whose resource the rule grants. */
      kind: ResourceKind<unknown, unknown>;
      /** A subresource (`status`, `scale`, `finalizers`, ...) instead of the resource itself. */
      subresource?: string;
      /** The verbs granted. */
      verbs: readonly RbacVerb[];
    }
  | PolicyRule;

/** A controller the builder completed on a manager. */
export interface ControllerRegistration {
  /** The controller's name. */
  readonly name: string;
  /** The kind it reconciles (`for`), if any. */
  readonly for: ResourceKind<unknown, unknown> | undefined;
  /** Kinds it owns (`owns`): it creates, updates and deletes them. */
  readonly owns: readonly ResourceKind<unknown, unknown>[];
  /** Other kinds it watches (`watches`). */
  readonly watches: readonly ResourceKind<unknown, unknown>[];
  /** Whether it was completed with a finalizer (`completeWithFinalizer`). */
  readonly finalizer: boolean;
  /** Rules declared with `withRbac`. */
  readonly rbac: readonly RbacRule[];
}

// Kept on the manager under a registry-wide symbol, so a CLI and a project that load two copies of
// kubeloom (a global CLI, the project's node_modules) still see one list.
const key = Symbol.for('kubeloom.builder.registrations');
interface Registrations {
  controllers: ControllerRegistration[];
  webhooks: WebhookRegistration[];
}

function registrationsOf(mgr: Manager): Registrations {
  const holder = mgr as unknown as { [key]?: Registrations };
  holder[key] ??= { controllers: [], webhooks: [] };
  return holder[key];
}

/** Records a completed controller (called by the builder). */
export function recordController(mgr: Manager, registration: ControllerRegistration): void {
  registrationsOf(mgr).controllers.push(registration);
}

/** Records a completed webhook registration (called by the webhook builder). */
export function recordWebhook(mgr: Manager, registration: WebhookRegistration): void {
  registrationsOf(mgr).webhooks.push(registration);
}

/** The controllers the builder completed on `mgr`, in order. */
export function controllerRegistrations(mgr: Manager): readonly ControllerRegistration[] {
  return [...registrationsOf(mgr).controllers];
}

/** The webhooks the webhook builder completed on `mgr`, in order. */
export function webhookRegistrations(mgr: Manager): readonly WebhookRegistration[] {
  return [...registrationsOf(mgr).webhooks];
}
