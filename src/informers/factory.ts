/**
 * Informer factories over the REST clients (client-go's informers, dynamicinformer and
 * metadatainformer packages): thin layers over the generic {@link SharedInformerFactory} of
 * tools/cache, which owns sharing, starting and syncing. This module only says where each
 * resource's ListerWatcher comes from, and builds the typed accessors
 * (`factory.coreV1().pods().informer()`) from the same generated table as the typed clientset.
 */
import type { GroupVersionResource, KubeObject, PartialObjectMetadata } from '../apimachinery/object.ts';
import type { RestConfig } from '../rest/config.ts';
import { RestClient, type RestClientOptions } from '../rest/client.ts';
import { ResourceClient } from '../kubernetes/resource-client.ts';
import type { Clientset } from '../kubernetes/clientset.ts';
import { rowsOf, type CustomResource } from '../kubernetes/resource-spec.ts';
import { builtinGroupVersions } from '../kubernetes/typed/resources.ts';
import { DynamicClient } from '../dynamic/dynamic-client.ts';
import { MetadataClient } from '../metadata/metadata-client.ts';
import { SharedInformerFactory, type GenericInformer, type SharedInformerFactoryOptions } from '../tools/cache/shared-informer-factory.ts';
import type { ListerWatcher } from '../tools/cache/listwatch.ts';
import { Lister } from '../tools/cache/lister.ts';
import { KubeloomError } from '../apimachinery/errors.ts';
import type { TypedInformerAccessors } from './typed/informers.ts';

export type { TypedInformerAccessors } from './typed/informers.ts';

/** Options of the informer factories: everything {@link SharedInformerFactoryOptions} offers but the source. */
export type InformerFactoryOptions = Omit<SharedInformerFactoryOptions, 'listerWatcherFor'>;

/** What the typed factory adds for custom resources. */
export interface CustomResourceInformers {
  /**
   * The shared informer and lister of a custom resource (its scope comes from the registration,
   * so a namespaced resource is listed per namespace when the factory is namespaced).
   *
   * @example
   * const widgets = factory.forCustomResource(widgetResource);
   * widgets.informer().addEventHandler({ onAdd: (w) => queue.add(objectKey(w)) });
   */
  forCustomResource<T extends KubeObject>(resource: CustomResource<T, unknown>): GenericInformer<T>;
}

/** A shared informer factory with typed accessors (informers.SharedInformerFactory). */
export type TypedSharedInformerFactory = SharedInformerFactory & TypedInformerAccessors & CustomResourceInformers;

