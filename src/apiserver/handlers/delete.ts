/**
 * DELETE of one object and of a collection, as `endpoints/handlers/delete.go` runs them: DeleteOptions
 * from the body and the query (validated as ValidateDeleteOptions does), admission, then the registry's
 * deletion (registry/delete.ts: preconditions, finalizers, garbage-collection finalizers, the namespace's
 * Terminating phase), answered as each registry answers.
 *
 * What kube-controller-manager does afterwards (namespace controller, garbage collector) runs in
 * `controllers/` when the server is started with those controllers on (the default).
 */
import type { ServerResponse } from 'node:http';
import type { StatusError } from '../../apimachinery/errors.ts';
import { admit } from '../admission/plugins.ts';
import { isObject } from '../object-meta.ts';
import { deleteStored, type DeleteResult } from '../registry/delete.ts';
import type { DeleteOptions, PropagationPolicy } from '../registry/generic/garbage-collection-policy.ts';
import { strategyFor } from '../registry/strategy.ts';
import { causesOf, invalidValue, notSupported, path, type FieldError } from '../registry/validation/field.ts';
import { apiVersionString } from '../resources.ts';
import { parseGoJson, GoJsonSyntaxError } from '../schema/go-json.ts';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from '../protobuf.ts';
import { badRequest, invalid, notFound, untypedError } from '../status.ts';
import { objectFilter, parseSelectors } from './list-options.ts';
import { converterContext, convertsWithWebhook, encodedInRequestVersion, objectInVersion } from '../registry/apiextensions/webhook-converter.ts';
import { encodeInVersion, encodeStored, sendObject, withApiVersion, withoutTypeMeta, type Render } from './response.ts';
import { objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { dryRunErrors } from './write-options.ts';
import { mutateWrite, validateWrite } from './admit.ts';

/** The DeleteOptions of a request: what the registry reads, and whether it is a dry run. */
interface RequestDeleteOptions extends DeleteOptions {
  gracePeriodSeconds: number | undefined;
  dryRun: boolean;
}

/** Whether a body starts with the `k8s\0` prefix of kube's protobuf envelope. */
function isProtobufEnvelope(body: Buffer): boolean {
  return body.length >= 4 && body[0] === 0x6b && body[1] === 0x38 && body[2] === 0x73 && body[3] === 0x00;
}

// The body decoder's failures are answered as untyped errors: 500 without a reason.
function decodeFailure(message: string): StatusError {
  return untypedError(500, message);
}

/** DeleteOptions from the body (if any) with the query's parameters on top, validated as ValidateDeleteOptions does. */
function deleteOptions(body: Buffer, q: URLSearchParams): RequestDeleteOptions {
  let opts: Obj = {};
  if (body.length > 0) {
    let v: unknown;
    try {
      // client-go's protobuf clients (kube-controller-manager, kube-scheduler) send DeleteOptions in the
      // protobuf envelope, recognised by its magic prefix as the negotiated decoder would.
      v = isProtobufEnvelope(body) ? decodeKubernetesProtobuf(body) : parseGoJson(body.toString('utf8'));
    } catch (err) {
      if (err instanceof GoJsonSyntaxError) throw decodeFailure(`couldn't get version/kind; json parse error: ${err.message}`);
      if (err instanceof ProtobufDecodeError) throw decodeFailure(err.message);
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
    ...(typeof pp === 'string' ? { propagationPolicy: pp as PropagationPolicy } : {}),
    ...(typeof opts.orphanDependents === 'boolean' ? { orphanDependents: opts.orphanDependents } : {}),
    preconditions: { ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}), ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}) },
    dryRun: dryRun.length > 0,
  };
}

/** The answer's body: the object in the URL's version. */
function encodeResult(t: Target, result: DeleteResult): string {
  if (result.stored !== undefined) return encodeStored(t, result.stored);
  return withApiVersion(JSON.stringify(result.object), apiVersionString(t.r.group, t.r.version));
}

/**
 * Whether a deletion only marks the object (it has finalizers, or the options' orphaning or foreground
 * propagation adds one): the storage then updates instead of deleting.
 */
