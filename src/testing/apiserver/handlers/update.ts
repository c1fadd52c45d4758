/**
 * UPDATE (PUT) and the commit every modifying write shares: what a write through the main resource or
 * /status may change, managed fields, generation, no-op detection, CRD re-validation, and the final
 * removal of an object whose last finalizer went. Strategies that allow create-on-update create on PUT.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyUpdateDefaults } from '../defaults.ts';
import { acceptedCrdStatus, customResourcesOf, dropEmptyMetadata, isNoop, isObject, metaOf, specChanged, validateUpdateMeta } from '../object-meta.ts';
import { dropEmptyMaps } from '../omit-empty-maps.ts';
import { trackUpdate } from '../patch/index.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { badRequest, conflict, invalid, notFound, optimisticLockMessage } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { commitCreate, createTracker, prepareCreate } from './create.ts';
import { checkBodyFields } from './field-validation.ts';
import { applyOrThrow } from './patch-failure.ts';
import { checkCustomResourceType, checkType, decodeObject, display } from './request-body.ts';
import { encodeStored, send } from './response.ts';
import { crdGroupResource, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { serveCustomResource } from '../registry/apiextensions/serving-info.ts';
import { dryRunOf, fieldManager } from './write-options.ts';
import { mutateWrite, validateWrite } from './admit.ts';
import { admitCustomResource } from '../registry/apiextensions/custom-resource-schema.ts';
import { toCauses } from '../registry/field-errors.ts';
import { admitWebhookConfiguration } from '../registry/admissionregistration/webhook-configuration.ts';
import { fieldValidationOf } from '../registry/field-validation.ts';
import { shouldDeleteDuringUpdate } from '../registry/delete.ts';
import { removeObject } from '../registry/generic/deletion.ts';
import { namespaceStore, prepareNamespaceForUpdate, validateNamespaceUpdate } from '../registry/core/namespace.ts';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';

// Stores whose registry strategies answer AllowCreateOnUpdate() with true: a PUT of a missing object creates it.
const createsOnUpdate: ReadonlySet<string> = new Set([
  'leases.coordination.k8s.io',
  'endpoints',
  'events',
  'events.events.k8s.io',
  'roles.rbac.authorization.k8s.io',
  'rolebindings.rbac.authorization.k8s.io',
  'clusterroles.rbac.authorization.k8s.io',
  'clusterrolebindings.rbac.authorization.k8s.io',
]);

/** Options of {@link commitUpdate}. */
export interface CommitUpdateOptions {
  manager: string;
  dryRun: boolean;
  /** Set for server-side apply: the candidate is an applied configuration to merge first. */
  apply: { force: boolean } | undefined;
}

/** Serves PUT of a named object (or its /status): 200 with the stored object, 201 when created on update. */
export async function updateResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const dryRun = dryRunOf(q);
  fieldValidationOf(q);
  const obj = decodeObject(req, body, t.r.kind);
  checkCustomResourceType(t, obj);
  checkBodyFields(t, q, req, res, body, obj);
  checkType(scope.registry, t, obj);
  const meta = metaOf(obj);
  const name = t.name!;
  if (meta.name !== undefined && meta.name !== '' && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  const creating = existing === undefined && t.subresource === undefined && createsOnUpdate.has(storeOf(t));
  admitNamespaceLifecycle(scope.storage, { operation: creating ? 'CREATE' : 'UPDATE', group: t.r.group, resource: t.r.resource, namespace: t.namespace, name, object: obj });
  if (existing === undefined) {
    // Strategies with AllowCreateOnUpdate (leases, endpoints, events, RBAC) create on PUT.
    if (!creating) throw notFound(t.r, name);
    meta.name = name;
    delete meta.resourceVersion;
    const { obj: prepared } = prepareCreate(scope, t, obj);
    send(res, 201, commitCreate(scope, t, name, prepared, dryRun, createTracker(scope, t, fieldManager(q, req))));
    return;
  }
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
  // The custom resource strategy does not allow unconditional updates (AllowUnconditionalUpdate false).
  if (t.r.custom && (typeof meta.resourceVersion !== 'string' || meta.resourceVersion === '')) {
    throw invalid(t.r.group, t.r.resource, name, [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }]);
  }
  const o: CommitUpdateOptions = { manager: fieldManager(q, req), dryRun, apply: undefined };
  send(res, 200, commitUpdate(scope, t, existing, await admitUpdate(scope, t, q, res, existing, obj, o), o));
}

/**
 * Admission of an update: the webhooks see the object as the update would store it (computed by a dry
 * run of the commit); returns the candidate to commit, the mutated object when webhooks changed it.
 */
export async function admitUpdate(scope: RequestScope, t: Target, q: URLSearchParams, res: ServerResponse, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions): Promise<Obj> {
  if (!scope.admission.active()) return candidate;
  let next = JSON.parse(commitUpdate(scope, t, existing, structuredClone(candidate), { ...o, dryRun: true })) as Obj;
  const mutated = await mutateWrite(scope, t, 'UPDATE', q, res, next, existing.obj);
  if (mutated !== undefined) {
    next = JSON.parse(commitUpdate(scope, t, existing, mutated, { ...o, dryRun: true, apply: undefined })) as Obj;
    o.apply = undefined;
  }
  await validateWrite(scope, t, 'UPDATE', q, res, next, existing.obj);
  return mutated === undefined ? candidate : next;
}

