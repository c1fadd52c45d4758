/**
 * The admission stage of the embedded server: after built-in defaulting, mutating webhooks (and a
 * second defaulting pass over what they changed), then, after the object's own validation, validating
 * webhooks — as kube-apiserver's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins. The
 * webhook configurations are read from the server's storage on every request, so creating or deleting
 * one takes effect at once (upstream: within about a second).
 */
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../../api/admissionregistration/v1.ts';
import type { Clock } from '../../util/clock/clock.ts';
import type { ResourceRegistry } from '../resources.ts';
import type { Storage } from '../storage.ts';
import type { AdmissionAttributes } from './attributes.ts';
import type { ServiceResolver } from './webhook/call.ts';
import { runMutatingWebhooks, runValidatingWebhooks, type DispatcherContext } from './webhook/dispatcher.ts';

const mutatingStore = 'mutatingwebhookconfigurations.admissionregistration.k8s.io';
const validatingStore = 'validatingwebhookconfigurations.admissionregistration.k8s.io';

/** Webhook admission over the server's stored configurations. */
export class WebhookAdmission {
  readonly #storage: Storage;
  readonly #registry: ResourceRegistry;
  readonly #clock: Clock;
  readonly #resolve: ServiceResolver;

  constructor(storage: Storage, registry: ResourceRegistry, clock: Clock, resolve: ServiceResolver) {
    this.#storage = storage;
    this.#registry = registry;
    this.#clock = clock;
    this.#resolve = resolve;
  }

  /** Whether any webhook configuration exists (the fast path skips admission otherwise). */
  active(): boolean {
    return this.#storage.count(mutatingStore) > 0 || this.#storage.count(validatingStore) > 0;
  }

  #context(warn: (w: string) => void): DispatcherContext {
    const registry = this.#registry;
    return {
      clock: this.#clock,
      resolveService: this.#resolve,
      servedVersions: (group, resource) => registry.all().filter((r) => r.group === group && r.resource === resource).map((r) => r.version),
      warn,
    };
  }

  /** Runs the mutating webhooks; returns the (possibly patched) object. */
  async mutate(a: AdmissionAttributes, warn: (w: string) => void): Promise<Record<string, unknown> | undefined> {
    const configs = this.#storage.listAt(mutatingStore, this.#storage.revision).map((s) => s.obj as unknown as MutatingWebhookConfiguration);
    const hooks = configs.flatMap((c) => c.webhooks ?? []);
    if (hooks.length === 0) return a.object;
    return runMutatingWebhooks(hooks, a, this.#context(warn));
  }

  /** Runs the validating webhooks; throws the first rejection. */
  async validate(a: AdmissionAttributes, warn: (w: string) => void): Promise<void> {
    const configs = this.#storage.listAt(validatingStore, this.#storage.revision).map((s) => s.obj as unknown as ValidatingWebhookConfiguration);
    const hooks = configs.flatMap((c) => c.webhooks ?? []);
    if (hooks.length === 0) return;
    await runValidatingWebhooks(hooks, a, this.#context(warn));
  }
}
