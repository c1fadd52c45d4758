/**
 * CREATE, as `apiserver/pkg/endpoints/handlers/create.go` and the generic store run it: the decoded
 * object gets its managed fields, passes admission, is prepared and validated by the registry
 * (`registry/rest.ts`), and is stored unless it exists — with the CRD side effect of starting to serve
 * its custom resources. Also used by create-on-update, server-side apply of a missing object and the
 * server's seeding of initial objects.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit, validateAdmission } from '../admission/admission.ts';
import { acceptedCrdStatus, customResourcesOf, metaOf } from '../object-meta.ts';
import { trackUpdate } from '../patch/index.ts';
import { beforeCreate, storageForm } from '../registry/rest.ts';
import { apiVersionString, type ApiResource } from '../resources.ts';
import { alreadyExists, badRequest, invalid, methodNotAllowed } from '../status.ts';
import { decodeObject } from './request-body.ts';
import { encodeStored, sendObject, type Render } from './response.ts';
import { crdGroupResource, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { createOptions } from './write-options.ts';

/** How the new object's managedFields are recorded. */
export type Manage = (o: Obj) => Obj;

/** Options of {@link createObject}. */
export interface CreateOptions {
  dryRun: boolean;
  /** Records managedFields (an Update entry; identity when server-side apply already did). */
  manage: Manage;
}

/** 400 when the body names another namespace than the URL. */
export function checkBodyNamespace(t: Target, obj: Obj): void {
  const meta = metaOf(obj);
  if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/**
 * Creates a decoded object: managed fields, admission, BeforeCreate (422 when invalid), 409 when it
 * exists, then the write. Returns the stored object's JSON (or what would be stored, for a dry run).
 */
export function createObject(scope: RequestScope, t: Target, decoded: Obj, o: CreateOptions): string {
  checkBodyNamespace(t, decoded);
  const obj = o.manage(decoded);
  const meta = metaOf(obj);
  const attrs = { operation: 'CREATE' as const, resource: t.r, subresource: '', namespace: t.namespace, name: typeof meta.name === 'string' ? meta.name : '', object: obj, oldObject: undefined, storage: scope.storage };
  admit(attrs);
  const name = beforeCreate(t.r, obj, { namespace: t.namespace, now: scope.now(), ctx: scope });
  validateAdmission({ ...attrs, name });
  return commitCreate(scope, t, name, obj, o.dryRun);
}

/** The storage step of a create: 409 when the object exists, CRD bookkeeping, the write. */
export function commitCreate(scope: RequestScope, t: Target, name: string, obj: Obj, dryRun: boolean): string {
  const store = storeOf(t);
  const key = objectKey(t.namespace, name);
  if (scope.storage.get(store, key) !== undefined) throw alreadyExists(t.r, name);
  const final = storageForm(t.r, obj);
  let crdEntries: ApiResource[] | undefined;
  if (store === crdGroupResource) {
    const { entries, causes } = customResourcesOf(final);
    if (causes.length > 0) throw invalid(t.r.group, t.r.kind, name, causes);
    crdEntries = entries;
  }
  if (dryRun) return JSON.stringify(final);
  const stored = scope.storage.write(store, key, 'ADDED', final);
  if (crdEntries !== undefined) {
    // The naming and establishing controllers accept the names and start serving right after the create,
    // which answers with the status as created.
    scope.storage.write(store, key, 'MODIFIED', { ...stored.obj, status: acceptedCrdStatus(stored.obj, scope.now()) });
    scope.registry.setCustomResource(name, crdEntries);
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
  const out = createObject(scope, t, obj, { dryRun: opts.dryRun, manage: createTracker(scope, t, opts.manager) });
  sendObject(res, 201, out, render);
}
