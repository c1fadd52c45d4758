/**
 * DELETE through the registry of the object's resource: the namespace registry's own Delete for
 * namespaces, the CRD registry's for CustomResourceDefinitions, graceful deletion for pods
 * (core/pod-deletion.ts), the generic store's for everything else. The HTTP handler and the controllers running
 * inside the server both delete through here, so a deletion is the same whoever asks for it.
 */
import { metaOf } from '../object-meta.ts';
import { storageKey, type ApiResource } from '../resources.ts';
import { notFound } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import type { RegistryContext } from './context.ts';
import { namespaceDelete, namespaceFinalized, namespaceStore } from './core/namespace.ts';
import { stringList, storeDelete, type DeleteResult } from './generic/deletion.ts';
import type { DeleteOptions } from './generic/garbage-collection-policy.ts';
import { crdDelete } from './apiextensions/crd-deletion.ts';
import { podDelete } from './core/pod-deletion.ts';

// Pods: the one resource whose strategy deletes gracefully (RESTGracefulDeleteStrategy).
const podStore = storageKey('', 'pods');
// The storage key of CustomResourceDefinitions.
const crdStore = storageKey('apiextensions.k8s.io', 'customresourcedefinitions');

export type { DeleteResult } from './generic/deletion.ts';

/** Deletes one object (404 when it does not exist); see {@link DeleteResult}. */
export function deleteObject(scope: RegistryContext, r: ApiResource, namespace: string, name: string, options: DeleteOptions, dryRun: boolean): DeleteResult {
  const store = storageKey(r.group, r.resource);
  const existing = scope.storage.get(store, namespace === '' ? name : `${namespace}/${name}`);
  if (existing === undefined) throw notFound(r, name);
  return deleteStored(scope, r, existing, options, dryRun);
}

/** Deletes an object already read from storage (DELETE of a collection). */
export function deleteStored(scope: RegistryContext, r: ApiResource, existing: StoredObject, options: DeleteOptions, dryRun: boolean): DeleteResult {
  const store = storageKey(r.group, r.resource);
  if (store === namespaceStore) return namespaceDelete(scope, r, existing, options, dryRun);
  if (store === crdStore) return crdDelete(scope, r, existing, options, dryRun);
  if (store === podStore) return podDelete(scope, r, existing, options, dryRun);
  return storeDelete(scope, r, existing, options, dryRun);
}

/**
 * ShouldDeleteDuringUpdate: an update that leaves an object marked for deletion without finalizers removes
 * it; a namespace also needs its spec.finalizers empty.
 */
export function shouldDeleteDuringUpdate(store: string, next: Record<string, unknown>, old: Record<string, unknown>): boolean {
  if (metaOf(old).deletionTimestamp === undefined) return false;
  if (stringList(metaOf(next).finalizers).length > 0) return false;
  return store !== namespaceStore || namespaceFinalized(next);
}
