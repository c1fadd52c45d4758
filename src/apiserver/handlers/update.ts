/**
 * UPDATE (PUT) and the commit every modifying write shares, as `endpoints/handlers/update.go` and the
 * generic store's Update run them: managed fields (or server-side apply's merge), admission,
 * BeforeUpdate (what the main resource or /status may change, generation, validation), no-op detection,
 * CRD re-validation, and the final removal of an object whose last finalizer went. Strategies that
 * allow create-on-update create on PUT.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit, validateAdmission, type PluginAttributes } from '../admission/plugins.ts';
import { admitCustomResource, decodeCustomResource } from '../registry/apiextensions/custom-resource-schema.ts';
import { toCauses } from '../registry/field-errors.ts';
import { chargeResourceQuota, mutateWrite, validateWrite } from './admit.ts';
import { acceptedCrdStatus, customResourcesOf, isNoop, metaOf, validateUpdateMeta } from '../object-meta.ts';
import { trackUpdate } from '../patch/index.ts';
import { beforeUpdate, storageForm, toStorageVersion } from '../registry/rest.ts';
import { converterContext, convertsWithWebhook, encodedInRequestVersion, objectInVersion, storedInRequestVersion } from '../registry/apiextensions/webhook-converter.ts';
import { strategyFor } from '../registry/strategy.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { badRequest, conflict, invalid, notFound, optimisticLockMessage, untypedError } from '../status.ts';
import { checkBodyNamespace, createObject, createTracker, type WriteRequest } from './create.ts';
import { checkBodyFields } from './field-validation.ts';
import { serveCustomResource } from '../registry/apiextensions/serving-info.ts';
import { admitWebhookConfiguration } from '../registry/admissionregistration/webhook-configuration.ts';
import { shouldDeleteDuringUpdate } from '../registry/delete.ts';
import { removeObject } from '../registry/generic/deletion.ts';
import { guaranteedUpdate } from '../registry/generic/guaranteed-update.ts';
import { ResourceVersionConflictError, type StoredObject } from '../storage.ts';
import { applyOrThrow } from './patch-failure.ts';
import { decodeObject, display, typedObject } from './request-body.ts';
import { encodeInVersion, encodeStored, sendObject, storedInVersion, type Render } from './response.ts';
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
  /** The subresource the managed fields record when the write goes through the main resource (/scale). */
  managedFieldsSubresource?: string;
}

/**
 * 409 when the candidate carries a resourceVersion other than the stored one; an untyped 500 when it is not
 * a number at all (the registry's Update parses it with the storage versioner before comparing: store.go).
 */
export function checkResourceVersion(t: Target, existing: StoredObject, candidate: Obj): void {
  const rv = metaOf(candidate).resourceVersion;
  if (typeof rv === 'string' && rv !== '' && !/^\d+$/.test(rv)) throw untypedError(500, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  if (typeof rv === 'string' && rv !== '' && rv !== String(existing.rv)) throw conflict(t.r, t.name!, optimisticLockMessage);
}

/** Serves PUT of a named object (or its /status): 200 with the stored object, 201 when created on update. */
export async function updateResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const opts = createOptions(q, req, 'UpdateOptions');
  const obj = decodeObject(scope.registry, req, body, t);
  checkBodyFields(t, q, req, res, body, obj);
  const meta = metaOf(obj);
  const name = t.name!;
  if (meta.name !== undefined && meta.name !== '' && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  checkBodyNamespace(t, obj);
  // GuaranteedUpdate: every step from reading the object on runs again when another writer got there first.
  let attempts = 0;
  const [code, out] = await guaranteedUpdate(async (): Promise<[number, string]> => {
    // The steps below change the body they are given: a second attempt decodes it again.
    const candidate = attempts++ === 0 ? obj : decodeObject(scope.registry, req, body, t);
    const stored = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
    const existing = stored === undefined ? undefined : await storedInRequestVersion(t.r, storedInVersion(t, stored), converterContext(scope.config.clock, scope.config.webhookServices));
    if (existing === undefined) {
      if (t.subresource !== undefined || !strategyFor(t.r).allowCreateOnUpdate) throw notFound(t.r, name);
      const created = metaOf(candidate);
      created.name = name;
      delete created.resourceVersion;
      return [201, await createObject(scope, t, candidate, { dryRun: opts.dryRun, manage: createTracker(scope, t, opts.manager), request: { q, res } })];
    }
    checkResourceVersion(t, existing, candidate);
    // The custom resource strategy does not allow unconditional updates (AllowUnconditionalUpdate false).
    const rv = metaOf(candidate).resourceVersion;
    if (t.r.custom && (typeof rv !== 'string' || rv === '')) {
      throw invalid(t.r.group, t.r.resource, name, [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }]);
    }
    return [200, await commitUpdate(scope, t, existing, candidate, { manager: opts.manager, dryRun: opts.dryRun, apply: undefined, request: { q, res } })];
  });
  sendObject(res, code, out, render);
}

