/**
 * The metadata client (metadata.Client): lists, watches and reads any resource as
 * PartialObjectMetadata — only apiVersion, kind and ObjectMeta travel — which is the cheap way to
 * cache large resources (secrets, configmaps) when only their metadata matters.
 */
import type { GroupVersionResource, PartialObjectMetadata } from '../apimachinery/object.ts';
import type { RestConfig } from '../rest/config.ts';
import { RestClient, type RestClientOptions } from '../rest/client.ts';
import { NamespaceableResourceClient } from '../dynamic/dynamic-client.ts';

/** Accept header asking the server for PartialObjectMetadata (GET, WATCH events). */
export const partialObjectMetadataAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
/** Accept header asking the server for a PartialObjectMetadataList (LIST). */
export const partialObjectMetadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * Metadata-only clients for any resource.
 *
 * @example
 * const meta = new MetadataClient(config);
 * const secrets = await meta.resource({ group: '', version: 'v1', resource: 'secrets' }).namespace('default').list();
 * secrets.items[0]?.metadata?.name; // no data was transferred
 */
export class MetadataClient {
  /** The client requests go through. */
  readonly rest: RestClient;

  constructor(config: RestConfig | RestClient, options?: RestClientOptions) {
    this.rest = config instanceof RestClient ? config : new RestClient(config, options);
  }

  /** The metadata client of one resource (cluster-wide until `.namespace(ns)`). */
  resource(gvr: GroupVersionResource): NamespaceableResourceClient<PartialObjectMetadata> {
    return new NamespaceableResourceClient<PartialObjectMetadata>(this.rest, {
      group: gvr.group,
      version: gvr.version,
      resource: gvr.resource,
      kind: 'PartialObjectMetadata',
      namespaced: false,
      accept: { object: partialObjectMetadataAccept, list: partialObjectMetadataListAccept },
    });
  }
}
