/**
 * The admission webhook configurations for config/webhook/manifests.yaml (what controller-gen's
 * `webhook` generator writes from `+kubebuilder:webhook` markers), from the webhook builder's
 * registrations: one MutatingWebhookConfiguration with every defaulter and one
 * ValidatingWebhookConfiguration with every validator, each webhook calling the webhook Service at
 * the path the builder registered, with its rules, sideEffects, failurePolicy, admissionReviewVersions
 * and matchPolicy (Equivalent, the API server's default, written out). Webhooks are sorted by name, as
 * controller-gen does.
 */
import type { MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from '../api/admissionregistration/v1.ts';
import type { WebhookRegistration } from '../builder/webhook.ts';
import type { DevMutatingWebhook, DevValidatingWebhook } from '../webhook/dev.ts';
import { webhookServiceName } from './crd.ts';
import { rbacNames } from './rbac.ts';

/** Names of the configurations before kustomize's namePrefix (kubebuilder's). */
export const webhookConfigurationNames = { mutating: 'mutating-webhook-configuration', validating: 'validating-webhook-configuration' } as const;

function entry<W extends DevMutatingWebhook | DevValidatingWebhook>(dev: W): Omit<W, 'path'> & { clientConfig: MutatingWebhook['clientConfig'] } {
  const { path, ...rest } = dev;
  const rules = (rest.rules ?? []).map((r) => ({ apiGroups: r.apiGroups, apiVersions: r.apiVersions, operations: r.operations, resources: r.resources, ...(r.scope !== undefined ? { scope: r.scope } : {}) }));
  // Keys in alphabetical order, as controller-gen writes them.
  const out: Record<string, unknown> = { ...rest, clientConfig: { service: { name: webhookServiceName, namespace: rbacNames.namespace, path } }, matchPolicy: rest.matchPolicy ?? 'Equivalent', rules };
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]])) as Omit<W, 'path'> & { clientConfig: MutatingWebhook['clientConfig'] };
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The configurations for the registrations; either is undefined when no registration has such a webhook. */
export function webhookConfigurations(registrations: readonly WebhookRegistration[]): { mutating?: MutatingWebhookConfiguration; validating?: ValidatingWebhookConfiguration } {
  const mutating: MutatingWebhook[] = registrations.filter((r) => r.mutatePath !== undefined).map((r) => entry(r.mutatingWebhook()) as MutatingWebhook).sort(byName);
  const validating: ValidatingWebhook[] = registrations.filter((r) => r.validatePath !== undefined).map((r) => entry(r.validatingWebhook()) as ValidatingWebhook).sort(byName);
  return {
    ...(mutating.length > 0 ? { mutating: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: webhookConfigurationNames.mutating }, webhooks: mutating } } : {}),
    ...(validating.length > 0 ? { validating: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: webhookConfigurationNames.validating }, webhooks: validating } } : {}),
  };
}
