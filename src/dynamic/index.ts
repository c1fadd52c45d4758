/** kubeloom/dynamic: the dynamic client for any resource and the object client driven by the RESTMapper. */
export * from './dynamic-client.ts';
export * from './object-client.ts';
