/**
 * CREATE, as `apiserver/pkg/endpoints/handlers/create.go` and the generic store run it: the decoded
 * object gets its managed fields, passes admission, is prepared and validated by the registry
 * (`registry/rest.ts`), and is stored unless it exists — with the CRD side effect of starting to serve
 * its custom resources. Also used by create-on-update, server-side apply of a missing object and the
 * server's seeding of initial objects.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isConflict } from '../../apimachinery/errors.ts';
import { admit, validateAdmission, type PluginAttributes } from '../admission/plugins.ts';
import { acceptedCrdStatus, customResourcesOf, metaOf, validateCreateMeta } from '../object-meta.ts';
import { admitWebhookConfiguration } from '../registry/admissionregistration/webhook-configuration.ts';
import { trackUpdate } from '../patch/index.ts';
import { beforeCreate, storageForm, toStorageVersion } from '../registry/rest.ts';
import { converterContext, convertsWithWebhook, encodedInRequestVersion, objectInVersion } from '../registry/apiextensions/webhook-converter.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { alreadyExists, badRequest, invalid, methodNotAllowed } from '../status.ts';
import { admitCustomResource, decodeCustomResource } from '../registry/apiextensions/custom-resource-schema.ts';
import { serveCustomResource } from '../registry/apiextensions/serving-info.ts';
import { toCauses } from '../registry/field-errors.ts';
import { checkBodyFields } from './field-validation.ts';
import { decodeObject, typedObject } from './request-body.ts';
import { encodeInVersion, encodeStored, sendObject, type Render } from './response.ts';
import { crdGroupResource, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { createOptions } from './write-options.ts';
import { chargeResourceQuota, mutateWrite, validateWrite } from './admit.ts';

/** How the new object's managedFields are recorded. */
export type Manage = (o: Obj) => Obj;

/** The HTTP request behind a write, for admission webhooks: its query (admission options) and response (warnings). */
export interface WriteRequest {
  q: URLSearchParams;
  res: ServerResponse;
}

/** Options of {@link createObject}. */
export interface CreateOptions {
  dryRun: boolean;
  /** Records managedFields (an Update entry; identity when server-side apply already did). */
  manage: Manage;
  /** The request, for admission webhooks and fieldValidation; absent for the server's own writes. */
  request?: WriteRequest;
}

/**
 * EnsureObjectNamespaceMatchesRequestNamespace: 400 when the body names another namespace than the URL;
 * otherwise the request's namespace is set (cleared for cluster-scoped resources).
 */
export function checkBodyNamespace(t: Target, obj: Obj): void {
  const meta = metaOf(obj);
  if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (t.r.namespaced) meta.namespace = t.namespace;
  else delete meta.namespace;
}

/** The first, mutating half of a create: body namespace, managed fields, the built-in mutating admission plugins. */
function admitCreate(scope: RequestScope, t: Target, decoded: Obj, manage: Manage): Obj {
  checkBodyNamespace(t, decoded);
  if (t.r.schema !== undefined) decodeCustomResource(t.r.schema, decoded);
  const obj = manage(decoded);
  admit(pluginAttributes(scope, t, obj));
  return obj;
}

function pluginAttributes(scope: RequestScope, t: Target, obj: Obj): PluginAttributes {
  const name = metaOf(obj).name;
  return { operation: 'CREATE', resource: t.r, subresource: '', namespace: t.namespace, name: typeof name === 'string' ? name : '', object: obj, oldObject: undefined, storage: scope.storage };
}

/**
 * The second half: BeforeCreate (422 when invalid), webhook configurations' defaults and validation, the
 * custom resource schema (pruning, defaulting and validation, reported with the metadata errors), the
 * built-in validating admission plugins. Returns the object's name.
 */
function validateCreate(scope: RequestScope, t: Target, obj: Obj): string {
  const name = beforeCreate(t.r, obj, { namespace: t.namespace, now: scope.now(), ctx: scope });
  const webhookErrors = admitWebhookConfiguration(t.r.group, t.r.resource, obj) ?? [];
  if (webhookErrors.length > 0) throw invalid(t.r.group, t.r.kind, name, toCauses(webhookErrors));
  if (t.r.schema !== undefined) {
    const objectMeta = validateCreateMeta(t.r, metaOf(obj));
    const admitted = admitCustomResource(t.r.schema, obj, undefined, { validate: scope.config.schemaValidation !== false, scale: t.r.scale, objectMeta });
    if (admitted.errors.length > 0) throw invalid(t.r.group, t.r.kind, name, toCauses(admitted.errors));
  }
  validateAdmission(pluginAttributes(scope, t, obj));
  return name;
}

/**
 * Creates a decoded object: managed fields, mutating admission (built-in plugins, then webhooks, whose
 * output is decoded and defaulted again), BeforeCreate (422 when invalid), the custom resource schema,
 * validating admission (plugins, then webhooks), then the write (409 when the object exists). Returns the
 * stored object's JSON (or what would be stored, for a dry run). fieldValidation is the caller's, on the body.
 */
