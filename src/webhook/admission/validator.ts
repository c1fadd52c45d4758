/**
 * Typed validating webhooks (controller-runtime pkg/webhook/admission/validator_custom.go,
 * WithValidator): CREATE validates the object, UPDATE the new object against the old one, DELETE the
 * object being deleted (the request's oldObject), CONNECT is admitted without validation and any
 * other operation answers 400 `unknown operation "<op>"`. A missing object answers 400 ("there is no
 * content to decode"). The validator returns warnings, or throws to deny: an error carrying a Status
 * (a {@link StatusError}, e.g. an Invalid with its field causes) is answered with that Status as it
 * is; any other error is a 403 Forbidden with its message. Warnings are kept on denials too.
 *
 * Difference: the three methods are optional here; a missing one admits.
 */
import { statusOf } from '../../apimachinery/errors.ts';
import { decodeObject } from './defaulter.ts';
import { allowed, denied, errored, validationResponseFromStatus, withWarnings, type Response } from './response.ts';
import { Operation, type AdmissionRequest } from './types.ts';
import type { AdmissionContext, AdmissionHandler } from './webhook.ts';

/** Warning messages returned to the client (admission.Warnings). */
export type Warnings = readonly string[];

/** Validates objects of type T (controller-runtime admission.Validator[T]). Throw to deny. */
export interface CustomValidator<T> {
  /** Validates a new object. */
  validateCreate?(obj: T, context: AdmissionContext): Warnings | void | Promise<Warnings | void>;
  /** Validates a change from `oldObj` to `newObj`. */
  validateUpdate?(oldObj: T, newObj: T, context: AdmissionContext): Warnings | void | Promise<Warnings | void>;
  /** Validates the deletion of `obj`. */
  validateDelete?(obj: T, context: AdmissionContext): Warnings | void | Promise<Warnings | void>;
}

/** Options of {@link withCustomValidator}. */
export interface ValidatorOptions<T> {
  /** Turns a raw object into T, throwing when it is not one (default: taken as is). A throw answers 400. */
  decode?: (raw: unknown) => T;
}

/** An {@link AdmissionHandler} that runs a validator. */
export function withCustomValidator<T>(validator: CustomValidator<T>, options: ValidatorOptions<T> = {}): AdmissionHandler {
  return {
    async handle(request: AdmissionRequest, context: AdmissionContext): Promise<Response> {
      let run: () => Warnings | void | Promise<Warnings | void>;
      try {
        switch (request.operation) {
          case Operation.Connect:
            return allowed();
          case Operation.Create: {
            const obj = decodeObject(request.object, options.decode);
            run = () => validator.validateCreate?.(obj, context);
            break;
          }
          case Operation.Update: {
            const obj = decodeObject(request.object, options.decode);
            const old = decodeObject(request.oldObject, options.decode);
            run = () => validator.validateUpdate?.(old, obj, context);
            break;
          }
          case Operation.Delete: {
            const obj = decodeObject(request.oldObject, options.decode);
            run = () => validator.validateDelete?.(obj, context);
            break;
          }
          default:
            return errored(400, `unknown operation ${JSON.stringify(request.operation)}`);
        }
      } catch (err) {
        return errored(400, err);
      }
      let warnings: Warnings = [];
      try {
        warnings = (await run()) ?? [];
      } catch (err) {
        const w = (err as { warnings?: unknown }).warnings;
        const kept = Array.isArray(w) ? w.filter((x): x is string => typeof x === 'string') : [];
        const status = statusOf(err);
        if (status !== undefined) return withWarnings(validationResponseFromStatus(false, status), ...kept);
        return withWarnings(denied(err instanceof Error ? err.message : String(err)), ...kept);
      }
      return withWarnings(allowed(), ...warnings);
    },
  };
}
