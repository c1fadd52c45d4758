/**
 * The webhook builder (controller-runtime pkg/builder/webhook.go): `webhookManagedBy(mgr).for(kind)`
 * with a defaulter, a validator and conversions registers, on the manager's webhook server, a mutating
 * webhook at `/mutate-<group>-<version>-<kind>`, a validating webhook at `/validate-<group>-<version>-<kind>`
 * (or custom paths, checked against upstream's pattern) and the conversion webhook at `/convert`. As
 * upstream, a path the server already handles is left as it is, and `recoverPanic` (default true) turns
 * exceptions of the handlers into 500 answers.
 *
 * Differences: Go finds a kind's conversions through its scheme (Hub and Convertible types); TypeScript
 * has no runtime types, so they are given with `withConversion({ hub, spokes })`, and every kind built
 * on one server shares one {@link ConversionWebhook} at `/convert` (upstream's converter registry). A
 * `/convert` registered by hand is not replaced: `complete` then throws, since it could not know the
 * kind's converters. `complete` returns the registered paths and, what kubebuilder's
 * `+kubebuilder:webhook` markers generate, the webhook entries to write with `setupDevWebhooks`.
 */
import type { KubeObject } from '../apimachinery/object.ts';
import type { ResourceKind } from '../client/kinds.ts';
import type { Manager } from '../manager/manager.ts';
import { AdmissionWebhook } from '../webhook/admission/webhook.ts';
import { withCustomDefaulter, type CustomDefaulter, type DefaulterOptions } from '../webhook/admission/defaulter.ts';
import { withCustomValidator, type CustomValidator, type ValidatorOptions } from '../webhook/admission/validator.ts';
import { conversionPath, generateMutatePath, generateValidatePath } from '../webhook/admission/paths.ts';
import type { GroupVersionKind } from '../webhook/admission/types.ts';
import { ConversionWebhook, type KindConversion } from '../webhook/conversion/conversion.ts';
import type { DevMutatingWebhook, DevValidatingWebhook } from '../webhook/dev.ts';
import type { WebhookServer } from '../webhook/server.ts';
import { BuilderError } from './builder.ts';
import { recordWebhook } from './registrations.ts';

// webhook.go: webhookPathStringValidation.
const webhookPathPattern = /^((\/[a-zA-Z0-9-_]+)+|\/)$/;

// The conversion webhook of each server, shared by every kind built on it (the converter registry).
const conversionWebhooks = new WeakMap<WebhookServer, ConversionWebhook>();

/** A kind's conversions for {@link WebhookBuilder.withConversion}: the hub version and the spokes. */
export type Conversions = Omit<KindConversion, 'group' | 'kind'>;

/** What {@link WebhookBuilder.complete} registered. */
export interface WebhookRegistration {
  /** The kind's group, version and kind. */
  readonly gvk: GroupVersionKind;
  /** Path of the mutating webhook, if a defaulter was given. */
  readonly mutatePath: string | undefined;
  /** Path of the validating webhook, if a validator was given. */
  readonly validatePath: string | undefined;
  /** Path of the conversion webhook (`/convert`), if conversions were given. */
  readonly conversionPath: string | undefined;
  /**
   * The MutatingWebhookConfiguration entry kubebuilder's marker
   * `+kubebuilder:webhook:path=…,mutating=true,failurePolicy=fail,sideEffects=None,verbs=create;update,name=m<kind>-<version>.kb.io,admissionReviewVersions=v1`
   * generates, for `setupDevWebhooks`; `overrides` replace its fields. Throws without a defaulter.
   */
  mutatingWebhook(overrides?: Partial<DevMutatingWebhook>): DevMutatingWebhook;
  /** The ValidatingWebhookConfiguration entry (`name=v<kind>-<version>.kb.io`), as {@link WebhookRegistration.mutatingWebhook}. */
  validatingWebhook(overrides?: Partial<DevValidatingWebhook>): DevValidatingWebhook;
}

/**
 * Builds the webhooks of a kind (builder.WebhookBuilder). Start with {@link webhookManagedBy}.
 *
 * @example
 * webhookManagedBy(mgr)
 *   .for(cronJobs)
 *   .withDefaulter({ default: (cj) => void (cj.spec!.suspend ??= false) })
 *   .withValidator({ validateCreate: (cj) => validate(cj) })
 *   .complete();
 */
export class WebhookBuilder<T extends KubeObject = KubeObject> {
  readonly #mgr: Manager;
  #kind: ResourceKind<KubeObject, unknown> | undefined;
  #defaulter: { d: CustomDefaulter<T>; options: DefaulterOptions<T> } | undefined;
  #validator: { v: CustomValidator<T>; options: ValidatorOptions<T> } | undefined;
  #conversions: Conversions | undefined;
  #defaulterPath: string | undefined;
  #validatorPath: string | undefined;
  #recoverPanic: boolean | undefined;

  constructor(mgr: Manager) {
    this.#mgr = mgr;
  }