function marksForDeletion(obj: Obj, opts: RequestDeleteOptions): boolean {
  const finalizers = (obj.metadata as { finalizers?: unknown[] } | undefined)?.finalizers ?? [];
  return finalizers.length > 0 || opts.propagationPolicy === 'Foreground' || opts.propagationPolicy === 'Orphan' || opts.orphanDependents === true;
}

/** Serves DELETE of a named object. */
export async function deleteResource(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const opts = deleteOptions(body, q);
  const name = t.name!;
  admit({ operation: 'DELETE', resource: t.r, subresource: '', namespace: t.namespace, name, object: undefined, oldObject: undefined, storage: scope.storage });
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  if (existing === undefined) throw notFound(t.r, name);
  const ctx = converterContext(scope.config.clock, scope.config.webhookServices);
  const webhook = convertsWithWebhook(t.r);
  let old = existing.obj;
  if (webhook) {
    // A custom resource converted by a webhook goes through it as kube-apiserver v1.24's storage takes it:
    // Store.Delete reads the object in the request's version, the etcd store encodes the watch cache's copy
    // of it back to the storage version (getStateFromObject) before admission, and, when the deletion only
    // marks the object (finalizers), the marked object too (GuaranteedUpdate). A failing webhook fails the
    // delete there as here.
    old = await objectInVersion(t.r, existing.obj, t.r.version, ctx);
    await objectInVersion(t.r, old, t.r.storage!.version, ctx);
    if (marksForDeletion(existing.obj, opts)) await objectInVersion(t.r, old, t.r.storage!.version, ctx);
  }
  // Admission of a DELETE sees the stored object as oldObject, in the request's version (v1.24 runs both
  // kinds of admission inside the storage's delete: rest.AdmissionToValidateObjectDeleteFunc).
  await mutateWrite(scope, t, 'DELETE', q, res, undefined, old);
  await validateWrite(scope, t, 'DELETE', q, res, undefined, old);
  const out = deleteStored(scope, t.r, existing, opts, opts.dryRun);
  // The object stays (finalizers pending) or the registry returns deleted objects: answer with it.
  if (out.pending || strategyFor(t.r).returnsDeletedObject) {
    sendObject(res, 200, webhook ? await encodedInRequestVersion(t.r, out.stored?.json ?? JSON.stringify(out.object), ctx) : encodeResult(t, out), render);
    return;
  }
  // The etcd store decodes the deleted object into the request's version, though the answer is a Status.
  if (webhook && !opts.dryRun) await objectInVersion(t.r, existing.obj, t.r.version, ctx);
  // Otherwise the generic registry answers with a Success Status naming what went (details.kind is the plural).
  const details: Obj = { name, ...(t.r.group === '' ? {} : { group: t.r.group }), kind: t.r.resource, uid: (out.object.metadata as Obj).uid };
  sendObject(res, 200, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }), render);
}

/**
 * Serves DELETE on a collection: lists the selected objects, deletes each, and answers with that list as
 * it was read — every item as last written (no deletionTimestamp from this deletion, finalizers or not),
 * the list at the revision it was read at (Store.DeleteCollection in
 * staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go returns its LIST).
 */
export async function deleteCollection(scope: RequestScope, t: Target, q: URLSearchParams, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const opts = deleteOptions(body, q);
  const filter = objectFilter(t, parseSelectors(t, q));
  const store = storeOf(t);
  const listedAt = scope.storage.revision;
  const listed = scope.storage.listAt(store, listedAt, { namespace: t.namespace }).filter((s) => filter(s.obj));
  const apiVersion = apiVersionString(t.r.group, t.r.version);
  const items: string[] = [];
  const ctx = converterContext(scope.config.clock, scope.config.webhookServices);
  for (const s of listed) {
    const json = convertsWithWebhook(t.r) ? await encodedInRequestVersion(t.r, s.json, ctx) : encodeInVersion(t.r, s.json);
    deleteStored(scope, t.r, s, opts, opts.dryRun);
    // Items of a built-in kind's list carry no kind/apiVersion; custom resources are unstructured and keep theirs.
    items.push(t.r.custom ? json : withoutTypeMeta(json));
  }
  sendObject(res, 200, `{"kind":${JSON.stringify(t.r.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${listedAt}"},"items":[${items.join(',')}]}`, render);
}
