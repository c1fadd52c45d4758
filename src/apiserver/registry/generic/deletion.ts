/**
 * The generic registry's DELETE of one object, as kube-apiserver's Store.Delete does it
 * (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go, and rest.BeforeDelete in
 * pkg/registry/rest/delete.go): preconditions, the garbage-collection finalizers the options ask for,
 * then either the mark for deletion (deletionTimestamp, deletionGracePeriodSeconds 0, a generation bump)
 * while finalizers remain, or the removal. Also the removal itself, with its side effects.
 *
 * Pods are deleted gracefully (registry/core/pod-deletion.ts), not here.
 */
import { deepEqual, metaOf } from '../../object-meta.ts';
import { storageKey, type ApiResource } from '../../resources.ts';
import { conflict } from '../../status.ts';
import type { StoredObject } from '../../storage.ts';
import type { RegistryContext } from '../context.ts';
import { stopServingCustomResource } from '../apiextensions/serving-info.ts';
import { defaultGarbageCollectionPolicy, deletionFinalizersForGarbageCollection, type DeleteOptions } from './garbage-collection-policy.ts';
import { structOfKind } from '../../schema/scheme.ts';
import { decodeTyped } from '../../schema/typed-json.ts';

/**
 * A built-in object marked for deletion in its Go struct's field order (the metadata fields a deletion sets
 * go where ObjectMeta has them: deletionTimestamp and deletionGracePeriodSeconds after creationTimestamp),
 * as the etcd store encodes the updated struct. Custom resources are returned as they are.
 */
export function inStructOrder(obj: Record<string, unknown>): Record<string, unknown> {
  const s = typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' ? structOfKind(obj.apiVersion, obj.kind) : undefined;
  return s === undefined ? obj : decodeTyped(s, obj);
}

type Obj = Record<string, unknown>;

// The storage key of CustomResourceDefinitions.
const crdStore = storageKey('apiextensions.k8s.io', 'customresourcedefinitions');

/** What a DELETE did. */
export interface DeleteResult {
  /** The object as it stays (`pending`) or as it was when removed; for a dry run, as it would be. */
  readonly object: Obj;
  /** Its stored state, when `object` is exactly what storage holds (or held last). */
  readonly stored: StoredObject | undefined;
  /** True when the object is still there, waiting for finalizers. */
  readonly pending: boolean;
}

/** A metadata list field as strings (finalizers). */
export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * rest.BeforeDelete's precondition checks: 409 Conflict against the object's kind (not its plural, as
 * `Operation cannot be fulfilled on ConfigMap "x": ...` shows).
 */
export function checkDeletePreconditions(r: ApiResource, existing: Obj, options: DeleteOptions): void {
  const meta = metaOf(existing);
  const pre = options.preconditions ?? {};
  const kindRef = { group: r.group, resource: r.kind };
  const name = String(meta.name);
  if (pre.uid !== undefined && pre.uid !== meta.uid) {
    throw conflict(kindRef, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${String(meta.uid)}). The object might have been deleted and then recreated`);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(kindRef, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${String(meta.resourceVersion)}). The object might have been modified`);
  }
}

/**
 * markAsDeleting: deletionTimestamp now (kept when already set), deletionGracePeriodSeconds 0, and the
 * generation bumped on the first mark, as for resources without graceful deletion.
 */
function markAsDeleting(meta: Obj, now: string): void {
  if (meta.deletionTimestamp === undefined && typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
  meta.deletionTimestamp ??= now;
  meta.deletionGracePeriodSeconds = 0;
}

/** Store.Delete after the object was read: the GC finalizers, the mark for deletion or the removal. */
export function storeDelete(scope: RegistryContext, r: ApiResource, existing: StoredObject, options: DeleteOptions, dryRun: boolean): DeleteResult {
  checkDeletePreconditions(r, existing.obj, options);
  const store = storageKey(r.group, r.resource);
  const meta = existing.obj.metadata as Obj;
  const finalizers = stringList(meta.finalizers);
  const gcFinalizers = deletionFinalizersForGarbageCollection(defaultGarbageCollectionPolicy(store, r.version), finalizers, options);
  const remaining = gcFinalizers ?? finalizers;
  if (remaining.length > 0) {
    const next = structuredClone(existing.obj);
    const m = metaOf(next);
    if (gcFinalizers !== undefined) m.finalizers = gcFinalizers;
    markAsDeleting(m, scope.now());
    // An update that changes nothing is not written (GuaranteedUpdate skips it).
    if (deepEqual(next, existing.obj)) return { object: existing.obj, stored: existing, pending: true };
    if (dryRun) return { object: next, stored: undefined, pending: true };
    const stored = scope.storage.write(store, existing.key, 'MODIFIED', inStructOrder(next));
    return { object: stored.obj, stored, pending: true };
  }
  if (dryRun) return { object: existing.obj, stored: existing, pending: false };
  removeObject(scope, store, existing);
  // The answer is the object as last written, at that write's resourceVersion (the etcd3 store's
  // conditionalDelete decodes the state it deleted); watchers see it at the deletion's revision.
  return { object: existing.obj, stored: existing, pending: false };
}

/**
 * Removes an object for good. The DELETED change carries the last stored state (as etcd's previous value
 * does) at the deletion's revision. A CRD takes its custom resources and their watches with it.
 */
export function removeObject(scope: RegistryContext, store: string, last: StoredObject): StoredObject {
  const gone = scope.storage.write(store, last.key, 'DELETED', last.obj);
  if (store === crdStore) dropCustomResource(scope, last.key);
  return gone;
}

/** Deleting a CRD deletes its objects, ends its watches and stops serving it. */
export function dropCustomResource(scope: RegistryContext, crdName: string): void {
  const { registry, storage } = scope;
  const entries = stopServingCustomResource(registry, storage, crdName);
  const first = entries[0];
  if (first === undefined) return;
  const store = storageKey(first.group, first.resource);
  for (const s of storage.listAt(store, storage.revision)) storage.write(store, s.key, 'DELETED', s.obj);
  for (const w of scope.watches) if (w.store === store) w.end();
}
