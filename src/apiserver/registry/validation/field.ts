/**
 * Field errors for the registry's validation: apimachinery's pkg/util/validation/field, which lives in
 * src/apimachinery/validation/field.ts so that operators (webhooks, `newInvalid`) build the same errors.
 */
export * from '../../../apimachinery/validation/field.ts';
