/**
 * PATCH, as `apiserver/pkg/endpoints/handlers/patch.go` serves it: JSON patch, merge patch, strategic
 * merge patch (built-in kinds only) and server-side apply, which also creates a missing object. The
 * patched object is decoded like a body (Go shape, defaults) and goes through the same commit as PUT.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, metaOf } from '../object-meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, checkAppliedConfiguration } from '../patch/index.ts';
import { apiVersionString } from '../resources.ts';
import { GoJsonSyntaxError, parseGoJson } from '../schema/go-json.ts';
import { badRequest, notFound, unsupportedMediaType } from '../status.ts';
import { checkBodyNamespace, createObject } from './create.ts';
import { applyOrThrow, patchFailure } from './patch-failure.ts';
import { checkAppliedFields, checkPatchFields } from './field-validation.ts';
import { checkType, display, mediaType, parseKubeYaml, typedObject } from './request-body.ts';
import { routerUnsupportedMediaType, sendObject, storedInVersion, type Render } from './response.ts';
import { converterContext, storedInRequestVersion } from '../registry/apiextensions/webhook-converter.ts';
import { objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { checkResourceVersion, commitUpdate } from './update.ts';
import { createOptions } from './write-options.ts';
import { guaranteedUpdate } from '../registry/generic/guaranteed-update.ts';

/** The Content-Types of the patch strategies. */
export const patchTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

const allPatchTypes: readonly string[] = Object.values(patchTypes);

/**
 * The patch type of a request: the router refuses media types no PATCH route consumes (415 with its
 * own wording); custom resources refuse strategic merge patch in the handler's words.
 */
export function patchTypeOf(t: Target, req: IncomingMessage): string {
  const type = mediaType(req.headers['content-type']);
  if (!allPatchTypes.includes(type)) throw routerUnsupportedMediaType();
  if (t.r.custom && type === patchTypes.strategic) throw unsupportedMediaType(type, [patchTypes.json, patchTypes.merge, patchTypes.apply]);
  return type;
}

/** Parses a JSON patch document (the json-patch library's and encoding/json's messages). */
export function parsePatchJson(body: Buffer, type: string): unknown {
  let patch: unknown;
  try {
    patch = parseGoJson(body.toString('utf8'));
  } catch (err) {
    if (!(err instanceof GoJsonSyntaxError)) throw err;
    throw badRequest(type === patchTypes.merge ? 'Invalid JSON Patch' : err.message);
  }
  if (type === patchTypes.json && !Array.isArray(patch)) throw badRequest(`json: cannot unmarshal ${isObject(patch) ? 'object' : typeof patch === 'string' ? 'string' : typeof patch === 'number' ? 'number' : 'bool'} into Go value of type jsonpatch.Patch`);
  return patch;
}

/** Serves PATCH of a named object (or its /status). */
export async function patchResource(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse): Promise<void> {
  const type = patchTypeOf(t, req);
  const opts = createOptions(q, req, 'PatchOptions', { apply: type === patchTypes.apply });
  // GuaranteedUpdate (registry/generic/guaranteed-update.ts): when another writer changed the object after it
  // was read, the patch is applied again to the fresh object and the whole update runs again; a
  // resourceVersion in the patch still answers 409.
  const [code, out] = await guaranteedUpdate(() => patchOnce(scope, t, q, req, body, res, type, opts));
  sendObject(res, code, out, render);
}

// One attempt of a PATCH: read the object, apply the patch (parsed again: the steps change what they are
// given), commit. Answers the status code and the encoded object.
async function patchOnce(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse, type: string, opts: ReturnType<typeof createOptions>): Promise<[number, string]> {
  const name = t.name!;
  const stored = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  const existing = stored === undefined ? undefined : await storedInRequestVersion(t.r, storedInVersion(t, stored), converterContext(scope.config.clock, scope.config.webhookServices));
  if (type === patchTypes.apply) {
    let patch: unknown;
    try {
      patch = parseKubeYaml(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${err instanceof Error ? err.message.split('\n')[0]! : String(err)}`);
    }
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
    if (meta.managedFields !== undefined && meta.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
    // After the merge upstream: the namespace (EnsureObjectNamespaceMatchesRequestNamespace), then the name (checkName).
    if (t.r.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
    if (existing === undefined) {
      if (t.subresource !== undefined) throw notFound(t.r, name);
      // A new object gets its name from the configuration only (the live object it merges into has none).
      if (meta.name === undefined || meta.name === '') throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
      if (t.r.namespaced) meta.namespace = t.namespace;
      const apiVersion = apiVersionString(t.r.group, t.r.version);
      const out = await createObject(scope, t, applied, {
        dryRun: opts.dryRun,
        manage: (o) => typedObject(t, applyOrThrow(undefined, o, { manager: opts.manager, force: opts.force, now: scope.now(), apiVersion })),
        request: { q, res },
      });
      return [201, out];
    }
    checkResourceVersion(t, existing, applied);
    return [200, await commitUpdate(scope, t, existing, applied, { manager: opts.manager, dryRun: opts.dryRun, apply: { force: opts.force }, request: { q, res } })];
  }
  const patch = parsePatchJson(body, type);
  if (existing === undefined) throw notFound(t.r, name);
  let patched: unknown;
  const current = structuredClone(existing.obj);
  try {
    if (type === patchTypes.json) patched = applyJsonPatch(current, patch);
    else if (type === patchTypes.merge) patched = applyMergePatch(current, patch);
    else patched = applyStrategicMergePatch(current, patch, { group: t.r.group, version: t.r.version, kind: t.r.kind });
  } catch (err) {
    throw patchFailure(err);
  }
  if (!isObject(patched)) throw badRequest('the patched object must be a JSON object');
  checkType(scope.registry, t, patched);
  const meta = metaOf(patched);
  if (meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  checkBodyNamespace(t, patched);
  checkPatchFields(t, q, res, type === patchTypes.json ? undefined : body.toString('utf8'), patched);
  const decoded = typedObject(t, patched);
  checkResourceVersion(t, existing, decoded);
  return [200, await commitUpdate(scope, t, existing, decoded, { manager: opts.manager, dryRun: opts.dryRun, apply: undefined, request: { q, res } })];
}

export type { Obj };
