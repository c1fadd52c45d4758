/** kubeloom/metadata: clients returning PartialObjectMetadata for any resource. */
export * from './metadata-client.ts';
