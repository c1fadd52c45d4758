/**
 * UPDATE (PUT) and the commit every modifying write shares, as `endpoints/handlers/update.go` and the
 * generic store's Update run them: managed fields (or server-side apply's merge), admission,
 * BeforeUpdate (what the main resource or /status may change, generation, validation), no-op detection,
 * CRD re-validation, and the final removal of an object whose last finalizer went. Strategies that
 * allow create-on-update create on PUT.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit, validateAdmission } from '../admission/plugins.ts';
import { admitCustomResource } from '../registry/apiextensions/custom-resource-schema.ts';
import { toCauses } from '../registry/field-errors.ts';
import { mutateWrite, validateWrite } from './admit.ts';
import { acceptedCrdStatus, customResourcesOf, isNoop, metaOf } from '../object-meta.ts';
import { trackUpdate } from '../patch/index.ts';
import { beforeUpdate, storageForm } from '../registry/rest.ts';
import { strategyFor } from '../registry/strategy.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { badRequest, conflict, invalid, notFound, optimisticLockMessage } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { checkBodyNamespace, checkFields, createObject, createTracker, type WriteRequest } from './create.ts';
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
  /** The request, for admission webhooks and fieldValidation (its body only where duplicates are checked). */
  request?: WriteRequest;
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
    sendObject(res, 201, await createObject(scope, t, obj, { dryRun: opts.dryRun, manage: createTracker(scope, t, opts.manager), request: { q, res, body } }), render);
    return;
  }
  checkResourceVersion(t, existing, obj);
  sendObject(res, 200, await commitUpdate(scope, t, existing, obj, { manager: opts.manager, dryRun: opts.dryRun, apply: undefined, request: { q, res, body } }), render);
}

/**
 * The shared tail of PUT, PATCH and /scale writes: merges the candidate with the stored object
 * (managed fields, or server-side apply), mutating admission (built-in plugins, then webhooks),
 * BeforeUpdate, the custom resource schema, validating admission, fieldValidation, no-op detection,
 * the write. Returns the encoded result.
 */
export async function commitUpdate(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions): Promise<string> {
  const unknown: string[] = [];
  const rq = o.request;
  try {
    const out = await updateObject(scope, t, existing, candidate, o, unknown);
    if (rq !== undefined) checkFields(t, rq.q, rq.res, rq.body, unknown);
    return out;
  } catch (err) {
    // Strict fieldValidation fails before anything else; Warn's warnings go with the failure too.
    if (rq !== undefined) checkFields(t, rq.q, rq.res, rq.body, unknown);
    throw err;
  }
}

async function updateObject(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions, unknown: string[]): Promise<string> {
  const old = existing.obj;
  const rq = o.request;
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  const subresource = t.subresource === 'status' ? { subresource: 'status' } : {};
  let managed =
    o.apply !== undefined
      ? typedObject(t, applyOrThrow(old, candidate, { manager: o.manager, force: o.apply.force, now: scope.now(), apiVersion, ...subresource }))
      : trackUpdate(old, candidate, { manager: o.manager, now: scope.now(), apiVersion, ...subresource });
  const attrs = { operation: 'UPDATE' as const, resource: t.r, subresource: t.subresource ?? '', namespace: t.namespace, name: t.name!, object: managed, oldObject: old, storage: scope.storage };
  admit(attrs);
  const patch = o.apply !== undefined || rq?.patch === true;
  if (rq !== undefined) {
    const mutated = await mutateWrite(scope, t, 'UPDATE', rq.q, rq.res, managed, old, patch);
    if (mutated !== undefined) managed = typedObject(t, mutated);
  }
  const prepared = beforeUpdate(t.r, managed, structuredClone(old), { subresource: t.subresource === 'status' ? 'status' : undefined, ctx: scope });
  if (t.r.schema !== undefined) {
    const admitted = admitCustomResource(t.r.schema, prepared, old, { validate: scope.config.schemaValidation !== false });
    unknown.push(...admitted.unknown);
    if (admitted.errors.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, toCauses(admitted.errors));
  }
  validateAdmission({ ...attrs, object: prepared });
  if (rq !== undefined) await validateWrite(scope, t, 'UPDATE', rq.q, rq.res, prepared, old, patch);
  scope.access.checkRbacWrite(scope.user, storeOf(t), t.namespace, prepared, old);
  metaOf(prepared).resourceVersion = metaOf(old).resourceVersion;
  let next = storageForm(t.r, prepared);
  let crdEntries: ApiResource[] | undefined;
  if (storeOf(t) === crdGroupResource) {
    const { entries, causes } = customResourcesOf(next, scope.storage.revision + 1);
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
