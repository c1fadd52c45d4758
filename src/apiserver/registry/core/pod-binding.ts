/**
 * pods/binding (BindingREST in pkg/registry/core/pod/storage/storage.go): what a scheduler posts to put a
 * pod on a node. The Binding must name the pod of the URL and a Node target; the pod gets spec.nodeName,
 * the Binding's annotations and a PodScheduled=True condition, unless it is being deleted or already
 * assigned (409). The answer is a Success Status; managedFields are not touched (upstream writes storage
 * directly).
 */
import { StatusError, newStatus } from '../../../apimachinery/errors.ts';
import { isObject, metaOf } from '../../object-meta.ts';
import { badRequest, conflict, notFound } from '../../status.ts';
import type { RegistryContext } from '../context.ts';

type Obj = Record<string, unknown>;

/** The pods store and resource, as errors name them. */
const pods = { group: '', resource: 'pods' };
const podsBinding = { group: '', resource: 'pods/binding' };

/**
 * podutil.UpdatePodCondition: sets a condition, keeping lastTransitionTime when the status does not
 * change; returns whether anything changed.
 */
export function updatePodCondition(status: Obj, condition: Obj, now: string): boolean {
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
  const i = conditions.findIndex((c) => isObject(c) && c.type === condition.type);
  if (i < 0) {
    status.conditions = [...conditions, { lastProbeTime: null, lastTransitionTime: now, ...condition }];
    return true;
  }
  const old = conditions[i]!;
  const next: Obj = { ...old, ...condition, lastTransitionTime: old.status === condition.status ? old.lastTransitionTime : now };
  const changed = JSON.stringify(next) !== JSON.stringify(old);
  if (changed) status.conditions = conditions.map((c, j) => (j === i ? next : c));
  return changed;
}

/** Binds the pod `name` in `namespace` as `binding` asks (the Binding object, already type-checked). */
export function bindPod(scope: RegistryContext, namespace: string, name: string, binding: Obj, dryRun: boolean): void {
  const meta = isObject(binding.metadata) ? binding.metadata : {};
  if (meta.name !== name) throw badRequest('name in URL does not match name in Binding object');
  const target = isObject(binding.target) ? binding.target : {};
  const problems: string[] = [];
  // ValidatePodBinding's errors come back as an aggregate, which the handler answers as a 500.
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') problems.push(`target.kind: Unsupported value: ${JSON.stringify(target.kind)}: supported values: "Node", "<empty>"`);
  if (typeof target.name !== 'string' || target.name === '') problems.push('target.name: Required value');
  if (problems.length > 0) {
    const { reason: _none, ...status } = newStatus(500, '', problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
    throw new StatusError(status);
  }
  const key = `${namespace}/${name}`;
  const existing = scope.storage.get('pods', key);
  if (existing === undefined) throw notFound(pods, name);
  // Stored objects are never changed in place: a copy of the parts this changes (metadata, status; spec is
  // replaced) is enough, the rest is shared with the stored version.
  const pod: Obj = { ...existing.obj, metadata: isObject(existing.obj.metadata) ? { ...existing.obj.metadata } : {} };
  const podMeta = metaOf(pod);
  const storageKeyText = `/registry/pods/${namespace}/${name}`;
  const precondition = (what: string, want: string, have: unknown): never => {
    throw conflict(pods, name, `StorageError: invalid object, Code: 4, Key: ${storageKeyText}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ${what} in precondition: ${want}, ${what} in object meta: ${String(have)}`);
  };
  if (typeof meta.uid === 'string' && meta.uid !== '' && meta.uid !== podMeta.uid) precondition('UID', meta.uid, podMeta.uid);
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== podMeta.resourceVersion) precondition('ResourceVersion', meta.resourceVersion, podMeta.resourceVersion);
  if (podMeta.deletionTimestamp !== undefined) throw conflict(podsBinding, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  const spec = isObject(pod.spec) ? pod.spec : {};
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') throw conflict(podsBinding, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
  pod.spec = { ...spec, nodeName: target.name };
  if (isObject(meta.annotations)) podMeta.annotations = { ...(isObject(podMeta.annotations) ? podMeta.annotations : {}), ...meta.annotations };
  const status: Obj = isObject(pod.status) ? { ...pod.status } : {};
  updatePodCondition(status, { type: 'PodScheduled', status: 'True' }, scope.now());
  pod.status = status;
  if (!dryRun) scope.storage.write('pods', key, 'MODIFIED', pod);
}

/** The answer to a successful binding. */
export const bindingSuccess = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