  /** The kind the webhooks are for (builder.For / WebhookManagedBy's object). */
  for<K extends KubeObject>(kind: ResourceKind<K, unknown>): WebhookBuilder<K> {
    if (this.#kind !== undefined) throw new BuilderError('for() can only be called once');
    const next = this as unknown as WebhookBuilder<K>;
    next.#kind = kind as ResourceKind<KubeObject, unknown>;
    return next;
  }

  /** A mutating webhook running `defaulter` (builder.WithDefaulter). */
  withDefaulter(defaulter: CustomDefaulter<T>, options: DefaulterOptions<T> = {}): this {
    this.#defaulter = { d: defaulter, options };
    return this;
  }

  /** A validating webhook running `validator` (builder.WithValidator). */
  withValidator(validator: CustomValidator<T>, options: ValidatorOptions<T> = {}): this {
    this.#validator = { v: validator, options };
    return this;
  }

  /** The kind's hub and spoke versions, served by the conversion webhook at `/convert` (builder.WithConverter). */
  withConversion(conversions: Conversions): this {
    this.#conversions = conversions;
    return this;
  }

  /** Serves the defaulter at `path` instead of the generated one (builder.WithDefaulterCustomPath). */
  withDefaulterCustomPath(path: string): this {
    this.#defaulterPath = path;
    return this;
  }

  /** Serves the validator at `path` instead of the generated one (builder.WithValidatorCustomPath). */
  withValidatorCustomPath(path: string): this {
    this.#validatorPath = path;
    return this;
  }

  /** Whether exceptions of the handlers answer 500 instead of failing the request (builder.RecoverPanic). Default true. */
  recoverPanic(recover: boolean): this {
    this.#recoverPanic = recover;
    return this;
  }

  /**
   * Registers the webhooks on `mgr.getWebhookServer()` (builder.Complete), which adds the server to
   * the manager; throws {@link BuilderError} without `for()` or on a malformed custom path.
   */
  complete(): WebhookRegistration {
    const kind = this.#kind;
    if (kind === undefined) throw new BuilderError('for() must be called with a kind');
    for (const p of [this.#defaulterPath, this.#validatorPath]) {
      if (p !== undefined && !webhookPathPattern.test(p)) throw new BuilderError(`customPath ${JSON.stringify(p)} does not match this regex: ${webhookPathPattern.source}`);
    }
    const gvk: GroupVersionKind = { group: kind.group, version: kind.version, kind: kind.kind };
    const server = this.#mgr.getWebhookServer();
    const handled = (path: string): boolean => server.paths().includes(path);
    const webhookOptions = { logger: this.#mgr.getLogger(), ...(this.#recoverPanic !== undefined ? { recoverPanic: this.#recoverPanic } : {}) };
    let mutatePath: string | undefined;
    let validatePath: string | undefined;
    let convert: string | undefined;
    if (this.#defaulter !== undefined) {
      mutatePath = this.#defaulterPath ?? generateMutatePath(gvk);
      if (!handled(mutatePath)) server.register(mutatePath, new AdmissionWebhook(withCustomDefaulter(this.#defaulter.d, this.#defaulter.options), webhookOptions));
    }
    if (this.#validator !== undefined) {
      validatePath = this.#validatorPath ?? generateValidatePath(gvk);
      if (!handled(validatePath)) server.register(validatePath, new AdmissionWebhook(withCustomValidator(this.#validator.v, this.#validator.options), webhookOptions));
    }
    if (this.#conversions !== undefined) {
      let webhook = conversionWebhooks.get(server);
      if (webhook === undefined) {
        if (handled(conversionPath)) throw new BuilderError(`${conversionPath} is already served by a handler the builder did not register: register ${kind.kind}'s conversions on it`);
        webhook = new ConversionWebhook({ logger: this.#mgr.getLogger() });
        conversionWebhooks.set(server, webhook);
        server.register(conversionPath, webhook);
      }
      webhook.register({ group: kind.group, kind: kind.kind, ...this.#conversions });
      convert = conversionPath;
    }
    const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [kind.group], apiVersions: [kind.version], resources: [kind.resource] }];
    const entry = { failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'], rules };
    const lower = kind.kind.toLowerCase();
    const registration: WebhookRegistration = {
      gvk,
      mutatePath,
      validatePath,
      conversionPath: convert,
      mutatingWebhook(overrides = {}) {
        if (mutatePath === undefined) throw new BuilderError(`no defaulter was registered for ${kind.kind}`);
        return { name: `m${lower}-${kind.version}.kb.io`, path: mutatePath, ...entry, ...overrides };
      },
      validatingWebhook(overrides = {}) {
        if (validatePath === undefined) throw new BuilderError(`no validator was registered for ${kind.kind}`);
        return { name: `v${lower}-${kind.version}.kb.io`, path: validatePath, ...entry, ...overrides };
      },
    };
    recordWebhook(this.#mgr, registration);
    return registration;
  }
}

/** Starts a builder for the webhooks of a kind served by `mgr`'s webhook server (builder.WebhookManagedBy). */
export function webhookManagedBy(mgr: Manager): WebhookBuilder {
  return new WebhookBuilder(mgr);
}
