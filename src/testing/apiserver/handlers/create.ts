/**
 * CREATE: preparing a new object (type check, namespace, name or generateName, uid, timestamps,
 * generation, create-time defaults) and committing it, including the CRD side effect of starting to
 * serve its custom resources. Also used by create-on-update, server-side apply of a missing object and
 * the server's seeding of initial objects.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyCreateDefaults, applySchemeDefaults, podQOSClass, type ServiceAllocator } from '../defaults.ts';
import { acceptedCrdStatus, customResourcesOf, dropEmptyMetadata, generateName, metaOf, validateCreateMeta } from '../object-meta.ts';
import { dropEmptyMaps } from '../omit-empty-maps.ts';
import { trackUpdate } from '../patch/index.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { alreadyExists, badRequest, invalid, methodNotAllowed, notFound } from '../status.ts';
import type { Storage } from '../storage.ts';
import { checkCustomResourceType, checkType, decodeObject } from './request-body.ts';
import { encodeStored, send } from './response.ts';
import { crdGroupResource, namespacesStore, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { serveCustomResource } from '../registry/apiextensions/serving-info.ts';
import { dryRunOf, fieldManager } from './write-options.ts';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { prepareNamespaceForCreate, validateNamespaceCreate } from '../registry/core/namespace.ts';
import { mutateWrite, validateWrite } from './admit.ts';
import { admitCustomResource } from '../registry/apiextensions/custom-resource-schema.ts';
import { toCauses } from '../registry/field-errors.ts';
import { admitWebhookConfiguration } from '../registry/admissionregistration/webhook-configuration.ts';
import { fieldValidationOf } from '../registry/field-validation.ts';
import { checkBodyFields } from './field-validation.ts';

/** 404 unless the target's namespace exists (namespaced resources only). */
export function requireNamespace(storage: Storage, t: Target): void {
  if (!t.r.namespaced) return;
  if (storage.get(namespacesStore, t.namespace) === undefined) throw notFound({ group: '', resource: 'namespaces' }, t.namespace);
}

/**
 * Create-time strategy: resources with a status subresource start with an empty status (nodes keep
 * theirs, as upstream), plus the few defaults clients commonly rely on.
 */
function createDefaults(r: ApiResource, obj: Obj, allocator: ServiceAllocator): void {
  if (r.hasStatus && !(r.group === '' && r.resource === 'nodes')) delete obj.status;
  if (r.group === '' && r.resource === 'namespaces') {
    prepareNamespaceForCreate(obj);
  } else if (r.group === '' && r.resource === 'pods') {
    obj.status = { phase: 'Pending', qosClass: podQOSClass(obj.spec) };
  } else if (r.group === '' && r.resource === 'persistentvolumeclaims') {
    obj.status = { phase: 'Pending' };
  }
  applySchemeDefaults(r, obj);
  applyCreateDefaults(r, obj, allocator);
}

// The kind, apiVersion and namespace of a new object, checked against the URL and filled in.
function prepareTypeAndNamespace(scope: RequestScope, t: Target, obj: Obj): Obj {
  checkType(scope.registry, t, obj);
  const meta = metaOf(obj);
  if (t.r.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.namespace = t.namespace;
  } else delete meta.namespace;
  return meta;
}

/**
 * The object mutating admission sees on create: decoded and defaulted (custom resources pruned and defaulted
 * by their schema), with managedFields, but before the registry's BeforeCreate — no uid, no creationTimestamp
 * (typed kinds encode it as null), no name generated from generateName, status and generation as sent.
 */
export function createAdmissionView(scope: RequestScope, t: Target, obj: Obj, manage: (o: Obj) => Obj): Obj {
  const meta = prepareTypeAndNamespace(scope, t, obj);
  for (const k of ['uid', 'resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'] as const) delete meta[k];
  applySchemeDefaults(t.r, obj);
  if (t.r.schema !== undefined) admitCustomResource(t.r.schema, obj, undefined, { validate: false });
  const view = manage(obj);
  if (!t.r.custom) metaOf(view).creationTimestamp = null;
  else delete metaOf(view).creationTimestamp;
  return view;
}

/**
 * Prepares a new object for storage: names, namespace, uid, timestamps, defaults, and for custom resources
 * the schema's pruning, defaulting and validation. Throws on invalid input.
 */
