/** kubeloom/apiextensions: declaring CustomResourceDefinitions in TypeScript. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './crd-builder.ts';
export * from './manifest-yaml.ts';
