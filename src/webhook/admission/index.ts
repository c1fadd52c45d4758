/**
 * kubeloom/webhook/admission: admission webhooks as controller-runtime's pkg/webhook/admission has
 * them — AdmissionReview v1/v1beta1 over HTTP, typed defaulters (the JSONPatch is computed) and
 * validators, raw handlers, response helpers, several handlers behind one path, and the builder's paths.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export { AdmissionWebhook, decodeReview } from './webhook.ts';
export type { AdmissionContext, AdmissionHandler, AdmissionHandlerFunc, AdmissionWebhookOptions } from './webhook.ts';
export { allowed, completeResponse, denied, errored, patched, patchResponseFromRaw, validationResponse, validationResponseFromStatus, withWarnings } from './response.ts';
export type { Response } from './response.ts';
export { withCustomDefaulter, noContentMessage } from './defaulter.ts';
export type { CustomDefaulter, DefaulterOptions } from './defaulter.ts';
export { withCustomValidator } from './validator.ts';
export type { CustomValidator, ValidatorOptions, Warnings } from './validator.ts';
export { multiMutatingHandler, multiValidatingHandler } from './multi.ts';
export { createPatch, jsonEqual } from './json-patch-diff.ts';
export { conversionPath, generateMutatePath, generateValidatePath } from './paths.ts';
export { Operation } from './types.ts';
export type { AdmissionRequest, AdmissionResponseWire, AdmissionReview, GroupVersionKind, GroupVersionResource, JsonPatchOperation, OperationValue, ResultStatus, UserInfo } from './types.ts';