export function prepareCreate(scope: RequestScope, t: Target, obj: Obj): { name: string; obj: Obj } {
  const meta = prepareTypeAndNamespace(scope, t, obj);
  if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') meta.name = generateName(meta.generateName);
  const name = typeof meta.name === 'string' ? meta.name : '';
  // Custom resources report metadata errors together with their schema's.
  const metaErrors = [...validateCreateMeta(t.r, meta), ...(admitWebhookConfiguration(t.r.group, t.r.resource, obj) ?? [])];
  if (metaErrors.length > 0 && t.r.schema === undefined) throw invalid(t.r.group, t.r.kind, name, toCauses(metaErrors));
  meta.uid = randomUUID();
  meta.creationTimestamp = scope.now();
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (t.r.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  dropEmptyMetadata(obj);
  if (!t.r.custom) dropEmptyMaps(t.r.group, t.r.version, t.r.kind, obj);
  createDefaults(t.r, obj, scope.allocator);
  if (t.r.group === '' && t.r.resource === 'namespaces') {
    const nsCauses = validateNamespaceCreate(obj);
    if (nsCauses.length > 0) throw invalid(t.r.group, t.r.kind, name, nsCauses);
  }
  if (t.r.schema !== undefined) {
    const admitted = admitCustomResource(t.r.schema, obj, undefined, { validate: scope.config.schemaValidation !== false, scale: t.r.scale, status: t.subresource === 'status', objectMeta: metaErrors });
    if (admitted.errors.length > 0) throw invalid(t.r.group, t.r.kind, name, toCauses(admitted.errors));
  }
  return { name, obj };
}

/**
 * Final checks and the write of a new object. `manage` records managedFields (trackUpdate for
 * ordinary creates; identity when server-side apply already did). Returns the encoded object.
 */
export function commitCreate(scope: RequestScope, t: Target, name: string, obj: Obj, dryRun: boolean, manage: (o: Obj) => Obj): string {
  requireNamespace(scope.storage, t);
  const store = storeOf(t);
  scope.access.checkRbacWrite(scope.user, store, t.namespace, obj, undefined);
  const key = objectKey(t.namespace, name);
  if (scope.storage.get(store, key) !== undefined) throw alreadyExists(t.r, name);
  const final = manage(obj);
  let crdEntries: ApiResource[] | undefined;
  if (store === crdGroupResource) {
    const { entries, causes } = customResourcesOf(final, scope.storage.revision + 1);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
    final.status = acceptedCrdStatus(final, scope.now());
    crdEntries = entries;
  }
  if (dryRun) return JSON.stringify(final);
  const stored = scope.storage.write(store, key, 'ADDED', final);
  if (crdEntries !== undefined) serveCustomResource(scope.registry, scope.storage, name, crdEntries);
  return encodeStored(t, stored);
}

/** Records an Update operation of `manager` in a new object's managedFields. */
export function createTracker(scope: RequestScope, t: Target, manager: string): (o: Obj) => Obj {
  return (o) => trackUpdate(undefined, o, { manager, now: scope.now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
}

/** Serves POST on a collection: 201 with the created object. */
export async function createResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  if (t.subresource !== undefined) throw methodNotAllowed();
  const dryRun = dryRunOf(q);
  fieldValidationOf(q);
  const decoded = decodeObject(req, body, t.r.kind);
  checkCustomResourceType(t, decoded);
  checkBodyFields(t, q, req, res, body, decoded);
  admitNamespaceLifecycle(scope.storage, { operation: 'CREATE', group: t.r.group, resource: t.r.resource, namespace: t.namespace, name: '', object: decoded });
  const manage = createTracker(scope, t, fieldManager(q, req));
  let input = decoded;
  if (scope.admission.active()) {
    // Mutating webhooks see the decoded, defaulted object; what they change goes through creation as sent.
    const mutated = await mutateWrite(scope, t, 'CREATE', q, res, createAdmissionView(scope, t, structuredClone(decoded), manage), undefined);
    if (mutated !== undefined) input = mutated;
  }
  const prepared = prepareCreate(scope, t, input);
  const final = manage(prepared.obj);
  await validateWrite(scope, t, 'CREATE', q, res, final, undefined);
  send(res, 201, commitCreate(scope, t, prepared.name, final, dryRun, (o) => o));
}
