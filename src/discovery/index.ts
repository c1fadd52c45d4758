/** kubeloom/discovery: the cached discovery client and the RESTMapper built on it. */
export * from './discovery-client.ts';
export * from './rest-mapper.ts';
export * from './builtin-mappings.ts';
