/**
 * DELETE of a CustomResourceDefinition (apiextensions-apiserver/pkg/registry/customresourcedefinition/
 * etcd.go REST.Delete) and what the CRD finalizer (apiextensions-apiserver/pkg/controller/finalizer),
 * which runs inside kube-apiserver, does next. The first DELETE marks the CRD: deletionTimestamp, the
 * `customresourcecleanup.apiextensions.k8s.io` finalizer and a Terminating condition, and answers with
 * it. The finalizer then deletes every custom resource, stops serving them and removes its finalizer;
 * without other finalizers the CRD goes. Here the finalizer acts right after the mark, before the answer
 * is sent (upstream it follows shortly after).
 */
import { isObject, metaOf } from '../../object-meta.ts';
import type { ApiResource } from '../../resources.ts';
import { conflict } from '../../status.ts';
import type { StoredObject } from '../../storage.ts';
import type { RegistryContext } from '../context.ts';
import { dropCustomResource, removeObject, storeDelete, stringList, type DeleteResult } from '../generic/deletion.ts';
import type { DeleteOptions } from '../generic/garbage-collection-policy.ts';

type Obj = Record<string, unknown>;

/** apiextensions.CustomResourceCleanupFinalizer. */
export const crdCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

const crdStore = 'customresourcedefinitions.apiextensions.k8s.io';

/** SetCRDCondition: replaces the condition of the same type (its transition time kept when the status is unchanged) or appends it. */
function setCondition(crd: Obj, condition: Obj, now: string): void {
  const status = isObject(crd.status) ? crd.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  const i = conditions.findIndex((c) => c.type === condition.type);
  const old = i < 0 ? undefined : conditions[i]!;
  const next = { ...condition, lastTransitionTime: old !== undefined && old.status === condition.status ? old.lastTransitionTime : now };
  if (i < 0) conditions.push(next);
  else conditions[i] = next;
  crd.status = { ...status, conditions };
}

/** The CRD's REST.Delete; see the file comment. */
export function crdDelete(scope: RegistryContext, r: ApiResource, existing: StoredObject, options: DeleteOptions, dryRun: boolean): DeleteResult {
  const meta = metaOf(existing.obj);
  const name = String(meta.name);
  const pre = options.preconditions ?? {};
  if (pre.uid !== undefined && pre.uid !== meta.uid) throw conflict(r, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`);
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(r, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`);
  }
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return storeDelete(scope, r, existing, { ...options, preconditions: {} }, dryRun);
  const next = structuredClone(existing.obj);
  const m = metaOf(next);
  m.deletionTimestamp = scope.now();
  const finalizers = stringList(m.finalizers);
  if (!finalizers.includes(crdCleanupFinalizer)) m.finalizers = [...finalizers, crdCleanupFinalizer];
  setCondition(next, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, scope.now());
  if (dryRun) return { object: next, stored: undefined, pending: true };
  const marked = scope.storage.write(crdStore, existing.key, 'MODIFIED', next);
  finalizeCrd(scope, marked);
  return { object: marked.obj, stored: marked, pending: true };
}

/** The CRD finalizer: the custom resources go, then its finalizer; the CRD goes when no other finalizer is left. */
function finalizeCrd(scope: RegistryContext, marked: StoredObject): void {
  const left = stringList(metaOf(marked.obj).finalizers).filter((f) => f !== crdCleanupFinalizer);
  if (left.length === 0) {
    removeObject(scope, crdStore, marked);
    return;
  }
  dropCustomResource(scope, marked.key);
  const next = structuredClone(marked.obj);
  metaOf(next).finalizers = left;
  scope.storage.write(crdStore, marked.key, 'MODIFIED', next);
}
