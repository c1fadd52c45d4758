/**
 * The /scale subresource: an autoscaling/v1 Scale view (replicas and selector) of a workload or of a custom
 * resource whose CRD declares it (at the declared paths), read with GET and changed with PUT or PATCH
 * (k8s.io/kubernetes/pkg/registry/apps/deployment/storage and
 * k8s.io/apiextensions-apiserver/pkg/registry/customresource/etcd.go, ScaleREST).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject } from '../object-meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.ts';
import { parse as parseYaml } from 'yaml';
import { scaleFromCustomResource, ScaleAccessError, scaleObject, setPath } from '../registry/apiextensions/scale.ts';
import { badRequest, conflict, internalError, invalid, notFound, optimisticLockMessage, unsupportedMediaType } from '../status.ts';
import { patchTypes } from './patch.ts';
import { patchFailure } from './patch-failure.ts';
import { decodeObject, display, mediaType, yamlOptions } from './request-body.ts';
import { send } from './response.ts';
import { objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { commitUpdate } from './update.ts';
import { dryRunOf, fieldManager } from './write-options.ts';
import { mutateWrite, validateWrite } from './admit.ts';

// What the Scale of a custom resource without spec replicas carries into a patch (the smallest int32), as upstream signals it.
const invalidSpecReplicas = -2147483648;

/**
 * The autoscaling/v1 Scale of an object and whether it has spec replicas: a custom resource's from its
 * CRD's declared paths, a workload's from spec.replicas, status.replicas and spec.selector.matchLabels.
 */
function scaleOf(t: Target, o: Obj): { scale: Obj; found: boolean } {
  if (t.r.scale !== undefined) {
    try {
      return scaleFromCustomResource(o, t.r.scale);
    } catch (err) {
      if (err instanceof ScaleAccessError) throw internalError(err.message);
      throw err;
    }
  }
  const spec = isObject(o.spec) ? o.spec : {};
  const status = isObject(o.status) ? o.status : {};
  const selector = isObject(spec.selector) && isObject(spec.selector.matchLabels) ? spec.selector.matchLabels : {};
  const text = Object.entries(selector)
    .map(([k, v]) => `${k}=${display(v)}`)
    .join(',');
  return { scale: scaleObject(o.metadata as Obj, typeof spec.replicas === 'number' ? spec.replicas : 0, typeof status.replicas === 'number' ? status.replicas : 0, text), found: true };
}

/** Serves GET of /scale; 500 for a custom resource without spec replicas, as apiextensions-apiserver answers. */
export function getScale(scope: RequestScope, t: Target, res: ServerResponse): void {
  const s = scope.storage.get(storeOf(t), objectKey(t.namespace, t.name!));
  if (s === undefined) throw notFound(t.r, t.name!);
  const { scale, found } = scaleOf(t, s.obj);
  if (!found) throw internalError(`the spec replicas field ${JSON.stringify(t.r.scale?.specReplicasPath)} does not exist`);
  send(res, 200, JSON.stringify(scale));
}

/**
 * PUT or PATCH of /scale: writes the replicas into the object (a workload's spec.replicas, a custom
 * resource's specReplicasPath, where its own validation applies) and answers with the new Scale.
 */
export async function writeScale(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse, patch: boolean): Promise<void> {
  const dryRun = dryRunOf(q);
  const name = t.name!;
  const custom = t.r.scale;
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  if (existing === undefined) throw notFound(t.r, name);
  const type = mediaType(req.headers['content-type']);
  let scale: unknown;
  if (patch && type !== patchTypes.apply) {
    // Custom resources take JSON, merge and apply patches on /scale; workloads JSON, merge and strategic ones.
    const accepted: readonly string[] = custom === undefined ? [patchTypes.json, patchTypes.merge, patchTypes.strategic] : [patchTypes.json, patchTypes.merge, patchTypes.apply];
    if (!accepted.includes(type)) throw unsupportedMediaType(type, accepted);
    let p: unknown;
    try {
      p = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
    }
    const { scale: current, found } = scaleOf(t, existing.obj);
    if (!found) current.spec = { replicas: invalidSpecReplicas };
    try {
      if (type === patchTypes.json) scale = applyJsonPatch(current, p);
      else if (type === patchTypes.merge) scale = applyMergePatch(current, p);
      else scale = applyStrategicMergePatch(current, p, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    } catch (err) {
      throw patchFailure(err);
    }
  } else if (patch) {
    if (custom === undefined) throw unsupportedMediaType(type, [patchTypes.json, patchTypes.merge, patchTypes.strategic]);
    // An applied Scale is taken as the Scale to write (no field ownership of the replicas is tracked).
    try {
      scale = parseYaml(body.toString('utf8'), yamlOptions);
    } catch (err) {
      throw badRequest(`error decoding YAML: ${err instanceof Error ? err.message : String(err)}`);
    }
  } else scale = decodeObject(req, body, 'Scale');
  if (!isObject(scale) || (scale.kind !== undefined && scale.kind !== 'Scale')) throw badRequest('the body must be an autoscaling/v1 Scale');
  const meta = isObject(scale.metadata) ? scale.metadata : {};
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
  // An absent spec.replicas decodes as Go's zero value.
  const replicas = isObject(scale.spec) && scale.spec.replicas !== undefined ? scale.spec.replicas : 0;
  if (replicas === invalidSpecReplicas && custom !== undefined) throw badRequest(`the spec replicas field ${JSON.stringify(custom.specReplicasPath)} cannot be empty`);
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || (custom === undefined && replicas < 0)) {
    throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${display(replicas)}: must be greater than or equal to 0` }]);
  }
  const candidate = structuredClone(existing.obj);
  const setReplicas = (n: unknown): void => {
    if (custom !== undefined) setPath(candidate, custom.specReplicasPath, n);
    else candidate.spec = { ...(isObject(candidate.spec) ? candidate.spec : {}), replicas: n };
  };
  setReplicas(replicas);
  if (scope.admission.active()) {
    // Webhooks see the Scale of the object as it would be written, and the Scale before.
    const oldScale = scaleOf(t, existing.obj).scale;
    let newScale = scaleOf(t, candidate).scale;
    const mutated = await mutateWrite(scope, t, 'UPDATE', q, res, newScale, oldScale);
    if (mutated !== undefined) {
      newScale = mutated;
      setReplicas(isObject(newScale.spec) && newScale.spec.replicas !== undefined ? newScale.spec.replicas : 0);
    }
    await validateWrite(scope, t, 'UPDATE', q, res, newScale, oldScale);
  }
  const main: Target = { ...t, subresource: undefined };
  const out = commitUpdate(scope, main, existing, candidate, { manager: fieldManager(q, req), dryRun, apply: undefined });
  send(res, 200, JSON.stringify(scaleOf(t, JSON.parse(out) as Obj).scale));
}