/**
 * The shared tail of PUT, PATCH and /scale writes: merges the candidate with the stored object
 * (managed fields, or server-side apply), mutating admission (built-in plugins, then webhooks),
 * BeforeUpdate, the custom resource schema, validating admission, no-op detection, the write. Returns
 * the encoded result. fieldValidation is the caller's, on the body.
 */
export async function commitUpdate(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions): Promise<string> {
  return updateObject(scope, t, existing, candidate, o);
}

// The update's subresource as the managed fields and the strategies see it.
function strategySubresource(t: Target): string | undefined {
  return t.subresource === 'scale' ? undefined : t.subresource;
}

/** The first half of an update: the merge (managed fields, or server-side apply) and the built-in mutating admission plugins. */
function admitUpdate(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions): { managed: Obj; attrs: PluginAttributes } {
  const old = existing.obj;
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  const sub = o.managedFieldsSubresource ?? strategySubresource(t);
  const subresource = sub === undefined ? {} : { subresource: sub };
  if (t.r.schema !== undefined && o.apply === undefined) decodeCustomResource(t.r.schema, candidate);
  const managed =
    o.apply !== undefined
      ? typedObject(t, applyOrThrow(old, candidate, { manager: o.manager, force: o.apply.force, now: scope.now(), apiVersion, ...subresource }))
      : trackUpdate(old, candidate, { manager: o.manager, now: scope.now(), apiVersion, ...subresource });
  const attrs: PluginAttributes = { operation: 'UPDATE', resource: t.r, subresource: t.subresource ?? '', namespace: t.namespace, name: t.name!, object: managed, oldObject: old, storage: scope.storage };
  admit(attrs);
  return { managed, attrs };
}

/**
 * BeforeUpdate, webhook configurations' defaults and validation, the custom resource schema (with the
 * metadata errors), the built-in validating admission plugins.
 */
function validateUpdate(scope: RequestScope, t: Target, existing: StoredObject, managed: Obj, attrs: PluginAttributes): Obj {
  const old = existing.obj;
  // The stored object itself: the strategies read it and copy what they keep, never change it.
  const prepared = beforeUpdate(t.r, managed, old, { subresource: strategySubresource(t), ctx: scope });
  const webhookErrors = admitWebhookConfiguration(t.r.group, t.r.resource, prepared) ?? [];
  if (webhookErrors.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, toCauses(webhookErrors));
  if (t.r.schema !== undefined) {
    // A custom resource's metadata errors are reported with its schema's.
    const objectMeta = validateUpdateMeta(t.r, metaOf(prepared), metaOf(old));
    const admitted = admitCustomResource(t.r.schema, prepared, old, { validate: scope.config.schemaValidation !== false, scale: t.r.scale, status: t.subresource === 'status', objectMeta });
    if (admitted.errors.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, toCauses(admitted.errors));
  }
  validateAdmission({ ...attrs, object: prepared });
  return prepared;
}

/**
 * The storage step of an update: RBAC escalation checks, the stored form, CRD bookkeeping, no-op
 * detection, then the write — or the removal of an object marked for deletion whose last finalizer went.
 */
function storeUpdate(scope: RequestScope, t: Target, existing: StoredObject, prepared: Obj, dryRun: boolean): string {
  const step = prepareStore(scope, t, existing, prepared, dryRun);
  return typeof step === 'string' ? step : finishStore(scope, t, existing, step, scope.storage.write(step.store, existing.key, 'MODIFIED', step.next, existing.rv));
}

/**
 * {@link storeUpdate} for a request that can wait for the write (Storage.writeAsync: on etcd the writes of
 * concurrent requests are in flight together).
 */
async function storeUpdateAsync(scope: RequestScope, t: Target, existing: StoredObject, prepared: Obj, dryRun: boolean): Promise<string> {
  const step = prepareStore(scope, t, existing, prepared, dryRun);
  if (typeof step === 'string') return step;
  // A CRD's served versions are derived from the revision it is written at: its write does not wait.
  if (step.crdEntries !== undefined) return finishStore(scope, t, existing, step, scope.storage.write(step.store, existing.key, 'MODIFIED', step.next, existing.rv));
  return finishStore(scope, t, existing, step, await scope.storage.writeAsync(step.store, existing.key, 'MODIFIED', step.next, existing.rv));
}

