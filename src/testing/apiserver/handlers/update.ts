/**
 * UPDATE (PUT) and the commit every modifying write shares, as `endpoints/handlers/update.go` and the
 * generic store's Update run them: managed fields (or server-side apply's merge), admission,
 * BeforeUpdate (what the main resource or /status may change, generation, validation), no-op detection,
 * CRD re-validation, and the final removal of an object whose last finalizer went. Strategies that
 * allow create-on-update create on PUT.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit, validateAdmission } from '../admission/admission.ts';
import { acceptedCrdStatus, customResourcesOf, isNoop, metaOf } from '../object-meta.ts';
import { trackUpdate } from '../patch/index.ts';
import { beforeUpdate, storageForm } from '../registry/rest.ts';
import { strategyFor } from '../registry/strategy.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { badRequest, conflict, invalid, notFound, optimisticLockMessage } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { checkBodyNamespace, createObject, createTracker } from './create.ts';
import { removeObject } from './delete.ts';
import { reconcileDeletion } from '../controllers/deletion.ts';
import { applyOrThrow } from './patch-failure.ts';
import { decodeObject, display, typedObject } from './request-body.ts';
import { encodeStored, sendObject, type Render } from './response.ts';
import { crdGroupResource, storeOf, objectKey, type Obj, type RequestScope, type Target } from './scope.ts';
import { createOptions } from './write-options.ts';

/** Options of {@link commitUpdate}. */
export interface CommitUpdateOptions {
  manager: string;
  dryRun: boolean;
  /** Set for server-side apply: the candidate is an applied configuration to merge first. */
  apply: { force: boolean } | undefined;
}

/** 409 when the candidate carries a resourceVersion other than the stored one. */
export function checkResourceVersion(t: Target, existing: StoredObject, candidate: Obj): void {
  const rv = metaOf(candidate).resourceVersion;
  if (typeof rv === 'string' && rv !== '' && rv !== String(existing.rv)) throw conflict(t.r, t.name!, optimisticLockMessage);
}

/** Serves PUT of a named object (or its /status): 200 with the stored object, 201 when created on update. */
export async function updateResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const opts = createOptions(q, req, 'UpdateOptions');
  const obj = decodeObject(scope.registry, req, body, t);
  const meta = metaOf(obj);
  const name = t.name!;
  if (meta.name !== undefined && meta.name !== '' && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  checkBodyNamespace(t, obj);
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  if (existing === undefined) {
    if (t.subresource !== undefined || !strategyFor(t.r).allowCreateOnUpdate) throw notFound(t.r, name);
    meta.name = name;
    delete meta.resourceVersion;
    sendObject(res, 201, createObject(scope, t, obj, { dryRun: opts.dryRun, manage: createTracker(scope, t, opts.manager) }), render);
    return;
  }
  checkResourceVersion(t, existing, obj);
  sendObject(res, 200, commitUpdate(scope, t, existing, obj, { manager: opts.manager, dryRun: opts.dryRun, apply: undefined }), render);
}

/**
 * The shared tail of PUT, PATCH and /scale writes: merges the candidate with the stored object
 * (managed fields, or server-side apply), admission, BeforeUpdate, no-op detection, the write.
 * Returns the encoded result.
 */
export function commitUpdate(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions): string {
  const old = existing.obj;
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  const subresource = t.subresource === 'status' ? { subresource: 'status' } : {};
  const managed =
    o.apply !== undefined
      ? typedObject(t, applyOrThrow(old, candidate, { manager: o.manager, force: o.apply.force, now: scope.now(), apiVersion, ...subresource }))
      : trackUpdate(old, candidate, { manager: o.manager, now: scope.now(), apiVersion, ...subresource });
  const attrs = { operation: 'UPDATE' as const, resource: t.r, subresource: t.subresource ?? '', namespace: t.namespace, name: t.name!, object: managed, oldObject: old, storage: scope.storage };
  admit(attrs);
  const prepared = beforeUpdate(t.r, managed, structuredClone(old), { subresource: t.subresource === 'status' ? 'status' : undefined, ctx: scope });
  validateAdmission({ ...attrs, object: prepared });
  metaOf(prepared).resourceVersion = metaOf(old).resourceVersion;
  let next = storageForm(t.r, prepared);
  let crdEntries: ApiResource[] | undefined;
  if (storeOf(t) === crdGroupResource) {
    const { entries, causes } = customResourcesOf(next);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, causes);
    if (t.subresource !== 'status') next = { ...next, status: acceptedCrdStatus(next, scope.now()) };
    crdEntries = entries;
  }
  if (isNoop(old, next)) return encodeStored(t, existing);
  if (o.dryRun) return JSON.stringify(next);
  const store = storeOf(t);
  const key = existing.key;
  const meta = metaOf(next);
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null && finalizers.length === 0) {
    // The delete event carries the last stored state; the write answers with the object as updated.
    const gone = removeObject(scope, store, key, old);
    return encodeStored(t, { ...gone, obj: next, json: JSON.stringify({ ...next, metadata: { ...metaOf(next), resourceVersion: String(gone.rv) } }) });
  }
  const stored = scope.storage.write(store, key, 'MODIFIED', next);
  if (crdEntries !== undefined) scope.registry.setCustomResource(t.name!, crdEntries);
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) reconcileDeletion(scope, store, stored);
  return encodeStored(t, stored);
}
