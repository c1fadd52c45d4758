/** kubeloom/discovery: the cached discovery client (legacy and aggregated discovery) and the RESTMapper built on it. */
export * from './aggregated-discovery.ts';
export * from './discovery-client.ts';
export * from './rest-mapper.ts';
export * from './builtin-mappings.ts';
