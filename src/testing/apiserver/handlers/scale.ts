/**
 * The /scale subresource of workloads: an autoscaling/v1 Scale view (replicas and selector) read with
 * GET and changed with PUT or PATCH, which write the workload's spec.replicas.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject } from '../object-meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.ts';
import { badRequest, conflict, invalid, notFound, optimisticLockMessage, unsupportedMediaType } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { patchTypes } from './patch.ts';
import { patchFailure } from './patch-failure.ts';
import { decodeObject, display, mediaType } from './request-body.ts';
import { send } from './response.ts';
import { objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { commitUpdate } from './update.ts';
import { dryRunOf, fieldManager } from './write-options.ts';

/** autoscaling/v1 Scale view of a workload, as the apps registries build it. */
function scaleOf(s: StoredObject): Obj {
  const o = s.obj;
  const meta = o.metadata as Obj;
  const spec = isObject(o.spec) ? o.spec : {};
  const status = isObject(o.status) ? o.status : {};
  const selector = isObject(spec.selector) && isObject(spec.selector.matchLabels) ? spec.selector.matchLabels : {};
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp },
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
    status: {
      replicas: typeof status.replicas === 'number' ? status.replicas : 0,
      selector: Object.entries(selector)
        .map(([k, v]) => `${k}=${display(v)}`)
        .join(','),
    },
  };
}

/** Serves GET of /scale. */
export function getScale(scope: RequestScope, t: Target, res: ServerResponse): void {
  const s = scope.storage.get(storeOf(t), objectKey(t.namespace, t.name!));
  if (s === undefined) throw notFound(t.r, t.name!);
  send(res, 200, JSON.stringify(scaleOf(s)));
}

/** PUT or PATCH of /scale: changes the workload's spec.replicas and answers with the new Scale. */
export async function writeScale(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, res: ServerResponse, patch: boolean): Promise<void> {
  const dryRun = dryRunOf(q);
  const name = t.name!;
  const existing = scope.storage.get(storeOf(t), objectKey(t.namespace, name));
  if (existing === undefined) throw notFound(t.r, name);
  let scale: unknown;
  if (patch) {
    const type = mediaType(req.headers['content-type']);
    const accepted = [patchTypes.json, patchTypes.merge, patchTypes.strategic];
    if (!accepted.includes(type as (typeof accepted)[number])) throw unsupportedMediaType(type, accepted);
    let p: unknown;
    try {
      p = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`error decoding patch: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      const current = scaleOf(existing);
      if (type === patchTypes.json) scale = applyJsonPatch(current, p);
      else if (type === patchTypes.merge) scale = applyMergePatch(current, p);
      else scale = applyStrategicMergePatch(current, p, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    } catch (err) {
      throw patchFailure(err);
    }
  } else scale = decodeObject(req, body, 'Scale');
  if (!isObject(scale) || (scale.kind !== undefined && scale.kind !== 'Scale')) throw badRequest('the body must be an autoscaling/v1 Scale');
  const meta = isObject(scale.metadata) ? scale.metadata : {};
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${display(replicas)}: must be greater than or equal to 0` }]);
  }
  const candidate = structuredClone(existing.obj);
  candidate.spec = { ...(isObject(candidate.spec) ? candidate.spec : {}), replicas };
  const main: Target = { ...t, subresource: undefined };
  const out = commitUpdate(scope, main, existing, candidate, { manager: fieldManager(q, req), dryRun, apply: undefined });
  const stored = JSON.parse(out) as Obj;
  send(res, 200, JSON.stringify(scaleOf({ obj: stored, json: out, rv: Number((stored.metadata as Obj).resourceVersion), key: existing.key })));
}
