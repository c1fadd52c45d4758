/** kubeloom/apiextensions: declaring CustomResourceDefinitions in TypeScript. */
export * from './crd-builder.ts';
