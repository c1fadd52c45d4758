/**
 * Errors of the code generator. Every error about an input names the file and the JSON path of
 * the offending node, so a bad CRD or OpenAPI document can be fixed without guessing.
 */
import { KubeloomError } from '../apimachinery/errors.ts';

/** An input document the generator cannot turn into a model (bad schema, `$ref`, unknown format ...). */
export class SchemaInputError extends KubeloomError {
  /** The file (or other source) the document came from. */
  readonly file: string;
  /** JSON path of the offending node, e.g. `$.spec.versions[0].schema.openAPIV3Schema.properties.spec`. */
  readonly jsonPath: string;

  constructor(file: string, jsonPath: string, message: string, options?: { cause?: unknown }) {
    super('ERR_CODEGEN_SCHEMA', `${file}: ${jsonPath}: ${message}`, options);
    this.file = file;
    this.jsonPath = jsonPath;
  }
}

/** A file could not be read or parsed as JSON/YAML. */
export class InputReadError extends KubeloomError {
  readonly file: string;

  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super('ERR_CODEGEN_READ', `${file}: ${message}`, options);
    this.file = file;
  }
}

/** Appends a property name to a JSON path, quoting it when it is not an identifier. */
export function jsonPathChild(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