export async function createObject(scope: RequestScope, t: Target, decoded: Obj, o: CreateOptions): Promise<string> {
  const rq = o.request;
  let obj = admitCreate(scope, t, decoded, o.manage);
  if (rq !== undefined) {
    const mutated = await mutateWrite(scope, t, 'CREATE', rq.q, rq.res, obj, undefined);
    if (mutated !== undefined) obj = typedObject(t, mutated);
  }
  const name = validateCreate(scope, t, obj);
  if (rq !== undefined) await validateWrite(scope, t, 'CREATE', rq.q, rq.res, obj, undefined);
  if (rq !== undefined) chargeResourceQuota(scope, t, 'CREATE', obj, undefined, o.dryRun);
  if (!convertsWithWebhook(t.r)) return commitCreateAsync(scope, t, name, obj, o.dryRun);
  // A conversion webhook converts to the storage version on the way in and back on the way out.
  const ctx = converterContext(scope.config.clock, scope.config.webhookServices);
  const stored = await commitCreateAsync(scope, t, name, await objectInVersion(t.r, storageForm(t.r, obj), t.r.storage!.version, ctx), o.dryRun);
  return encodedInRequestVersion(t.r, stored, ctx);
}

/** The server's own creates (seeding): every step of {@link createObject} but the webhooks and fieldValidation. */
export function createInternal(scope: RequestScope, t: Target, decoded: Obj, manage: Manage): string {
  const obj = admitCreate(scope, t, decoded, manage);
  return commitCreate(scope, t, validateCreate(scope, t, obj), obj, false);
}

// The checks of the storage step of a create; answers the stored form to write.
function prepareCreate(scope: RequestScope, t: Target, name: string, obj: Obj): { store: string; key: string; final: Obj } {
  const store = storeOf(t);
  scope.access.checkRbacWrite(scope.user, store, t.namespace, obj, undefined);
  const key = objectKey(t.namespace, name);
  if (scope.storage.get(store, key) !== undefined) throw alreadyExists(t.r, name);
  return { store, key, final: toStorageVersion(t.r, storageForm(t.r, obj)) };
}

/**
 * {@link commitCreate} for a request that can wait for the write (Storage.writeAsync: on etcd the writes
 * of concurrent requests are in flight together). CRDs and dry runs take the synchronous path.
 */
async function commitCreateAsync(scope: RequestScope, t: Target, name: string, obj: Obj, dryRun: boolean): Promise<string> {
  if (dryRun || storeOf(t) === crdGroupResource) return commitCreate(scope, t, name, obj, dryRun);
  const { store, key, final } = prepareCreate(scope, t, name, obj);
  return encodeStored(t, await scope.storage.writeAsync(store, key, 'ADDED', final));
}

/** The storage step of a create: 409 when the object exists, CRD bookkeeping, the write. */
export function commitCreate(scope: RequestScope, t: Target, name: string, obj: Obj, dryRun: boolean): string {
  const { store, key, final } = prepareCreate(scope, t, name, obj);
  let crdEntries: ApiResource[] | undefined;
  if (store === crdGroupResource) {
    const { entries, causes } = customResourcesOf(final, scope.storage.revision + 1);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
    crdEntries = entries;
  }
  if (dryRun) return encodeInVersion(t.r, JSON.stringify(final));
  const stored = scope.storage.write(store, key, 'ADDED', final);
  if (crdEntries !== undefined) {
    // The naming and establishing controllers accept the names and start serving right after the create,
    // which answers with the status as created.
    try {
      scope.storage.write(store, key, 'MODIFIED', { ...stored.obj, status: acceptedCrdStatus(stored.obj, scope.now()) });
    } catch (err) {
      // On a shared etcd another server's CRD controllers may have written the status first.
      if (!isConflict(err)) throw err;
    }
    serveCustomResource(scope.registry, scope.storage, name, crdEntries);
  }
  return encodeStored(t, stored);
}

/** Records an Update operation of `manager` in a new object's managedFields. */
export function createTracker(scope: RequestScope, t: Target, manager: string): Manage {
  return (o) => trackUpdate(undefined, o, { manager, now: scope.now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
}

/** Serves POST on a collection: 201 with the created object. */
export async function createResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  if (t.subresource !== undefined || t.name !== undefined) throw methodNotAllowed();
  const opts = createOptions(q, req, 'CreateOptions');
  const obj = decodeObject(scope.registry, req, body, t);
  checkBodyFields(t, q, req, res, body, obj);
  const out = await createObject(scope, t, obj, { dryRun: opts.dryRun, manage: createTracker(scope, t, opts.manager), request: { q, res } });
  sendObject(res, 201, out, render);
}
