/**
 * What happens to an object marked for deletion once its finalizers' owners act on it, run in-process
 * right after the write that marked it (kube-apiserver and kube-controller-manager do it asynchronously):
 *
 * - the CRD finalizer (`apiextensions-apiserver/pkg/controller/finalizer`, part of the API server):
 *   a deleted CRD's custom resources are deleted, then the CRD;
 * - the namespace controller (`pkg/controller/namespace`), when enabled: a Terminating namespace's
 *   contents are deleted, then its `kubernetes` finalizer is removed;
 * - the garbage collector (`pkg/controller/garbagecollector`), when enabled: the `orphan` finalizer is
 *   removed after dependents' owner references to the object are dropped, `foregroundDeletion` once
 *   dependents are gone (dependents are not deleted here: the collector itself is not modelled).
 *
 * With a controller disabled the server behaves like a cluster without kube-controller-manager:
 * namespaces stay Terminating and objects keep their `orphan`/`foregroundDeletion` finalizers.
 */
import { isObject, metaOf } from '../object-meta.ts';
import { storageKey } from '../resources.ts';
import type { StoredObject } from '../storage.ts';
import type { Obj, RequestScope } from '../handlers/scope.ts';

/** Which controllers run (both on by default). */
export interface ControllerSettings {
  /** The namespace controller: a deleted namespace's contents go, then the namespace. */
  namespace: boolean;
  /** The garbage collector's handling of the `orphan` and `foregroundDeletion` finalizers. */
  garbageCollector: boolean;
}

const crdStore = 'customresourcedefinitions.apiextensions.k8s.io';
const crdFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

function finalizersOf(o: Obj): string[] {
  const meta = metaOf(o);
  return Array.isArray(meta.finalizers) ? meta.finalizers.map(String) : [];
}

/** Writes the object without `gone` finalizers; removes it when none are left. */
function dropFinalizers(scope: RequestScope, store: string, s: StoredObject, gone: ReadonlySet<string>): void {
  const next = structuredClone(s.obj);
  const left = finalizersOf(next).filter((f) => !gone.has(f));
  const meta = metaOf(next);
  if (left.length > 0) meta.finalizers = left;
  else delete meta.finalizers;
  if (left.length > 0) scope.storage.write(store, s.key, 'MODIFIED', next);
  else {
    scope.storage.write(store, s.key, 'DELETED', next);
    if (store === crdStore) stopServing(scope, s.key);
  }
}

function stopServing(scope: RequestScope, crdName: string): void {
  const entries = scope.registry.removeCustomResource(crdName);
  const first = entries[0];
  if (first === undefined) return;
  const store = storageKey(first.group, first.resource);
  for (const x of scope.storage.listAt(store, scope.storage.revision)) scope.storage.write(store, x.key, 'DELETED', x.obj);
  for (const w of scope.watches) if (w.store === store) w.end();
}

function emptyNamespace(scope: RequestScope, namespace: string): void {
  const { registry, storage } = scope;
  const seen = new Set<string>();
  for (const r of registry.all()) {
    if (!r.namespaced) continue;
    const store = storageKey(r.group, r.resource);
    if (seen.has(store)) continue;
    seen.add(store);
    for (const s of storage.listAt(store, storage.revision, { namespace })) storage.write(store, s.key, 'DELETED', s.obj);
  }
}

// The garbage collector orphans dependents: their owner references to the object go.
function orphanDependents(scope: RequestScope, owner: Obj): void {
  const uid = metaOf(owner).uid;
  const { registry, storage } = scope;
  const seen = new Set<string>();
  for (const r of registry.all()) {
    const store = storageKey(r.group, r.resource);
    if (seen.has(store)) continue;
    seen.add(store);
    for (const s of storage.listAt(store, storage.revision)) {
      const refs = metaOf(s.obj).ownerReferences;
      if (!Array.isArray(refs) || !refs.some((x) => isObject(x) && x.uid === uid)) continue;
      const next = structuredClone(s.obj);
      const kept = refs.filter((x) => !(isObject(x) && x.uid === uid));
      const meta = metaOf(next);
      if (kept.length > 0) meta.ownerReferences = kept;
      else delete meta.ownerReferences;
      storage.write(store, s.key, 'MODIFIED', next);
    }
  }
}

/** Lets the finalizers' owners act on an object that is marked for deletion (see the file comment). */
export function reconcileDeletion(scope: RequestScope, store: string, stored: StoredObject): void {
  const current = scope.storage.get(store, stored.key);
  if (current === undefined) return;
  const meta = metaOf(current.obj);
  if (meta.deletionTimestamp === undefined || meta.deletionTimestamp === null) return;
  const finalizers = finalizersOf(current.obj);
  const settings = scope.config.controllers;
  if (store === crdStore && finalizers.includes(crdFinalizer)) {
    dropFinalizers(scope, store, current, new Set([crdFinalizer]));
    return;
  }
  if (store === 'namespaces' && settings.namespace) {
    emptyNamespace(scope, current.key);
    const next = structuredClone(current.obj);
    next.spec = {};
    const written = scope.storage.write(store, current.key, finalizers.length === 0 ? 'DELETED' : 'MODIFIED', next);
    if (finalizers.length > 0) dropFinalizers(scope, store, written, new Set());
    return;
  }
  if (!settings.garbageCollector) return;
  const gc = new Set(['orphan', 'foregroundDeletion']);
  if (finalizers.includes('orphan')) orphanDependents(scope, current.obj);
  if (finalizers.some((f) => gc.has(f))) dropFinalizers(scope, store, current, gc);
}
