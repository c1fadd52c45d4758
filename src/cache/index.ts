/**
 * kubeloom/cache: the manager's shared informer cache (controller-runtime pkg/cache). Not to be confused
 * with kubeloom/tools/cache, client-go's informers, reflectors and indexers, which it is built on.
 */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../node-version.ts';
export { CacheNotStartedError, CacheShardingError, InformerCache, MultipleNamespacesError, NoKindMatchError, ReadOnlyIndexerError, ResourceNotCachedError, UnsupportedFieldSelectorError, fieldIndexName, noKindMatchMessage, isMetadataKind, metadataOnly } from './cache.ts';
export type { CacheListOptions, CacheOptions, GetInformerOptions, Informer, InformerEntry, KindSyncStatus, MetadataKind, ObjectSelectorOptions } from './cache.ts';
export { compareResourceVersions } from './resource-version.ts';