/**
 * The shared tail of PUT and PATCH: merges the candidate with the stored object according to the
 * subresource, tracks managed fields, bumps generation, skips no-ops, and finalises deletions.
 * With `apply`, `candidate` is the applied configuration and is merged by server-side apply first.
 * Returns the encoded result.
 */
export function commitUpdate(scope: RequestScope, t: Target, existing: StoredObject, candidate: Obj, o: CommitUpdateOptions): string {
  const old = existing.obj;
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  const subresource = t.subresource === 'status' || t.subresource === 'finalize' ? { subresource: t.subresource } : {};
  let next: Obj;
  if (o.apply !== undefined) {
    const merged = applyOrThrow(old, candidate, { manager: o.manager, force: o.apply.force, now: scope.now(), apiVersion, ...subresource });
    next = normalise(scope, t, old, merged);
  } else {
    next = trackUpdate(old, normalise(scope, t, old, candidate), { manager: o.manager, now: scope.now(), apiVersion, ...subresource });
  }
  scope.access.checkRbacWrite(scope.user, storeOf(t), t.namespace, next, old);
  // Custom resources report metadata errors together with their schema's.
  const metaErrors = [...validateUpdateMeta(t.r, metaOf(next), metaOf(old)), ...(admitWebhookConfiguration(t.r.group, t.r.resource, next) ?? [])];
  if (metaErrors.length > 0 && t.r.schema === undefined) throw invalid(t.r.group, t.r.kind, t.name!, toCauses(metaErrors));
  if (t.r.schema !== undefined) {
    const admitted = admitCustomResource(t.r.schema, next, old, { validate: scope.config.schemaValidation !== false, scale: t.r.scale, status: t.subresource === 'status', objectMeta: metaErrors });
    if (admitted.errors.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, toCauses(admitted.errors));
  }
  if (storeOf(t) === namespaceStore) {
    const causes = validateNamespaceUpdate(t.subresource, next);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, causes);
  }
  let crdEntries: ApiResource[] | undefined;
  if (storeOf(t) === crdGroupResource) {
    const { entries, causes } = customResourcesOf(next, scope.storage.revision + 1);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, t.name!, causes);
    if (t.subresource !== 'status') next.status = acceptedCrdStatus(next, scope.now());
    crdEntries = entries;
  }
  if (isNoop(old, next)) return encodeStored(t, existing);
  if (o.dryRun) return JSON.stringify(next);
  const store = storeOf(t);
  const key = existing.key;
  if (shouldDeleteDuringUpdate(store, next, old)) {
    // The last state stored goes out with the DELETED event; the writer gets what it wrote back.
    removeObject(scope, store, existing);
    return JSON.stringify(next);
  }
  const stored = scope.storage.write(store, key, 'MODIFIED', next);
  if (crdEntries !== undefined) serveCustomResource(scope.registry, scope.storage, t.name!, crdEntries);
  return encodeStored(t, stored);
}

/**
 * What a write may change: through /status only `.status` (and managedFields); through the main
 * resource everything but the system metadata and, for resources with a status subresource, `.status`.
 * Bumps metadata.generation when the spec changed.
 */
function normalise(scope: RequestScope, t: Target, old: Obj, candidate: Obj): Obj {
  const oldMeta = old.metadata as Obj;
  const candMeta = isObject(candidate.metadata) ? candidate.metadata : {};
  let next: Obj;
  if (t.subresource === 'status') {
    next = { ...structuredClone(old), status: candidate.status };
    if (candidate.status === undefined) delete next.status;
    const meta = metaOf(next);
    if (candMeta.managedFields !== undefined) meta.managedFields = candMeta.managedFields;
  } else {
    next = candidate;
    const meta = metaOf(next);
    for (const k of ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      if (oldMeta[k] === undefined) delete meta[k];
      else meta[k] = oldMeta[k];
    }
    // BeforeUpdate only fills in a missing uid: another one is refused as immutable.
    if (meta.uid === undefined || meta.uid === '') meta.uid = oldMeta.uid;
    meta.name = oldMeta.name;
    if (t.r.namespaced) meta.namespace = oldMeta.namespace;
    else delete meta.namespace;
    delete meta.selfLink;
    if (storeOf(t) === namespaceStore) prepareNamespaceForUpdate(t.subresource, old, next);
    else if (t.r.hasStatus && t.r.resource !== 'customresourcedefinitions') {
      if (old.status === undefined) delete next.status;
      else next.status = structuredClone(old.status);
    }
    applyUpdateDefaults(t.r, old, next, scope.allocator);
    if (t.r.tracksGeneration && specChanged(t.r, old, next)) meta.generation = (typeof oldMeta.generation === 'number' ? oldMeta.generation : 0) + 1;
  }
  metaOf(next).resourceVersion = oldMeta.resourceVersion;
  dropEmptyMetadata(next);
  if (!t.r.custom) dropEmptyMaps(t.r.group, t.r.version, t.r.kind, next);
  return next;
}