// What is written, and the CRD's served versions to update afterwards.
interface StoreStep {
  store: string;
  next: Obj;
  crdEntries: ApiResource[] | undefined;
}

function finishStore(scope: RequestScope, t: Target, existing: StoredObject, step: StoreStep, stored: StoredObject): string {
  if (step.crdEntries !== undefined) serveCustomResource(scope.registry, scope.storage, t.name!, step.crdEntries);
  return encodeStored(t, stored);
}

// Everything before the write; answers the response when nothing is to be written (no-op, dry run, removal).
function prepareStore(scope: RequestScope, t: Target, existing: StoredObject, prepared: Obj, dryRun: boolean): string | StoreStep {
  const old = existing.obj;
  scope.access.checkRbacWrite(scope.user, storeOf(t), t.namespace, prepared, old);
  metaOf(prepared).resourceVersion = metaOf(old).resourceVersion;
  // A built-in object stored in the version it is written in shares its unchanged parts with the stored one.
  let next = toStorageVersion(t.r, storageForm(t.r, prepared, !t.r.custom && t.r.storage === undefined ? old : undefined));
  let crdEntries: ApiResource[] | undefined;
  if (storeOf(t) === crdGroupResource) {
    const { entries, causes } = customResourcesOf(next, scope.storage.revision + 1);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, causes);
    if (t.subresource !== 'status') next = { ...next, status: acceptedCrdStatus(next, scope.now()) };
    crdEntries = entries;
  }
  // A write through another version than the storage version compares with the stored form.
  const storedOld = (t.r.custom && !convertsWithWebhook(t.r)) || t.r.storage === undefined ? old : (scope.storage.get(storeOf(t), existing.key)?.obj ?? old);
  if (isNoop(storedOld, next)) {
    // store.go: a no-op computed from a state that is no longer current runs again on the current one.
    if (scope.storage.get(storeOf(t), existing.key)?.rv !== existing.rv) throw new ResourceVersionConflictError(storeOf(t), existing.key, existing.rv, scope.storage.get(storeOf(t), existing.key)?.rv ?? 0);
    return encodeStored(t, existing);
  }
  if (dryRun) return encodeInVersion(t.r, JSON.stringify(next));
  const store = storeOf(t);
  if (shouldDeleteDuringUpdate(store, next, old)) {
    // The delete event carries the last stored state; the write answers with the object as updated.
    const gone = removeObject(scope, store, existing);
    return encodeStored(t, { ...gone, obj: next, json: JSON.stringify({ ...next, metadata: { ...metaOf(next), resourceVersion: String(gone.rv) } }) });
  }
  return { store, next, crdEntries };
}

async function updateObject(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions): Promise<string> {
  const old = existing.obj;
  const rq = o.request;
  const admitted = admitUpdate(scope, t, existing, candidate, o);
  let managed = admitted.managed;
  if (rq !== undefined) {
    const mutated = await mutateWrite(scope, t, 'UPDATE', rq.q, rq.res, managed, old);
    if (mutated !== undefined) managed = typedObject(t, mutated);
  }
  const prepared = validateUpdate(scope, t, existing, managed, admitted.attrs);
  if (rq !== undefined) await validateWrite(scope, t, 'UPDATE', rq.q, rq.res, prepared, old);
  if (rq !== undefined) chargeResourceQuota(scope, t, 'UPDATE', prepared, old, o.dryRun);
  if (!convertsWithWebhook(t.r)) return storeUpdateAsync(scope, t, existing, prepared, o.dryRun);
  // A conversion webhook converts to the storage version on the way in and back on the way out.
  const ctx = converterContext(scope.config.clock, scope.config.webhookServices);
  const stored = await storeUpdateAsync(scope, t, existing, await objectInVersion(t.r, prepared, t.r.storage!.version, ctx), o.dryRun);
  return encodedInRequestVersion(t.r, stored, ctx);
}

/** The server's own updates (the controllers running inside it): every step of {@link commitUpdate} but the webhooks and fieldValidation. */
export function updateInternal(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, manager: string): string {
  const { managed, attrs } = admitUpdate(scope, t, existing, candidate, { manager, dryRun: false, apply: undefined });
  return storeUpdate(scope, t, existing, validateUpdate(scope, t, existing, managed, attrs), false);
}
