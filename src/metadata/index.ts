/** kubeloom/metadata: clients returning PartialObjectMetadata for any resource. */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export * from './metadata-client.ts';
