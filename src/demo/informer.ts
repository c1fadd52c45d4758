/**
 * The part of a shared informer (tools/cache SharedIndexInformer) the demo's controllers use, stated
 * structurally so tests can hand them an informer they feed themselves.
 */
import type { ResourceEventHandler } from '../controller/event-handler.ts';
import type { Indexer } from '../tools/cache/indexer.ts';

/** What the PodSet controller and the fake kubelet need from an informer. */
export interface DemoInformer<T> {
  /** Adds a handler; one added after start first receives an add for every cached object. */
  addEventHandler(handler: ResourceEventHandler<T>): unknown;
  /** The informer's cache. */
  getIndexer(): Indexer<T>;
  /** True once the initial list is in the cache. */
  hasSynced(): boolean;
}
