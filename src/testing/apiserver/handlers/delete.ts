/**
 * DELETE of one object and of a collection: DeleteOptions from the body and the query, NamespaceLifecycle
 * admission, then the registry's deletion (registry/delete.ts: finalizers, garbage-collection finalizers,
 * the namespace's Terminating phase), answered as each registry answers.
 */
import type { ServerResponse } from 'node:http';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { isObject } from '../object-meta.ts';
import { apiVersionString } from '../resources.ts';
import { badRequest, invalid, notFound } from '../status.ts';
import { deleteStored, type DeleteResult } from '../registry/delete.ts';
import type { DeleteOptions, PropagationPolicy } from '../registry/generic/garbage-collection-policy.ts';
import { objectFilter, parseSelectors } from './list-options.ts';
import { send, withApiVersion, withoutTypeMeta } from './response.ts';
import { crdGroupResource, objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { dryRunOf } from './write-options.ts';
import { mutateWrite, validateWrite } from './admit.ts';

/**
 * Stores whose DELETE answers with the deleted object (`ReturnDeletedObject: true` in their registries, or
 * a custom Delete that returns the object); every other resource answers with a Success Status.
 */
const returnsDeletedObject: ReadonlySet<string> = new Set(['pods', 'services', 'serviceaccounts', 'persistentvolumeclaims', 'namespaces', crdGroupResource]);

const propagationPolicies: readonly string[] = ['Foreground', 'Background', 'Orphan'];

/**
 * DeleteOptions from the body (if any) with `gracePeriodSeconds` and `propagationPolicy` from the query on
 * top, checked as ValidateDeleteOptions checks them.
 */
function deleteOptions(body: Buffer, q: URLSearchParams): DeleteOptions {
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
  // The parameter codec's strconv error, as a 400.
  if (grace !== null && !/^[-+]?\d+$/.test(grace)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
  const policy = q.get('propagationPolicy');
  if (policy !== null) opts.propagationPolicy = policy;
  const pp = opts.propagationPolicy;
  const orphan = opts.orphanDependents;
  if (orphan !== undefined && orphan !== null && pp !== undefined && pp !== null) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [{ reason: 'FieldValueInvalid', field: 'propagationPolicy', message: `Invalid value: ${JSON.stringify(pp)}: orphanDependents and deletionPropagation cannot be both set` }]);
  }
  if (pp !== undefined && pp !== null && (typeof pp !== 'string' || !propagationPolicies.includes(pp))) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [
      { reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: ${JSON.stringify(pp)}: supported values: "Foreground", "Background", "Orphan", "nil"` },
    ]);
  }
  const out: DeleteOptions = {};
  if (typeof pp === 'string') out.propagationPolicy = pp as PropagationPolicy;
  if (typeof orphan === 'boolean') out.orphanDependents = orphan;
  const pre = isObject(opts.preconditions) ? opts.preconditions : {};
  const preconditions: { uid?: string; resourceVersion?: string } = {};
  if (typeof pre.uid === 'string') preconditions.uid = pre.uid;
  if (typeof pre.resourceVersion === 'string') preconditions.resourceVersion = pre.resourceVersion;
  out.preconditions = preconditions;
  return out;
}

/** The answer's body: the object in the URL's version. */
function encodeResult(t: Target, result: DeleteResult): string {
  return withApiVersion(result.stored?.json ?? JSON.stringify(result.object), apiVersionString(t.r.group, t.r.version));
}

/** Serves DELETE of a named object. */
export async function deleteResource(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, res: ServerResponse): Promise<void> {
  const dryRun = dryRunOf(q);
  const opts = deleteOptions(body, q);
  const name = t.name!;
  admitNamespaceLifecycle(scope.storage, { operation: 'DELETE', group: t.r.group, resource: t.r.resource, namespace: t.namespace, name });
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  if (existing === undefined) throw notFound(t.r, name);
  await mutateWrite(scope, t, 'DELETE', q, res, undefined, existing.obj);
  await validateWrite(scope, t, 'DELETE', q, res, undefined, existing.obj);
  const out = deleteStored(scope, t.r, existing, opts, dryRun);
  // The object stays (finalizers pending) or the registry returns deleted objects: answer with it.
  if (out.pending || returnsDeletedObject.has(storeOf(t))) {
    send(res, 200, encodeResult(t, out));
    return;
  }
  // Otherwise the generic registry answers with a Success Status naming what went (details.kind is the plural).
  const details: Obj = { name, ...(t.r.group === '' ? {} : { group: t.r.group }), kind: t.r.resource, uid: (out.object.metadata as Obj).uid };
  send(res, 200, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }));
}

/**
 * Serves DELETE on a collection: lists the selected objects, deletes each, and answers with that list as
 * it was read — every item as last written (no deletionTimestamp from this deletion, finalizers or not),
 * the list at the revision it was read at (Store.DeleteCollection in
 * staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go returns its LIST).
 */
export async function deleteCollection(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, res: ServerResponse): Promise<void> {
  const dryRun = dryRunOf(q);
  const opts = deleteOptions(body, q);
  const filter = objectFilter(t, parseSelectors(t, q));
  const store = storeOf(t);
  const listedAt = scope.storage.revision;
  const listed = scope.storage.listAt(store, listedAt, { namespace: t.namespace }).filter((s) => filter(s.obj));
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  const items: string[] = [];
  for (const s of listed) {
    deleteStored(scope, t.r, s, opts, dryRun);
    const json = withApiVersion(s.json, apiVersion);
    // As in a LIST, the items of a built-in resource carry no kind and apiVersion.
    items.push(t.r.custom ? json : withoutTypeMeta(json));
  }
  send(res, 200, `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${listedAt}"},"items":[${items.join(',')}]}`);
}
