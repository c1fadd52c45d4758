/** kubeloom/tools/cache: stores, indexers, queues, reflectors, shared informers, listers (client-go tools/cache). */
// First: a clear error on unsupported Node.js versions, before any dependency loads.
import '../../node-version.ts';
export * from './key-functions.ts';
export * from './object-names.ts';
export * from './indexer.ts';
export * from './thread-safe-store.ts';
export * from './store.ts';
export * from './ring-buffer.ts';
export * from './delta.ts';
export * from './delta-fifo.ts';
export * from './real-fifo.ts';
export * from './listwatch.ts';
export * from './reflector.ts';
export * from './event-handlers.ts';
export * from './processor-listener.ts';
export * from './shared-informer.ts';
export * from './sharded-listwatch.ts';
export * from './shared-informer-factory.ts';
export * from './lister.ts';
export * from './wait-for-cache-sync.ts';
export * from './transforms.ts';
export * from './deep-freeze.ts';
export type { ListPageMeta } from './list-pager.ts';
export { FakeListerWatcher, FakeWatch, type ListScript, type WatchScript, type FakeListerWatcherOptions } from './testing/fake-lister-watcher.ts';
