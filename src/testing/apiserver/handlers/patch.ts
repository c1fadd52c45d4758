/**
 * PATCH: JSON patch, merge patch, strategic merge patch (built-in kinds only) and server-side apply,
 * which also creates a missing object. The patched object goes through the same commit as PUT.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { isObject, metaOf } from '../object-meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, checkAppliedConfiguration } from '../patch/index.ts';
import { apiVersionString } from '../resources.ts';
import { badRequest, conflict, invalid, notFound, optimisticLockMessage, unsupportedMediaType } from '../status.ts';
import { commitCreate, createAdmissionView, prepareCreate, requireNamespace } from './create.ts';
import { mutateWrite, validateWrite } from './admit.ts';
import { checkAppliedFields, checkPatchFields } from './field-validation.ts';
import { fieldValidationOf } from '../registry/field-validation.ts';
import { applyOrThrow, patchFailure } from './patch-failure.ts';
import { checkType, display, mediaType, yamlOptions } from './request-body.ts';
import { boolParam } from './request-info.ts';
import { send } from './response.ts';
import { objectKey, storeOf, type RequestScope, type Target } from './scope.ts';
import { admitUpdate, commitUpdate, type CommitUpdateOptions } from './update.ts';
import { dryRunOf, fieldManager } from './write-options.ts';
import { admitNamespaceLifecycle } from '../admission/namespace-lifecycle.ts';

/** The Content-Types of the patch strategies. */
export const patchTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** Serves PATCH of a named object (or its /status). */
export async function patchResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const dryRun = dryRunOf(q);
  fieldValidationOf(q);
  const type = mediaType(req.headers['content-type']);
  const accepted = t.r.custom ? [patchTypes.json, patchTypes.merge, patchTypes.apply] : [patchTypes.json, patchTypes.merge, patchTypes.strategic, patchTypes.apply];
  if (!accepted.includes(type as (typeof accepted)[number])) throw unsupportedMediaType(type, accepted);
  let patch: unknown;
  try {
    patch = type === patchTypes.apply ? parseYaml(body.toString('utf8'), yamlOptions) : JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
  }
  const name = t.name!;
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  // Server-side apply of a missing object is a create.
  const creating = existing === undefined && type === patchTypes.apply && t.subresource === undefined;
  admitNamespaceLifecycle(scope.storage, { operation: creating ? 'CREATE' : 'UPDATE', group: t.r.group, resource: t.r.resource, namespace: t.namespace, name, object: isObject(patch) ? patch : undefined });
  const manager = q.get('fieldManager');
  if (type === patchTypes.apply) {
    if (manager === null || manager === '') throw badRequest('PATCH requests with an apply patch must specify a field manager: fieldManager is required for apply requests');
    if (!isObject(patch)) throw badRequest('error decoding YAML: the apply patch must be an object');
    const applied = patch;
    // Unlike other bodies, an apply patch must say what it is: nothing is taken from the URL.
    const servedKinds = scope.registry.resources(t.r.group, t.r.version).map((r) => r.kind);
    try {
      checkAppliedConfiguration(applied, { apiVersion: apiVersionString(t.r.group, t.r.version), kind: t.r.kind, servedKinds });
    } catch (err) {
      throw patchFailure(err);
    }
    checkAppliedFields(t, applied);
    const meta = metaOf(applied);
    // After the merge upstream: the namespace (EnsureObjectNamespaceMatchesRequestNamespace), then the name (checkName).
    if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
    const force = boolParam(q, 'force');
    if (existing === undefined) {
      if (t.subresource !== undefined) throw notFound(t.r, name);
      // A new object gets its name from the configuration only (the live object it merges into has none).
      if (meta.name === undefined || meta.name === '') throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
      if (t.r.namespaced) meta.namespace = t.namespace;
      requireNamespace(scope.storage, t);
      const merged = applyOrThrow(undefined, applied, { manager, force, now: scope.now(), apiVersion: apiVersionString(t.r.group, t.r.version) });
      let input = merged;
      if (scope.admission.active()) {
        // An apply that creates is admitted as a create, the applied object carrying its managedFields.
        const mutated = await mutateWrite(scope, t, 'CREATE', q, res, createAdmissionView(scope, t, structuredClone(merged), (x) => x), undefined);
        if (mutated !== undefined) input = mutated;
      }
      const { obj } = prepareCreate(scope, t, input);
      await validateWrite(scope, t, 'CREATE', q, res, obj, undefined);
      const out = commitCreate(scope, t, name, obj, dryRun, (x) => x);
      send(res, 201, out);
      return;
    }
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
    const o: CommitUpdateOptions = { manager, dryRun, apply: { force } };
    const candidate = await admitUpdate(scope, t, q, res, existing, applied, o);
    send(res, 200, commitUpdate(scope, t, existing, candidate, o));
    return;
  }
  if (existing === undefined) throw notFound(t.r, name);
  let patched: unknown;
  const current = structuredClone(existing.obj);
  try {
    if (type === patchTypes.json) {
      if (!Array.isArray(patch)) throw badRequest('json patch must be a JSON array of operations');
      patched = applyJsonPatch(current, patch);
    } else if (type === patchTypes.merge) patched = applyMergePatch(current, patch);
    else patched = applyStrategicMergePatch(current, patch, { group: t.r.group, version: t.r.version, kind: t.r.kind });
  } catch (err) {
    throw patchFailure(err);
  }
  if (!isObject(patched)) throw badRequest('the patched object must be a JSON object');
  checkType(scope.registry, t, patched);
  const meta = metaOf(patched);
  if (meta.name !== name) throw invalid(t.r.group, t.r.kind, name, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(meta.name)}: field is immutable` }]);
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
  checkPatchFields(t, q, res, type === patchTypes.json ? undefined : body.toString('utf8'), patched);
  const o: CommitUpdateOptions = { manager: fieldManager(q, req), dryRun, apply: undefined };
  send(res, 200, commitUpdate(scope, t, existing, await admitUpdate(scope, t, q, res, existing, patched, o), o));
}
