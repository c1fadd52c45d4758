/** kubeloom/discovery: the cached discovery client (legacy and aggregated discovery) and the RESTMapper built on it. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './aggregated-discovery.ts';
export * from './discovery-client.ts';
export * from './rest-mapper.ts';
export * from './builtin-mappings.ts';
