/**
 * The /scale subresource: an autoscaling/v1 Scale view (replicas and selector) of a workload or of a
 * custom resource whose CRD declares one (its specReplicasPath, statusReplicasPath and
 * labelSelectorPath), read with GET and changed with PUT or PATCH, which write the replicas field.
 *
 * Upstream: `pkg/registry/apps/deployment/storage/storage.go` (ScaleREST) and
 * `apiextensions-apiserver/pkg/registry/customresource/etcd.go` (ScaleREST).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject } from '../object-meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.ts';
import type { ScalePaths } from '../resources.ts';
import { badRequest, conflict, invalid, notFound, optimisticLockMessage } from '../status.ts';
import type { StoredObject } from '../storage.ts';
import { parsePatchJson, patchTypeOf, patchTypes } from './patch.ts';
import { patchFailure } from './patch-failure.ts';
import { parseBody, display } from './request-body.ts';
import { sendObject, type Render } from './response.ts';
import { objectKey, storeOf, type Obj, type RequestScope, type Target } from './scope.ts';
import { commitUpdate } from './update.ts';
import { createOptions } from './write-options.ts';

// Workloads scale their spec.replicas and report status.replicas and their selector.
const workloadPaths: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };

function pathParts(p: string): string[] {
  return p.replace(/^\./, '').split('.');
}

function getPath(o: unknown, p: string): unknown {
  let cur = o;
  for (const part of pathParts(p)) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function setPath(o: Obj, p: string, v: unknown): void {
  const parts = pathParts(p);
  let cur = o;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(cur[part])) cur[part] = {};
    cur = cur[part] as Obj;
  }
  cur[parts[parts.length - 1]!] = v;
}

function matchLabelsSelector(spec: Obj): string {
  const selector = isObject(spec.selector) && isObject(spec.selector.matchLabels) ? spec.selector.matchLabels : {};
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${display(v)}`)
    .join(',');
}

/** The Scale view of a stored object. */
function scaleOf(t: Target, o: Obj): Obj {
  const meta = o.metadata as Obj;
  const paths = t.r.scale ?? workloadPaths;
  const replicas = getPath(o, paths.specReplicasPath);
  const statusReplicas = getPath(o, paths.statusReplicasPath);
  const selector = t.r.custom ? (paths.labelSelectorPath === undefined ? undefined : getPath(o, paths.labelSelectorPath)) : matchLabelsSelector(isObject(o.spec) ? o.spec : {});
  const status: Obj = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  if (typeof selector === 'string' && selector !== '') status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp },
    spec: typeof replicas === 'number' && replicas !== 0 ? { replicas } : {},
    status,
  };
}

function existingOf(scope: RequestScope, t: Target): StoredObject {
  const s = scope.storage.get(storeOf(t), objectKey(t.namespace, t.name!));
  if (s === undefined) throw notFound({ group: t.r.group, resource: `${t.r.resource}/scale` }, t.name!);
  return s;
}

/** Serves GET of /scale. */
export function getScale(scope: RequestScope, t: Target, render: Render, res: ServerResponse): void {
  sendObject(res, 200, JSON.stringify(scaleOf(t, existingOf(scope, t).obj)), render);
}

/** PUT or PATCH of /scale: changes the replicas field and answers with the new Scale. */
export async function writeScale(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse, patch: boolean): Promise<void> {
  const type = patch ? patchTypeOf(t, req) : '';
  const opts = createOptions(q, req, patch ? 'PatchOptions' : 'UpdateOptions', patch ? { apply: type === patchTypes.apply } : undefined);
  const name = t.name!;
  const existing = existingOf(scope, t);
  let scale: unknown;
  if (patch) {
    if (type === patchTypes.apply) throw badRequest('apply patches are not supported for the scale subresource');
    const p = parsePatchJson(body, type);
    try {
      const current = scaleOf(t, existing.obj);
      if (type === patchTypes.json) scale = applyJsonPatch(current, p);
      else if (type === patchTypes.merge) scale = applyMergePatch(current, p);
      else scale = applyStrategicMergePatch(current, p, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    } catch (err) {
      throw patchFailure(err);
    }
  } else scale = parseBody(req, body, 'Scale');
  if (!isObject(scale) || (scale.kind !== undefined && scale.kind !== 'Scale')) throw badRequest('the body must be an autoscaling/v1 Scale');
  const meta = isObject(scale.metadata) ? scale.metadata : {};
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== String(existing.rv)) throw conflict(t.r, name, optimisticLockMessage);
  const replicas = isObject(scale.spec) ? (scale.spec.replicas ?? 0) : 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${display(replicas)}: must be greater than or equal to 0` }]);
  }
  const candidate = structuredClone(existing.obj);
  setPath(candidate, (t.r.scale ?? workloadPaths).specReplicasPath, replicas);
  const main: Target = { ...t, subresource: undefined };
  const out = await commitUpdate(scope, main, existing, candidate, { manager: opts.manager, dryRun: opts.dryRun, apply: undefined, request: { q, res, body: undefined, patch } });
  sendObject(res, 200, JSON.stringify(scaleOf(t, JSON.parse(out) as Obj)), render);
}
