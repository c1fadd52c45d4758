/**
 * The metadata client (metadata.Client): lists, watches and reads any resource as
 * PartialObjectMetadata — only apiVersion, kind and ObjectMeta travel — which is the cheap way to
 * cache large resources (secrets, configmaps) when only their metadata matters.
 */
import type { GroupVersionResource, KubeList, PartialObjectMetadata } from '../apimachinery/object.ts';
import type { GetOptions, ListOptions, PatchOptions, PatchTypeValue } from '../apimachinery/options.ts';
import { isWatchEventBatchIterator, type WatchEvent, type WatchEventBatchIterator } from '../apimachinery/watch.ts';
import type { RestConfig } from '../rest/config.ts';
import { RestClient, type RestClientOptions, type WatchStream } from '../rest/client.ts';
import { ResponseDecodeError } from '../rest/errors.ts';
import type { ListEnvelope } from '../rest/list-decoder.ts';
import { DynamicResourceClient } from '../dynamic/dynamic-client.ts';
import type { ResourceClientOptions, SubresourceOption } from '../kubernetes/resource-client.ts';

/** Accept header asking the server for PartialObjectMetadata (GET, WATCH events). */
export const partialObjectMetadataAccept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
/** Accept header asking the server for a PartialObjectMetadataList (LIST). */
export const partialObjectMetadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

const partialKind = 'PartialObjectMetadata';
const partialApiVersion = 'meta.k8s.io/v1';

/** Whether decoded metadata looks like ObjectMeta (isLikelyObjectMetadata): a uid, creation time, name or generateName. */
function isLikelyObjectMetadata(meta: PartialObjectMetadata['metadata']): boolean {
  return meta !== undefined && ((meta.uid ?? '') !== '' || (meta.creationTimestamp ?? '') !== '' || (meta.name ?? '') !== '' || (meta.generateName ?? '') !== '');
}

/**
 * An object as PartialObjectMetadata. A server (an aggregated API, an old server) that ignored the
 * Accept header answers with the whole object; as upstream decodes that into PartialObjectMetadata,
 * only `metadata` is kept and the type is cleared, so no data reaches a metadata-only cache.
 */
export function toPartialObjectMetadata(obj: unknown, requireObjectMeta = true): PartialObjectMetadata {
  const o = obj as PartialObjectMetadata | null;
  if (o !== null && typeof o === 'object' && o.kind === partialKind && o.apiVersion === partialApiVersion) return o;
  if (o === null || typeof o !== 'object') throw new ResponseDecodeError('unable to decode returned object as PartialObjectMetadata');
  if (requireObjectMeta && !isLikelyObjectMetadata(o.metadata)) throw new ResponseDecodeError('object does not appear to match the ObjectMeta schema');
  return o.metadata === undefined ? {} : { metadata: o.metadata };
}

/** An item of a full list as PartialObjectMetadata: its type and metadata only. */
function typeAndMetadata(item: PartialObjectMetadata): PartialObjectMetadata {
  return { ...(item.apiVersion !== undefined ? { apiVersion: item.apiVersion } : {}), ...(item.kind !== undefined ? { kind: item.kind } : {}), ...(item.metadata !== undefined ? { metadata: item.metadata } : {}) };
}

/** One resource of the metadata client (metadata.ResourceInterface): answers are PartialObjectMetadata. */
export class MetadataResourceClient extends DynamicResourceClient<PartialObjectMetadata> {
  override async get(name: string, options?: GetOptions & SubresourceOption): Promise<PartialObjectMetadata> {
    return toPartialObjectMetadata(await super.get(name, options));
  }

  override async list(options?: ListOptions): Promise<KubeList<PartialObjectMetadata>> {
    const list = await super.list(options);
    if (list.kind === `${partialKind}List` && list.apiVersion === partialApiVersion) return list;
    // A full list: keep each item's type and metadata only, and clear the list's type (upstream's fallback).
    const items = list.items.map(typeAndMetadata);
    return list.metadata === undefined ? { items } : { metadata: list.metadata, items };
  }

  /** As {@link MetadataResourceClient.list}, batch by batch: items of a full list keep only their type and metadata. */
  override async listStream(options: ListOptions, onItems: (items: PartialObjectMetadata[]) => void | PromiseLike<void>): Promise<ListEnvelope> {
    const envelope = await super.listStream(options, (items) => onItems(items.map((i) => (i.kind === partialKind && i.apiVersion === partialApiVersion ? i : typeAndMetadata(i)))));
    if (envelope.kind === `${partialKind}List` && envelope.apiVersion === partialApiVersion) return envelope;
    return envelope.metadata === undefined ? {} : { metadata: envelope.metadata };
  }

  override async watch(options?: ListOptions): Promise<WatchStream<PartialObjectMetadata>> {
    const w = await super.watch(options);
    const it = w[Symbol.asyncIterator]();
    const partial = (e: WatchEvent<PartialObjectMetadata>): WatchEvent<PartialObjectMetadata> =>
      e.type === 'ERROR' || e.type === 'BOOKMARK' ? e : { type: e.type, object: toPartialObjectMetadata(e.object, false) };
    const events: AsyncIterator<WatchEvent<PartialObjectMetadata>> & Partial<WatchEventBatchIterator<PartialObjectMetadata>> = {
      next: async () => {
        const r = await it.next();
        if (r.done === true) return r;
        return { done: false, value: partial(r.value) };
      },
      return: async () => (await it.return?.()) ?? { done: true, value: undefined },
    };
    // Keep handing a network chunk's events over together when the stream can (the informer's hot path).
    if (isWatchEventBatchIterator(it)) {
      events.nextBatch = async () => {
        const batch = await it.nextBatch();
        return batch === undefined ? undefined : batch.map(partial);
      };
    }
    return { stop: () => w.stop(), [Symbol.asyncIterator]: () => events };
  }

  override async patch(name: string, patchType: PatchTypeValue, patch: unknown, options?: PatchOptions & SubresourceOption): Promise<PartialObjectMetadata> {
    return toPartialObjectMetadata(await super.patch(name, patchType, patch, options));
  }
}

/** A metadata resource client that can be narrowed to one namespace. */
export class NamespaceableMetadataResourceClient extends MetadataResourceClient {
  readonly #options: ResourceClientOptions;

  constructor(rest: RestClient, options: ResourceClientOptions) {
    super(rest, options);
    this.#options = options;
  }

  /** The resource within `namespace` (`''`: the paths without a namespace, as the dynamic client). */
  namespace(namespace: string): MetadataResourceClient {
    return new MetadataResourceClient(this.rest, { ...this.#options, namespaced: namespace !== '', namespace });
  }
}

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
  resource(gvr: GroupVersionResource): NamespaceableMetadataResourceClient {
    return new NamespaceableMetadataResourceClient(this.rest, {
      group: gvr.group,
      version: gvr.version,
      resource: gvr.resource,
      kind: partialKind,
      namespaced: false,
      accept: { object: partialObjectMetadataAccept, list: partialObjectMetadataListAccept },
    });
  }
}
