/**
 * The /scale subresource: an autoscaling/v1 Scale view (replicas and selector) of a workload or of a
 * custom resource whose CRD declares one (its specReplicasPath, statusReplicasPath and
 * labelSelectorPath), read with GET and changed with PUT or PATCH, which write the replicas field.
 *
 * Upstream: `pkg/registry/apps/deployment/storage/storage.go` (ScaleREST) and
 * `apiextensions-apiserver/pkg/registry/customresource/etcd.go` (ScaleREST).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, type Status } from '../../apimachinery/errors.ts';
import { isObject } from '../object-meta.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch/index.ts';
import { apiVersionString, type ScalePaths } from '../resources.ts';
import { badRequest, conflict, internalError, invalid, notFound, optimisticLockMessage } from '../status.ts';
import { ResourceVersionConflictError, type StoredObject } from '../storage.ts';
import { guaranteedUpdate } from '../registry/generic/guaranteed-update.ts';
import { parsePatchJson, patchTypeOf, patchTypes } from './patch.ts';
import { patchFailure } from './patch-failure.ts';
import { parseBody, display, parseKubeYaml } from './request-body.ts';
import { mutateWrite, validateWrite } from './admit.ts';
import { scaleFromCustomResource, ScaleAccessError } from '../registry/apiextensions/scale.ts';
import { converterContext, storedInRequestVersion } from '../registry/apiextensions/webhook-converter.ts';
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

// What the Scale of a custom resource without spec replicas carries into a patch (the smallest int32), as upstream signals it.
const invalidSpecReplicas = -2147483648;

/** A custom resource's Scale from its CRD's paths, and whether it has spec replicas (500 when a path holds the wrong type). */
function customScaleOf(t: Target, o: Obj): { scale: Obj; found: boolean } {
  try {
    return scaleFromCustomResource(o, t.r.scale!);
  } catch (err) {
    if (err instanceof ScaleAccessError) throw internalError(err.message);
    throw err;
  }
}

