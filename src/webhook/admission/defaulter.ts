/**
 * Typed defaulting webhooks (controller-runtime pkg/webhook/admission/defaulter_custom.go,
 * WithCustomDefaulter): DELETE requests are admitted untouched; otherwise a copy of the request's
 * object is handed to the defaulter, which changes it in place (or returns a replacement), and the
 * answer is the JSONPatch from the object as received to the defaulted one. An error from the
 * defaulter denies the request: with the error's own Status when it carries one (a
 * {@link StatusError}), else 403 Forbidden with its message.
 *
 * Difference: upstream decodes into a Go struct, so it must drop the "remove" operations of fields
 * its struct does not know (dropSchemeRemovals); here the object is the JSON itself, so the patch
 * only ever says what the defaulter changed.
 */
import { statusOf } from '../../apimachinery/errors.ts';
import { denied, errored, patchResponseFromRaw, validationResponseFromStatus, type Response } from './response.ts';
import { Operation, type AdmissionRequest } from './types.ts';
import type { AdmissionContext, AdmissionHandler } from './webhook.ts';

/** Sets defaults on objects of type T (controller-runtime admission.CustomDefaulter). */
export interface CustomDefaulter<T> {
  /**
   * Changes `obj` (a copy of the request's object) in place, or returns the defaulted object. Throwing
   * denies the request.
   */
  default(obj: T, context: AdmissionContext): void | T | Promise<void | T>;
}

/** Options of {@link withCustomDefaulter}. */
export interface DefaulterOptions<T> {
  /** Turns the request's raw object into T, throwing when it is not one (default: taken as is). A throw answers 400. */
  decode?: (raw: unknown) => T;
}

/** Decoder.Decode of an empty RawExtension. */
export const noContentMessage = 'there is no content to decode';

function decodeObject<T>(raw: unknown, decode: ((raw: unknown) => T) | undefined): T {
  if (raw === undefined || raw === null) throw new Error(noContentMessage);
  const copy = structuredClone(raw);
  return decode === undefined ? (copy as T) : decode(copy);
}

/** An {@link AdmissionHandler} that runs a defaulter and answers with the JSONPatch of its changes. */
export function withCustomDefaulter<T>(defaulter: CustomDefaulter<T>, options: DefaulterOptions<T> = {}): AdmissionHandler {
  return {
    async handle(request: AdmissionRequest, context: AdmissionContext): Promise<Response> {
      if (request.operation === Operation.Delete) return { allowed: true, result: { code: 200 } };
      let obj: T;
      try {
        obj = decodeObject(request.object, options.decode);
      } catch (err) {
        return errored(400, err);
      }
      let result: void | T;
      try {
        result = await defaulter.default(obj, context);
      } catch (err) {
        const status = statusOf(err);
        if (status !== undefined) return validationResponseFromStatus(false, status);
        return denied(err instanceof Error ? err.message : String(err));
      }
      return patchResponseFromRaw(request.object, result === undefined ? obj : result);
    },
  };
}

export { decodeObject };
