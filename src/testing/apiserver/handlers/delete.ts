/**
 * DELETE of one object and of a collection, as `endpoints/handlers/delete.go` and the generic store's
 * Delete run them: DeleteOptions from the body and the query (validated), preconditions, graceful
 * deletion, finalizers and propagation (`orphan` and `foregroundDeletion` finalizers), what each
 * registry answers with, and the side effects of removal — a namespace's contents, a CRD's resources.
 *
 * What kube-controller-manager does afterwards (namespace controller, garbage collector) runs in
 * `controllers.ts` when the server is started with those controllers on (the default).
 */
import type { ServerResponse } from 'node:http';
import type { StatusError } from '../../../apimachinery/errors.ts';
import { admit } from '../admission/plugins.ts';
import { isObject, metaOf } from '../object-meta.ts';
import { strategyFor } from '../registry/strategy.ts';
import { causesOf, invalidValue, notSupported, path, type FieldError } from '../registry/validation/field.ts';
import { apiVersionString, storageKey } from '../resources.ts';
import { parseGoJson, GoJsonSyntaxError } from '../schema/go-json.ts';
import { badRequest, conflict, invalid, notFound, untypedError } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { reconcileDeletion } from '../controllers/deletion.ts';
import { objectFilter, parseSelectors } from './list-options.ts';
import { encodeStored, sendObject, withoutTypeMeta, type Render } from './response.ts';
import { crdGroupResource, namespacesStore, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { dryRunErrors } from './write-options.ts';
import { mutateWrite, validateWrite } from './admit.ts';

/** The DeleteOptions of a request. */
interface DeleteOptions {
  gracePeriodSeconds: number | undefined;
  propagationPolicy: string | undefined;
  orphanDependents: boolean | undefined;
  preconditions: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

// The body decoder's failures are answered as untyped errors: 500 without a reason.
function decodeFailure(message: string): StatusError {
  return untypedError(500, message);
}

/** DeleteOptions from the body (if any) with the query's parameters on top, validated as ValidateDeleteOptions does. */
function deleteOptions(body: Buffer, q: URLSearchParams): DeleteOptions {
  let opts: Obj = {};
  if (body.length > 0) {
    let v: unknown;
    try {
      v = parseGoJson(body.toString('utf8'));
    } catch (err) {
      if (err instanceof GoJsonSyntaxError) throw decodeFailure(`couldn't get version/kind; json parse error: ${err.message}`);
      throw err;
    }
    if (!isObject(v)) throw decodeFailure("couldn't get version/kind; json parse error: the body is not an object");
    const kind = typeof v.kind === 'string' ? v.kind : '';
    const apiVersion = typeof v.apiVersion === 'string' ? v.apiVersion : '';
    if (kind !== '' && kind !== 'DeleteOptions') {
      const version = apiVersion.includes('/') ? apiVersion : apiVersion;
      throw decodeFailure(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(version)} in scheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"`);
    }
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
  const orphan = q.get('orphanDependents');
  if (orphan !== null) opts.orphanDependents = !(orphan === '0' || /^f(alse)?$/i.test(orphan));
  const dryRun = [...(Array.isArray(opts.dryRun) ? opts.dryRun.map(String) : []), ...q.getAll('dryRun')];
  const errors: FieldError[] = [];
  const pp = opts.propagationPolicy;
  if (opts.orphanDependents !== undefined && opts.orphanDependents !== null && pp !== undefined && pp !== null) {
    errors.push(invalidValue(path('propagationPolicy'), pp, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (pp !== undefined && pp !== null && pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground') errors.push(notSupported(path('propagationPolicy'), pp, ['Foreground', 'Background', 'Orphan', 'nil']));
  errors.push(...dryRunErrors(dryRun));
  if (errors.length > 0) throw invalid('meta.k8s.io', 'DeleteOptions', '', causesOf(errors));
  const pre = isObject(opts.preconditions) ? opts.preconditions : {};
  return {
    gracePeriodSeconds: typeof opts.gracePeriodSeconds === 'number' ? opts.gracePeriodSeconds : undefined,
    propagationPolicy: typeof pp === 'string' ? pp : undefined,
    orphanDependents: typeof opts.orphanDependents === 'boolean' ? opts.orphanDependents : undefined,
    preconditions: { ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}), ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}) },
    dryRun: dryRun.length > 0,
  };
}

/** The finalizer a deletion's propagation adds, if any. */
function propagationFinalizer(t: Target, o: DeleteOptions): string | undefined {
  if (strategyFor(t.r).defaultPropagation === 'Unsupported') return undefined;
  if (o.orphanDependents === true) return 'orphan';
  if (o.orphanDependents === false) return undefined;
  const policy = o.propagationPolicy ?? strategyFor(t.r).defaultPropagation;
  if (policy === 'Orphan') return 'orphan';
  if (policy === 'Foreground') return 'foregroundDeletion';
  return undefined;
}

/** Serves DELETE of a named object. */
export async function deleteResource(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const opts = deleteOptions(body, q);
  const name = t.name!;
  admit({ operation: 'DELETE', resource: t.r, subresource: '', namespace: t.namespace, name, object: undefined, oldObject: undefined, storage: scope.storage });
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  if (existing === undefined) throw notFound(t.r, name);
  const meta = existing.obj.metadata as Obj;
  // Precondition failures name the Kind, as the store's checks do.
  const byKind = { group: t.r.group, resource: t.r.kind };
  if (opts.preconditions.uid !== undefined && opts.preconditions.uid !== meta.uid) {
    throw conflict(byKind, name, `the UID in the precondition (${opts.preconditions.uid}) does not match the UID in record (${String(meta.uid)}). The object might have been deleted and then recreated`);
  }
  if (opts.preconditions.resourceVersion !== undefined && opts.preconditions.resourceVersion !== meta.resourceVersion) {
    throw conflict(byKind, name, `the ResourceVersion in the precondition (${opts.preconditions.resourceVersion}) does not match the ResourceVersion in record (${String(meta.resourceVersion)}). The object might have been modified`);
  }
  await mutateWrite(scope, t, 'DELETE', q, res, undefined, existing.obj);
  await validateWrite(scope, t, 'DELETE', q, res, undefined, existing.obj);
  const out = deleteOne(scope, t, existing, opts);
  if (!opts.dryRun) reconcileDeletion(scope, storeOf(t), out.stored);
  // The object stays (finalizers pending) or the registry returns deleted objects: answer with it.
  if (out.pending || strategyFor(t.r).returnsDeletedObject) {
    sendObject(res, 200, out.json, render);
    return;
  }
  // Otherwise the generic registry answers with a Success Status naming what went (details.kind is the plural).
  const details: Obj = { name, ...(t.r.group === '' ? {} : { group: t.r.group }), kind: t.r.resource, uid: meta.uid };
  sendObject(res, 200, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }), render);
}

/** Serves DELETE on a collection: deletes every selected object and answers with the list of them. */
export async function deleteCollection(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const opts = deleteOptions(body, q);
  const filter = objectFilter(t, parseSelectors(t, q));
  const store = storeOf(t);
  const items: string[] = [];
  for (const s of scope.storage.listAt(store, scope.storage.revision, { namespace: t.namespace })) {
    if (!filter(s.obj)) continue;
    const out = deleteOne(scope, t, s, opts);
    if (!opts.dryRun) reconcileDeletion(scope, storeOf(t), out.stored);
    // Items of a built-in kind's list carry no kind/apiVersion; custom resources are unstructured and keep theirs.
    items.push(t.r.custom ? out.json : withoutTypeMeta(out.json));
  }
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  sendObject(res, 200, `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${scope.storage.revision}"},"items":[${items.join(',')}]}`, render);
}

/**
 * Deletes (or marks for deletion, with finalizers) one object; returns the encoded object, whether it
 * is still there waiting for its finalizers, and the state that was stored.
 */
function deleteOne(scope: RequestScope, t: Target, existing: StoredObject, opts: DeleteOptions): { json: string; pending: boolean; stored: StoredObject } {
  const meta = existing.obj.metadata as Obj;
  const store = storeOf(t);
  const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers.map(String) : [];
  const added = propagationFinalizer(t, opts);
  const terminating = store === namespacesStore || store === crdGroupResource;
  if (finalizers.length > 0 || added !== undefined || terminating) {
    if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return { json: encodeStored(t, existing), pending: true, stored: existing };
    const next = structuredClone(existing.obj);
    const m = metaOf(next);
    m.deletionTimestamp = scope.now();
    m.deletionGracePeriodSeconds = 0;
    // Marking an object that tracks generation for deletion is a change of generation (store.go BeforeDelete).
    if (typeof m.generation === 'number' && m.generation > 0) m.generation += 1;
    const all = [...finalizers];
    if (added !== undefined && !all.includes(added)) all.push(added);
    if (store === crdGroupResource && !all.includes('customresourcecleanup.apiextensions.k8s.io')) all.push('customresourcecleanup.apiextensions.k8s.io');
    if (all.length > 0) m.finalizers = all;
    if (store === namespacesStore) next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
    if (store === crdGroupResource) {
      const status = isObject(next.status) ? next.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
      conditions.push({ type: 'Terminating', status: 'True', lastTransitionTime: scope.now(), reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' });
      next.status = { ...status, conditions };
    }
    if (opts.dryRun) return { json: JSON.stringify(next), pending: true, stored: existing };
    const stored = scope.storage.write(store, existing.key, 'MODIFIED', next);
    return { json: encodeStored(t, stored), pending: true, stored };
  }
  // Graceful deletion of an unscheduled pod ends at once; the answer carries the deletion stamp.
  let finalState = existing.obj;
  if (store === 'pods') {
    finalState = structuredClone(existing.obj);
    const m = metaOf(finalState);
    m.deletionTimestamp = scope.now();
    m.deletionGracePeriodSeconds = 0;
  }
  if (opts.dryRun) return { json: encodeStored(t, existing), pending: false, stored: existing };
  const gone = removeObject(scope, store, existing.key, finalState);
  return { json: encodeStored(t, gone), pending: false, stored: gone };
}

/** Removes an object for good, with the side effects of a CRD going away. */
export function removeObject(scope: RequestScope, store: string, key: string, finalState: Obj): StoredObject {
  const gone = scope.storage.write(store, key, 'DELETED', finalState);
  if (store === crdGroupResource) dropCustomResource(scope, key);
  return gone;
}

// Deleting a CRD deletes its objects, ends its watches and stops serving it.
function dropCustomResource(scope: RequestScope, crdName: string): void {
  const { registry, storage } = scope;
  const entries = registry.removeCustomResource(crdName);
  const first = entries[0];
  if (first === undefined) return;
  const store = storageKey(first.group, first.resource);
  for (const s of storage.listAt(store, storage.revision)) storage.write(store, s.key, 'DELETED', s.obj);
  for (const w of scope.watches) if (w.store === store) w.end();
}