/** The Scale view of a stored object. */
function scaleOf(t: Target, o: Obj): Obj {
  if (t.r.scale !== undefined) return customScaleOf(t, o).scale;
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

/**
 * The stored object in the request's version: a custom resource converted by a webhook is read through
 * it, as the /scale handlers of kube-apiserver read the object through the version's storage (one
 * conversion, whose failure fails the request), and its Scale is then taken from that version's paths.
 */
async function existingInVersion(scope: RequestScope, t: Target): Promise<StoredObject> {
  return storedInRequestVersion(t.r, existingOf(scope, t), converterContext(scope.config.clock, scope.config.webhookServices));
}

/** Serves GET of /scale. */
export async function getScale(scope: RequestScope, t: Target, render: Render, res: ServerResponse): Promise<void> {
  const o = (await existingInVersion(scope, t)).obj;
  // apiextensions-apiserver answers 500 for a custom resource without spec replicas.
  if (t.r.scale !== undefined && !customScaleOf(t, o).found) throw internalError(`the spec replicas field ${JSON.stringify(t.r.scale.specReplicasPath)} does not exist`);
  sendObject(res, 200, JSON.stringify(scaleOf(t, o)), render);
}

/** PUT or PATCH of /scale: changes the replicas field and answers with the new Scale. */
export async function writeScale(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse, patch: boolean): Promise<void> {
  const type = patch ? patchTypeOf(t, req) : '';
  const opts = createOptions(q, req, patch ? 'PatchOptions' : 'UpdateOptions', patch ? { apply: type === patchTypes.apply } : undefined);
  // GuaranteedUpdate: the Scale is applied again to the fresh object when another writer got there first.
  await guaranteedUpdate(() => writeScaleOnce(scope, t, q, req, body, render, res, patch, type, opts));
}

// One attempt of a /scale write; answers the client when it succeeded.
async function writeScaleOnce(scope: RequestScope, t: Target, q: URLSearchParams, req: IncomingMessage, body: Buffer, render: Render, res: ServerResponse, patch: boolean, type: string, opts: ReturnType<typeof createOptions>): Promise<void> {
  const name = t.name!;
  const existing = await existingInVersion(scope, t);
  const custom = t.r.scale;
  let scale: unknown;
  if (patch && type === patchTypes.apply) {
    try {
      scale = parseKubeYaml(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`error decoding YAML: ${err instanceof Error ? err.message : String(err)}`);
    }
    // A workload's applied Scale is applied to the workload as its spec.replicas, owned by the manager
    // with subresource "scale"; custom resources take it as the Scale to write (no ownership tracked).
    if (custom === undefined) return applyWorkloadScale(scope, t, q, res, render, existing, scale, opts);
  } else if (patch) {
    const p = parsePatchJson(body, type);
    try {
      const current = scaleOf(t, existing.obj);
      if (custom !== undefined && !customScaleOf(t, existing.obj).found) current.spec = { replicas: invalidSpecReplicas };
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
  if (replicas === invalidSpecReplicas && custom !== undefined) throw badRequest(`the spec replicas field ${JSON.stringify(custom.specReplicasPath)} cannot be empty`);
  // A custom resource's replicas are checked by its own validation, at the declared path.
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || (custom === undefined && replicas < 0)) {
    throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${display(replicas)}: must be greater than or equal to 0` }]);
  }
  const candidate = structuredClone(existing.obj);
  const paths = custom ?? workloadPaths;
  setPath(candidate, paths.specReplicasPath, replicas);
  if (scope.admission.active()) {
    // Webhooks see the Scale of the object as it would be written, and the Scale before.
    const oldScale = scaleOf(t, existing.obj);
    const mutated = await mutateWrite(scope, t, 'UPDATE', q, res, scaleOf(t, candidate), oldScale);
    if (mutated !== undefined) setPath(candidate, paths.specReplicasPath, isObject(mutated.spec) && mutated.spec.replicas !== undefined ? mutated.spec.replicas : 0);
    await validateWrite(scope, t, 'UPDATE', q, res, scaleOf(t, candidate), oldScale);
  }
  const main: Target = { ...t, subresource: undefined };
  const out = await commitUpdate(scope, main, existing, candidate, { manager: opts.manager, dryRun: opts.dryRun, apply: undefined, managedFieldsSubresource: 'scale' });
  sendObject(res, 200, JSON.stringify(scaleOf(t, JSON.parse(out) as Obj)), render);
}

/**
 * Server-side apply of an autoscaling/v1 Scale to a workload: the Scale's spec.replicas becomes an
 * applied configuration of the workload (`spec.replicas` only), merged with the field ownership of
 * its managers as any apply is, so a replicas field another manager owns is a 409 conflict unless
 * `force` is set (upstream: the scale subresource's field manager,
 * `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/scalehandler.go`).
 */
async function applyWorkloadScale(scope: RequestScope, t: Target, q: URLSearchParams, res: ServerResponse, render: Render, existing: StoredObject, scale: unknown, opts: { manager: string; dryRun: boolean; force: boolean }): Promise<void> {
  const name = t.name!;
  if (!isObject(scale)) throw badRequest('the body must be an autoscaling/v1 Scale');
  if (scale.kind !== 'Scale' || (scale.apiVersion !== 'autoscaling/v1' && scale.apiVersion !== undefined)) throw badRequest('the body must be an autoscaling/v1 Scale');
  const meta = isObject(scale.metadata) ? scale.metadata : {};
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${display(meta.name)}) does not match the name on the URL (${name})`);
  const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
  if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)) {
    throw invalid('autoscaling', 'Scale', name, [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: `Invalid value: ${display(replicas)}: must be greater than or equal to 0` }]);
  }
  const applied: Obj = { apiVersion: apiVersionString(t.r.group, t.r.version), kind: t.r.kind, metadata: { name, ...(t.namespace === '' ? {} : { namespace: t.namespace }) }, ...(replicas === undefined ? {} : { spec: { replicas } }) };
  const main: Target = { ...t, subresource: undefined };
  let out: string;
  try {
    out = await commitUpdate(scope, main, existing, applied, { manager: opts.manager, dryRun: opts.dryRun, apply: { force: opts.force }, managedFieldsSubresource: 'scale' });
  } catch (err) {
    // The conflicting owners are named as the Scale's managed fields show them: in autoscaling/v1.
    if (err instanceof StatusError && !(err instanceof ResourceVersionConflictError) && err.status.code === 409) throw new StatusError(JSON.parse(JSON.stringify(err.status).replaceAll(` using ${applied.apiVersion as string}`, ' using autoscaling/v1')) as Status);
    throw err;
  }
  sendObject(res, 200, JSON.stringify(scaleOf(t, JSON.parse(out) as Obj)), render);
}
