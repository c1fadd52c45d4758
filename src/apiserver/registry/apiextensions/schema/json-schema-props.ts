/**
 * The openAPIV3Schema of a CustomResourceDefinition version as it arrives in JSON
 * (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1 JSONSchemaProps), plus the narrowing helpers the
 * schema modules share. Values are plain decoded JSON; nothing here mutates a schema.
 */

/** One CEL validation rule of `x-kubernetes-validations`. */
export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** JSONSchemaProps: the keywords a CRD schema may carry (and a few it may not, refused by validation). */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: unknown;
  additionalItems?: unknown;
  definitions?: unknown;
  externalDocs?: unknown;
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** Narrows to a plain JSON object. */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The single item schema of an array schema (undefined when absent or given as a tuple). */
export function itemsOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return isObj(s.items) ? (s.items as JSONSchemaProps) : undefined;
}

/** The schema of additionalProperties, when it is a schema (not a boolean). */
export function additionalOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return isObj(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined;
}

/** The schema of one property of an object value: a declared property, else additionalProperties. */
export function fieldSchema(s: JSONSchemaProps | undefined, name: string): JSONSchemaProps | undefined {
  if (s === undefined) return undefined;
  const p = s.properties?.[name];
  if (p !== undefined) return p;
  return additionalOf(s);
}

/** Whether unknown fields are kept under this schema. */
export function preservesUnknown(s: JSONSchemaProps): boolean {
  return s['x-kubernetes-preserve-unknown-fields'] === true;
}

/** Whether the schema admits any value at all without a type of its own (int-or-string or preserve-unknown). */
export function isIntOrString(s: JSONSchemaProps): boolean {
  return s['x-kubernetes-int-or-string'] === true;
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
