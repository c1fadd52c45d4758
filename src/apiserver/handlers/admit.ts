/**
 * The admission steps of the write handlers: build the attributes of a request, run the mutating
 * webhooks on the defaulted object, the ValidatingAdmissionPolicies and the validating webhooks on the
 * final one, and pass their warnings on as Warning headers. No-ops (without a request to any webhook)
 * when no policy and no webhook configuration exists.
 */
import type { ServerResponse } from 'node:http';
import type { AdmissionAttributes, Operation } from '../admission/attributes.ts';
import { metaOf } from '../object-meta.ts';
import { namespacesStore, type Obj, type RequestScope, type Target } from './scope.ts';
import { dryRunOf } from './write-options.ts';
import { addWarnings } from './field-validation.ts';
import { policiesActive, validateAdmissionPolicies } from '../admission/validating-admission-policy.ts';
import { converterContext, convertsWithWebhook, convertWithWebhook, ConversionWebhookError } from '../registry/apiextensions/webhook-converter.ts';
import { apiVersionString } from '../resources.ts';
import { internalError } from '../status.ts';
import { checkResourceQuota, usedAsStatus } from '../admission/resource-quota.ts';
import { updateInternal } from './update.ts';

const optionsKind: Record<Operation, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: '' };

function attributes(scope: RequestScope, t: Target, op: Operation, q: URLSearchParams, object: Obj | undefined, oldObject: Obj | undefined): AdmissionAttributes {
  const ns = t.r.namespaced ? scope.storage.get(namespacesStore, t.namespace)?.obj : undefined;
  const name = typeof metaOf(object ?? oldObject ?? {}).name === 'string' ? (metaOf(object ?? oldObject ?? {}).name as string) : (t.name ?? '');
  // Patches are admitted with UpdateOptions (CreateOptions when an apply creates), as the patch handler converts them.
  const options: Obj = { kind: optionsKind[op], apiVersion: 'meta.k8s.io/v1' };
  const fieldManager = q.get('fieldManager');
  if (fieldManager !== null && op !== 'DELETE') options.fieldManager = fieldManager;
  if (dryRunOf(q)) options.dryRun = ['All'];
  return {
    operation: op,
    group: t.r.group,
    version: t.r.version,
    resource: t.r.resource,
    subresource: t.subresource ?? '',
    // The scale subresource admits autoscaling/v1 Scale objects.
    kind: t.subresource === 'scale' ? 'Scale' : t.r.kind,
    ...(t.subresource === 'scale' ? { kindGroupVersion: { group: 'autoscaling', version: 'v1' } } : {}),
    namespaced: t.r.namespaced,
    namespace: t.namespace,
    name,
    object,
    oldObject,
    user: scope.user,
    dryRun: dryRunOf(q),
    options,
    namespaceLabels: ns === undefined ? undefined : ((metaOf(ns).labels as Record<string, string> | undefined) ?? {}),
    ...(convertsWithWebhook(t.r) ? { convertObject: admissionConverter(scope, t) } : {}),
  };
}

/**
 * The convertor admission webhooks of a custom resource with a conversion webhook use (the request
 * scope's Convertor: the CRD's converter, without the pruning the storage codec adds). A failed
 * conversion fails the request as NewVersionedAttributes' error does: a 500 InternalError.
 */
function admissionConverter(scope: RequestScope, t: Target): (obj: Obj, version: string) => Promise<Obj> {
  const r = t.r;
  const ctx = converterContext(scope.config.clock, scope.config.webhookServices);
  return async (obj, version) => {
    if (!convertsWithWebhook(r)) return obj;
    try {
      const [converted] = await convertWithWebhook(r.conversionWebhook, [obj], apiVersionString(r.group, version), ctx);
      return converted!;
    } catch (err) {
      if (err instanceof ConversionWebhookError) throw internalError(err.message);
      throw err;
    }
  };
}

function warner(res: ServerResponse): (w: string) => void {
  return (w) => addWarnings(res, [`299 - ${JSON.stringify(w)}`]);
}

/** Runs the mutating webhooks; returns the patched object, or undefined when they changed nothing. */
export async function mutateWrite(scope: RequestScope, t: Target, op: Operation, q: URLSearchParams, res: ServerResponse, object: Obj | undefined, oldObject: Obj | undefined): Promise<Obj | undefined> {
  if (!scope.admission.active()) return undefined;
  const out = await scope.admission.mutate(attributes(scope, t, op, q, object, oldObject), warner(res));
  return out === object || JSON.stringify(out) === JSON.stringify(object) ? undefined : out;
}

/**
 * Runs the ValidatingAdmissionPolicies, then the validating webhooks (kube-apiserver's plugin order);
 * throws the first rejection.
 */
export async function validateWrite(scope: RequestScope, t: Target, op: Operation, q: URLSearchParams, res: ServerResponse, object: Obj | undefined, oldObject: Obj | undefined): Promise<void> {
  const policies = policiesActive(scope.storage);
  if (!policies && !scope.admission.active()) return;
  const attrs = attributes(scope, t, op, q, object, oldObject);
  if (policies) validateAdmissionPolicies(scope, attrs, warner(res));
  if (scope.admission.active()) await scope.admission.validate(attrs, warner(res));
}

/**
 * ResourceQuota admission, the last validating plugin (admission/resource-quota.ts): throws its 403, or
 * writes the raised `status.used` of the quotas the object is charged to (as the quota evaluator's
 * UpdateStatus does, before the object is stored; not for dry runs).
 */
export function chargeResourceQuota(scope: RequestScope, t: Target, op: 'CREATE' | 'UPDATE', object: Obj, oldObject: Obj | undefined, dryRun: boolean): void {
  const charged = checkResourceQuota(scope.storage, { operation: op, resource: t.r, subresource: t.subresource ?? '', namespace: t.namespace, name: t.name ?? '', object, oldObject, dryRun }, scope.config.resourceQuota);
  if (charged.length === 0) return;
  const r = scope.registry.lookup('', 'v1', 'resourcequotas');
  if (r === undefined) return;
  for (const { quota, used } of charged) {
    const meta = quota.obj.metadata as Obj;
    const target: Target = { r, namespace: t.namespace, name: String(meta.name), subresource: 'status', watchPath: false };
    const status = (quota.obj.status ?? {}) as Obj;
    updateInternal(scope, target, quota, { ...quota.obj, status: { ...status, used: usedAsStatus(used) } }, 'kube-apiserver');
  }
}