const tableScope = new Map<string, { kind: string; namespaced: boolean }>(rowsOf(builtinGroupVersions).map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

function restClientOf(source: Clientset | RestConfig | RestClient, options?: RestClientOptions): RestClient {
  if (source instanceof RestClient) return source;
  if ('restClient' in source) return source.restClient;
  return new RestClient(source, options);
}

/** A ListerWatcher over a resource client (list and watch have the ListerWatcher signatures). */
function listerWatcherOf<T>(client: ResourceClient<T, unknown>): ListerWatcher<T> {
  return { list: (o) => client.list(o), watch: (o) => client.watch(o) };
}

/** A typed factory was asked for a resource it has no informer for (informers.ForResource's "no informer found"). */
export class NoInformerForResourceError extends KubeloomError {
  /** The resource that has no informer. */
  readonly resource: GroupVersionResource;
  constructor(gvr: GroupVersionResource) {
    super('ERR_INFORMER_NO_RESOURCE', `no informer found for ${gvr.group}/${gvr.version}, Resource=${gvr.resource}`);
    this.resource = gvr;
  }
}

/**
 * Builds a typed shared informer factory over a clientset, a RestConfig or a RestClient.
 *
 * @example
 * const factory = newSharedInformerFactory(clientset, { defaultResyncMs: 0, namespace: 'default' });
 * const pods = factory.coreV1().pods();
 * pods.informer().addEventHandler({ onAdd: (pod) => queue.add(objectKey(pod)) });
 * factory.start({ signal });
 * await factory.waitForCacheSync({ signal });
 * const web = pods.lister().namespace('default').list('app=web');
 */
export function newSharedInformerFactory(source: Clientset | RestConfig | RestClient, options: InformerFactoryOptions = {}, clientOptions?: RestClientOptions): TypedSharedInformerFactory {
  const rest = restClientOf(source, clientOptions);
  const custom = new Map<string, { kind: string; namespaced: boolean }>();
  const factory = new SharedInformerFactory({
    ...options,
    listerWatcherFor: <T>(gvr: GroupVersionResource, namespace: string): ListerWatcher<T> => {
      const key = `${gvr.group}/${gvr.version}/${gvr.resource}`;
      const row = tableScope.get(key) ?? custom.get(key);
      // A resource outside the table is addressed like the dynamic client does.
      const namespaced = row?.namespaced ?? namespace !== '';
      return listerWatcherOf(new ResourceClient<T>(rest, { ...gvr, kind: row?.kind ?? '', namespaced, namespace }));
    },
  });
  // Like a generated factory's ForResource: only the resources it has informers for (built-in ones
  // and custom resources registered with forCustomResource), with listers whose NotFound errors name
  // the singular resource as generated listers do (`pod "x" not found`).
  const genericForResource = factory.forResource.bind(factory);
  factory.forResource = <T extends KubeObject>(gvr: GroupVersionResource): GenericInformer<T> => {
    const key = `${gvr.group}/${gvr.version}/${gvr.resource}`;
    const row = tableScope.get(key) ?? custom.get(key);
    if (row === undefined) throw new NoInformerForResourceError(gvr);
    const generic = genericForResource<T>(gvr);
    const singular = { group: gvr.group, resource: row.kind.toLowerCase() };
    return { informer: () => generic.informer(), lister: () => new Lister<T>(generic.informer().getIndexer(), singular) };
  };
  const accessors: Record<string, unknown> = {};
  for (const gv of builtinGroupVersions) {
    const group: Record<string, () => GenericInformer<KubeObject>> = {};
    for (const spec of gv.resources) {
      if (!spec.verbs.includes('list') || !spec.verbs.includes('watch')) continue;
      group[spec.accessor] = () => factory.forResource<KubeObject>({ group: gv.group, version: gv.version, resource: spec.resource });
    }
    if (Object.keys(group).length > 0) accessors[gv.accessor] = () => group;
  }
  accessors['forCustomResource'] = <T extends KubeObject>(resource: CustomResource<T, unknown>): GenericInformer<T> => {
    custom.set(`${resource.group}/${resource.version}/${resource.resource}`, { kind: resource.kind, namespaced: resource.namespaced });
    return factory.forResource<T>({ group: resource.group, version: resource.version, resource: resource.resource });
  };
  return Object.assign(factory, accessors) as unknown as TypedSharedInformerFactory;
}

/**
 * A factory of informers for any resource on unstructured objects
 * (dynamicinformer.NewFilteredDynamicSharedInformerFactory): `factory.forResource(gvr)`.
 */
export function newDynamicSharedInformerFactory(source: DynamicClient | RestConfig | RestClient, options: InformerFactoryOptions = {}, clientOptions?: RestClientOptions): SharedInformerFactory {
  const dynamic = source instanceof DynamicClient ? source : new DynamicClient(source instanceof RestClient ? source : new RestClient(source, clientOptions));
  return new SharedInformerFactory({
    ...options,
    listerWatcherFor: <T>(gvr: GroupVersionResource, namespace: string): ListerWatcher<T> =>
      listerWatcherOf(dynamic.resource(gvr).namespace(namespace)) as unknown as ListerWatcher<T>,
  });
}

/**
 * A factory of metadata-only informers (metadatainformer.NewFilteredSharedInformerFactory): their
 * caches hold PartialObjectMetadata, the cheap way to follow large resources.
 *
 * @example
 * const factory = newMetadataSharedInformerFactory(config);
 * const secrets = factory.forResource<PartialObjectMetadata>({ group: '', version: 'v1', resource: 'secrets' });
 */
export function newMetadataSharedInformerFactory(source: MetadataClient | RestConfig | RestClient, options: InformerFactoryOptions = {}, clientOptions?: RestClientOptions): SharedInformerFactory {
  const metadata = source instanceof MetadataClient ? source : new MetadataClient(source instanceof RestClient ? source : new RestClient(source, clientOptions));
  return new SharedInformerFactory({
    ...options,
    listerWatcherFor: <T>(gvr: GroupVersionResource, namespace: string): ListerWatcher<T> =>
      listerWatcherOf<PartialObjectMetadata>(metadata.resource(gvr).namespace(namespace)) as unknown as ListerWatcher<T>,
  });
}
