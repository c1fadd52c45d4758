// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './errors.ts';
export * from './watch.ts';
export * from './object.ts';
export * from './meta.ts';
export * from './labels.ts';
export * from './fields.ts';
export * from './options.ts';
export {
  FieldPath,
  fieldPath,
  fieldErrorString,
  required as fieldRequired,
  invalidValue as fieldInvalid,
  notSupported as fieldNotSupported,
  forbiddenField as fieldForbidden,
  tooLong as fieldTooLong,
  tooMany as fieldTooMany,
  duplicate as fieldDuplicate,
  notFoundField as fieldNotFound,
} from './validation/field.ts';
export type { FieldError } from './validation/field.ts';
export * from './conditions.ts';
