/** kubeloom/informers: typed, dynamic and metadata-only shared informer factories. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './factory.ts';
// The per-group accessor types of the typed factory (generated).
export type * from './typed/informers.ts';
