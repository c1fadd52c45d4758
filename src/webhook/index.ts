/**
 * kubeloom/webhook: the webhook server of an operator (controller-runtime pkg/webhook and
 * pkg/certwatcher) — HTTPS with certificates reloaded from disk, a runnable for the Manager — and the
 * development certificates. Admission and conversion webhooks are in kubeloom/webhook/admission and
 * kubeloom/webhook/conversion.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { WebhookServer, WebhookServerError, defaultCertDir, defaultWebhookPort } from './server.ts';
export type { HealthChecker, HttpServable, ResolvedWebhookServerOptions, ServerAddress, WebhookHandler, WebhookServerOptions } from './server.ts';
export { CertWatcher, CertificateReadError } from './certwatcher.ts';
export type { CertificatePair, CertWatcherOptions } from './certwatcher.ts';
export { createCertificateAuthority, ensureServingCertificates, generateServingCertificates, issueServingCertificate } from './certificates.ts';
export type { CertificateAuthorityOptions, KeyPairPem } from './certificates.ts';
export { CertRotator, CertRotatorError, WebhookType, caCertKey, caKeyKey, injectCaBundle } from './cert-rotator.ts';
export type { CertRotatorOptions, WebhookInfo, WebhookTypeValue } from './cert-rotator.ts';
export { DevWebhookError, setupDevWebhooks } from './dev.ts';
export type { DevConversion, DevMutatingWebhook, DevValidatingWebhook, DevWebhookConfiguration, DevWebhookOptions, DevWebhooks } from './dev.ts';
export type { ServingCertificateOptions, ServingCertificates } from './certificates.ts';
