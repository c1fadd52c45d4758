/**
 * Event handlers turning informer notifications into work-queue keys: the object's own key, its
 * owner's key (ownerReferences), or keys computed by a function. Each returns a
 * {@link ResourceEventHandler} to add to an informer.
 */
import type { OwnerReference } from '../api/meta/v1.ts';
import { keyOf, namespaceOf } from '../apimachinery/meta.ts';
import type { KubeObject } from '../apimachinery/object.ts';
import { parseApiVersion } from '../apimachinery/object.ts';
import { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from '../tools/cache/key-functions.ts';
import type { KeySink, ResourceEventHandler } from './event-handler.ts';

/** The object inside a notification, unwrapping a tombstone (undefined when the tombstone has none). */
export function objectOf<T>(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
  return isDeletedFinalStateUnknown(obj) ? (obj.obj as T | undefined) : obj;
}

/**
 * The `namespace/name` key of a notification's object. A tombstone carries its key, which is used
 * even when its last known state is missing.
 */
export function keyForNotification(obj: KubeObject | DeletedFinalStateUnknown<KubeObject>): string {
  if (isDeletedFinalStateUnknown(obj)) return obj.key;
  return keyOf(namespaceOf(obj), obj.metadata?.name ?? '');
}

/**
 * Enqueues the object's own key on add, update and delete (handler.EnqueueRequestForObject).
 *
 * @example
 * podSetInformer.addEventHandler(enqueueForObject(controller));
 */
export function enqueueForObject<T extends KubeObject>(sink: KeySink): ResourceEventHandler<T> {
  const enqueue = (obj: T | DeletedFinalStateUnknown<T>): void => {
    const key = keyForNotification(obj);
    if (key !== '') sink.add(key);
  };
  return {
    onAdd: (obj) => enqueue(obj),
    onUpdate: (_old, obj) => enqueue(obj),
    onDelete: (obj) => enqueue(obj),
  };
}

/** Options of {@link enqueueForOwner}. */
export interface EnqueueForOwnerOptions {
  /** The owner's kind, e.g. `PodSet`. */
  ownerKind: string;
  /**
   * The owner's exact apiVersion (`demo.kubeloom.dev/v1alpha1`). When omitted, `group` is compared
   * instead and any version of that group matches, as controller-runtime does.
   */
  ownerApiVersion?: string;
  /** The owner's API group ('' for the core group); used when `ownerApiVersion` is not given. */
  group?: string;
  /** Only follow the reference with `controller: true` (default true, as handler.OnlyControllerOwner). */
  onlyController?: boolean;
}

/** The keys of the owners of `obj` that match `options` (owners live in the object's namespace). */
export function ownerKeys(obj: KubeObject | undefined, options: EnqueueForOwnerOptions): string[] {
  if (obj === undefined) return [];
  const onlyController = options.onlyController ?? true;
  const ns = namespaceOf(obj);
  const keys: string[] = [];
  for (const ref of obj.metadata?.ownerReferences ?? []) {
    if (!ownerMatches(ref, options)) continue;
    if (onlyController && ref.controller !== true) continue;
    keys.push(keyOf(ns, ref.name));
  }
  return keys;
}

function ownerMatches(ref: OwnerReference, options: EnqueueForOwnerOptions): boolean {
  if (ref.kind !== options.ownerKind) return false;
  if (options.ownerApiVersion !== undefined) return ref.apiVersion === options.ownerApiVersion;
  if (options.group !== undefined) return parseApiVersion(ref.apiVersion).group === options.group;
  return true;
}

/**
 * Enqueues the key of the object's owner (handler.EnqueueRequestForOwner). On update both the old and
 * the new owners are enqueued, so an owner that lost an object hears about it too.
 *
 * @example
 * podInformer.addEventHandler(enqueueForOwner(controller, { ownerKind: 'ReplicaSet', group: 'apps' }));
 */
export function enqueueForOwner<T extends KubeObject>(sink: KeySink, options: EnqueueForOwnerOptions): ResourceEventHandler<T> {
  const enqueue = (...objs: (T | undefined)[]): void => {
    const seen = new Set<string>();
    for (const obj of objs) for (const key of ownerKeys(obj, options)) seen.add(key);
    for (const key of seen) sink.add(key);
  };
  return {
    onAdd: (obj) => enqueue(obj),
    onUpdate: (oldObj, newObj) => enqueue(oldObj, newObj),
    onDelete: (obj) => enqueue(objectOf(obj)),
  };
}

/**
 * Enqueues the keys `map` returns for an object (handler.EnqueueRequestsFromMapFunc). On update, the
 * keys of both the old and the new object are enqueued; on a tombstone without a last known state
 * nothing is. Duplicate keys are enqueued once.
 *
 * @example
 * // Reconcile every PodSet in a namespace when a ConfigMap there changes.
 * configMapInformer.addEventHandler(enqueueMapped(controller, (cm) => podSetLister.namespace(cm.metadata!.namespace!).list().map(objectKey)));
 */
export function enqueueMapped<T>(sink: KeySink, map: (obj: T) => readonly string[]): ResourceEventHandler<T> {
  const enqueue = (...objs: (T | undefined)[]): void => {
    const seen = new Set<string>();
    for (const obj of objs) if (obj !== undefined) for (const key of map(obj)) seen.add(key);
    for (const key of seen) sink.add(key);
  };
  return {
    onAdd: (obj) => enqueue(obj),
    onUpdate: (oldObj, newObj) => enqueue(oldObj, newObj),
    onDelete: (obj) => enqueue(objectOf(obj)),
  };
}
