/**
 * DELETE of one object and of a collection: DeleteOptions and preconditions, finalizers (the object
 * stays with a deletionTimestamp until they are gone), what each registry answers with, and the side
 * effects of removal — a namespace takes its contents with it, a CRD its custom resources and watches.
 */
import type { ServerResponse } from 'node:http';
import { isObject, metaOf } from '../object-meta.ts';
import { apiVersionString, storageKey } from '../resources.ts';
import { badRequest, conflict, forbidden, invalid, notFound } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { objectFilter, parseSelectors } from './list-options.ts';
import { encodeStored, send, withoutTypeMeta } from './response.ts';
import { crdGroupResource, namespacesStore, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { dryRunOf } from './write-options.ts';
import { mutateWrite, validateWrite } from './admit.ts';

/**
 * Stores whose DELETE answers with the deleted object (`ReturnDeletedObject: true` in their registries, or
 * a custom Delete that returns the object); every other resource answers with a Success Status.
 */
const returnsDeletedObject: ReadonlySet<string> = new Set(['pods', 'services', 'serviceaccounts', 'persistentvolumeclaims', 'namespaces', crdGroupResource]);

// NamespaceLifecycle's immortal namespaces (plugin/pkg/admission/namespace/lifecycle).
const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** DeleteOptions from the body (if any) with `gracePeriodSeconds` and `propagationPolicy` from the query on top. */
function deleteOptions(body: Buffer, q: URLSearchParams): Obj {
  let opts: Obj = {};
  if (body.length > 0) {
    let v: unknown;
    try {
      v = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`error decoding DeleteOptions: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!isObject(v)) throw badRequest('DeleteOptions must be a JSON object');
    opts = v;
  }
  const grace = q.get('gracePeriodSeconds');
  if (grace !== null) {
    // The parameter codec's strconv error, as a 400.
    if (!/^[-+]?\d+$/.test(grace)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
    opts.gracePeriodSeconds = Number(grace);
  }
  const policy = q.get('propagationPolicy');
  if (policy !== null) opts.propagationPolicy = policy;
  const pp = opts.propagationPolicy;
  if (pp !== undefined && pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground') {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: ${JSON.stringify(pp)}: supported values: "Foreground", "Background", "Orphan"` }]);
  }
  return opts;
}

/** Serves DELETE of a named object. */
export async function deleteResource(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, res: ServerResponse): Promise<void> {
  const dryRun = dryRunOf(q);
  const opts = deleteOptions(body, q);
  const name = t.name!;
  // The NamespaceLifecycle admission plugin keeps its immortal namespaces.
  if (storeOf(t) === namespacesStore && immortalNamespaces.has(name)) throw forbidden(t.r, name, 'this namespace may not be deleted');
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  if (existing === undefined) throw notFound(t.r, name);
  const pre = isObject(opts.preconditions) ? opts.preconditions : {};
  const meta = existing.obj.metadata as Obj;
  if (typeof pre.uid === 'string' && pre.uid !== meta.uid) throw conflict(t.r, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(meta.uid)}`);
  if (typeof pre.resourceVersion === 'string' && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(t.r, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(meta.resourceVersion)}`);
  }
  await mutateWrite(scope, t, 'DELETE', q, res, undefined, existing.obj);
  await validateWrite(scope, t, 'DELETE', q, res, undefined, existing.obj);
  const out = deleteOne(scope, t, existing, dryRun);
  // The object stays (finalizers pending) or the registry returns deleted objects: answer with it.
  if (out.pending || returnsDeletedObject.has(storeOf(t))) {
    send(res, 200, out.json);
    return;
  }
  // Otherwise the generic registry answers with a Success Status naming what went (details.kind is the plural).
  const details: Obj = { name, ...(t.r.group === '' ? {} : { group: t.r.group }), kind: t.r.resource, uid: meta.uid };
  send(res, 200, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }));
}

/** Serves DELETE on a collection: deletes every selected object and answers with the list of them. */
export async function deleteCollection(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, res: ServerResponse): Promise<void> {
  const dryRun = dryRunOf(q);
  deleteOptions(body, q);
  const filter = objectFilter(t, parseSelectors(t, q));
  const store = storeOf(t);
  const items: string[] = [];
  for (const s of scope.storage.listAt(store, scope.storage.revision, { namespace: t.namespace })) {
    if (!filter(s.obj)) continue;
    const { json } = deleteOne(scope, t, s, dryRun);
    items.push(t.r.custom ? json : withoutTypeMeta(json));
  }
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  send(res, 200, `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${scope.storage.revision}"},"items":[${items.join(',')}]}`);
}

/**
 * Deletes (or marks for deletion, with finalizers) one object; returns the encoded object and whether
 * it is still there, waiting for its finalizers.
 */
function deleteOne(scope: RequestScope, t: Target, existing: StoredObject, dryRun: boolean): { json: string; pending: boolean } {
  const meta = existing.obj.metadata as Obj;
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
  const store = storeOf(t);
  if (finalizers.length > 0) {
    if (meta.deletionTimestamp !== undefined || dryRun) return { json: encodeStored(t, existing), pending: true };
    const next = structuredClone(existing.obj);
    const m = metaOf(next);
    m.deletionTimestamp = scope.now();
    m.deletionGracePeriodSeconds = 0;
    return { json: encodeStored(t, scope.storage.write(store, existing.key, 'MODIFIED', next)), pending: true };
  }
  if (dryRun) return { json: encodeStored(t, existing), pending: false };
  return { json: encodeStored(t, removeObject(scope, store, existing.key, existing.obj)), pending: false };
}

/** Removes an object for good, with the side effects of namespaces and CRDs going away. */
export function removeObject(scope: RequestScope, store: string, key: string, finalState: Obj): StoredObject {
  if (store === namespacesStore) {
    // As the namespace controller: the contents go first, then the namespace, last seen Terminating with
    // its deletionTimestamp set and the `kubernetes` finalizer gone.
    emptyNamespace(scope, key);
    const last = structuredClone(finalState);
    const meta = metaOf(last);
    meta.deletionTimestamp ??= scope.now();
    meta.deletionGracePeriodSeconds ??= 0;
    last.spec = {};
    last.status = { ...(isObject(last.status) ? last.status : {}), phase: 'Terminating' };
    return scope.storage.write(store, key, 'DELETED', last);
  }
  const gone = scope.storage.write(store, key, 'DELETED', finalState);
  if (store === crdGroupResource) dropCustomResource(scope, key);
  return gone;
}

// The namespace controller's end result: everything in the namespace goes with it.
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

// Deleting a CRD deletes its objects, ends its watches and stops serving it.
function dropCustomResource(scope: RequestScope, crdName: string): void {
  const { registry, storage } = scope;
  const entries = registry.removeCustomResource(crdName);
  const first = entries[0];
  if (first === undefined) return;
  const store = storageKey(first.group, first.resource);
  for (const s of storage.listAt(store, storage.revision)) storage.write(store, s.key, 'DELETED', s.obj);
  for (const w of scope.watches) if (w.resource === first.resource) w.end();
}
