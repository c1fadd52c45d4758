// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './errors.ts';
export * from './watch.ts';
export * from './object.ts';
export * from './meta.ts';
export * from './labels.ts';
export * from './fields.ts';
export * from './options.ts';
