/** kubeloom/dynamic: the dynamic client for any resource and the object client driven by the RESTMapper. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './dynamic-client.ts';
export * from './object-client.ts';
