/**
 * pods/eviction (EvictionREST in pkg/registry/core/pod/storage/eviction.go): a policy/v1 (or v1beta1)
 * Eviction asks for a pod's deletion as long as no PodDisruptionBudget forbids it.
 *
 * - The Eviction must name the pod of the URL (400 otherwise); its `deleteOptions` are those of the
 *   deletion, with the request's dryRun carried in (both given and different: a 500).
 * - A pod that is Pending, Succeeded or Failed, or already being deleted, is deleted without looking at
 *   budgets (a pod not terminal nor being deleted with a resourceVersion precondition of its current
 *   version, unless the caller gave one).
 * - Otherwise the budgets in the pod's namespace whose selector matches the pod decide: none, the pod
 *   goes; more than one, a 500 Failure Status naming the problem; one whose status the disruption
 *   controller has not caught up with (status.observedGeneration < metadata.generation), 429
 *   TooManyRequests with a DisruptionBudget cause; disruptionsAllowed negative or too many disrupted
 *   pods, 403; none allowed, 429 with the budget's health in the cause; else the budget's
 *   disruptionsAllowed is decremented and the pod recorded in status.disruptedPods (not on a dry run)
 *   before the pod is deleted. A pod that is not Ready while the budget has its desired healthy pods
 *   is deleted without using up the budget, with a resourceVersion precondition; a conflict on that
 *   deletion is answered as the budget's 429.
 * - The answer is a Success Status (201 as every create).
 */
import { StatusError, newStatus, StatusReason } from '../../../apimachinery/errors.ts';
import { isObject, metaOf } from '../../object-meta.ts';
import type { ApiResource } from '../../resources.ts';
import { badRequest, forbidden, internalError } from '../../status.ts';
import type { RegistryContext } from '../context.ts';
import { deleteObject } from '../delete.ts';
import type { DeleteOptions, PropagationPolicy } from '../generic/garbage-collection-policy.ts';
import { selectorMatches } from '../validation/workloads.ts';

type Obj = Record<string, unknown>;

/** MaxDisruptedPodSize: how many not yet confirmed evictions a budget's status may list (eviction.go). */
export const maxDisruptedPodSize = 2000;

/** policyv1.DisruptionBudgetCause: the cause type of a refusal on account of a budget. */
export const disruptionBudgetCause = 'DisruptionBudget';

// What the PodDisruptionBudget errors name.
const pdbResource = { group: 'policy', resource: 'poddisruptionbudget' };
const pdbStore = 'poddisruptionbudgets.policy';

/** The answer to a successful eviction. */
export const evictionSuccess = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });

/** errors.NewTooManyRequests with the budget's cause. */
function tooManyRequests(retryAfterSeconds: number, cause: string): StatusError {
  const status = newStatus(429, StatusReason.TooManyRequests, "Cannot evict pod as it would violate the pod's disruption budget.", {
    ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
    causes: [{ reason: disruptionBudgetCause, message: cause }],
  });
  return new StatusError(status);
}

function stillProcessing(pdbName: string): StatusError {
  return tooManyRequests(10, `The disruption budget ${pdbName} is still being processed by the server.`);
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function phaseOf(pod: Obj): string {
  return isObject(pod.status) && typeof pod.status.phase === 'string' ? pod.status.phase : '';
}

/** canIgnorePDB: terminal, Pending, or already being deleted. */
function canIgnorePDB(pod: Obj): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || metaOf(pod).deletionTimestamp !== undefined;
}

/** shouldEnforceResourceVersion: neither terminal nor being deleted. */
function shouldEnforceResourceVersion(pod: Obj): boolean {
  const phase = phaseOf(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || metaOf(pod).deletionTimestamp !== undefined);
}

/** podutil.IsPodReady: a Ready condition with status True. */
function isPodReady(pod: Obj): boolean {
  const conditions = isObject(pod.status) && Array.isArray(pod.status.conditions) ? pod.status.conditions : [];
  return conditions.some((c) => isObject(c) && c.type === 'Ready' && c.status === 'True');
}

/** Go's %v of a string slice. */
function goSlice(v: readonly string[]): string {
  return `[${v.join(' ')}]`;
}

/** The deletion the Eviction asks for: its deleteOptions with the request's dryRun (propagateDryRun). */
interface EvictionDeleteOptions extends DeleteOptions {
  gracePeriodSeconds: number | undefined;
  dryRun: string[];
}

function deleteOptionsOf(eviction: Obj, requestDryRun: readonly string[]): EvictionDeleteOptions {
  const given = isObject(eviction.deleteOptions) ? eviction.deleteOptions : undefined;
  const own = given !== undefined && Array.isArray(given.dryRun) ? given.dryRun.map(String) : [];
  let dryRun: string[];
  if (own.length === 0) dryRun = [...requestDryRun];
  else if (requestDryRun.length === 0 || JSON.stringify(own) === JSON.stringify(requestDryRun)) dryRun = own;
  else throw internalError(`Non-matching dry-run options in request and content: ${goSlice(requestDryRun)} and ${goSlice(own)}`);
  const o = given ?? {};
  const pre = isObject(o.preconditions) ? o.preconditions : {};
  return {
    gracePeriodSeconds: typeof o.gracePeriodSeconds === 'number' ? o.gracePeriodSeconds : undefined,
    ...(typeof o.propagationPolicy === 'string' ? { propagationPolicy: o.propagationPolicy as PropagationPolicy } : {}),
    ...(typeof o.orphanDependents === 'boolean' ? { orphanDependents: o.orphanDependents } : {}),
    preconditions: { ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}), ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}) },
    dryRun,
  };
}

/** The budgets in the pod's namespace that select it (getPodDisruptionBudgets; an empty selector selects nothing). */
function budgetsOf(scope: RegistryContext, pod: Obj, namespace: string): Obj[] {
  const labels = isObject(metaOf(pod).labels) ? (metaOf(pod).labels as Obj) : {};
  return scope.storage.listAt(pdbStore, scope.storage.revision, { namespace }).flatMap((s) => {
    const spec = isObject(s.obj.spec) ? s.obj.spec : {};
    const selector = isObject(spec.selector) ? spec.selector : undefined;
    if (selector === undefined) return [];
    const empty = (!isObject(selector.matchLabels) || Object.keys(selector.matchLabels).length === 0) && (!Array.isArray(selector.matchExpressions) || selector.matchExpressions.length === 0);
    if (empty || !selectorMatches(selector, labels)) return [];
    return [s.obj];
  });
}

/** checkAndDecrement: throws when the budget allows no disruption; else records it (unless a dry run). */
function checkAndDecrement(scope: RegistryContext, namespace: string, podName: string, budget: Obj, dryRun: boolean): void {
  const meta = metaOf(budget);
  const name = String(meta.name);
  const status: Obj = isObject(budget.status) ? structuredClone(budget.status) : {};
  if (num(status.observedGeneration) < num(meta.generation)) throw stillProcessing(name);
  const allowed = num(status.disruptionsAllowed);
  if (allowed < 0) throw forbidden(pdbResource, name, 'pdb disruptions allowed is negative');
  const disrupted = isObject(status.disruptedPods) ? status.disruptedPods : {};
  if (Object.keys(disrupted).length > maxDisruptedPodSize) throw forbidden(pdbResource, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (allowed === 0) throw tooManyRequests(0, `The disruption budget ${name} needs ${num(status.desiredHealthy)} healthy pods and has ${num(status.currentHealthy)} currently`);
  status.disruptionsAllowed = allowed - 1;
  if (status.disruptionsAllowed === 0) {
    // pdbhelper.UpdateDisruptionAllowedCondition: DisruptionAllowed turns False (InsufficientPods).
    const conditions = Array.isArray(status.conditions) ? (status.conditions as Obj[]).filter((c) => isObject(c) && c.type !== 'DisruptionAllowed') : [];
    const old = Array.isArray(status.conditions) ? (status.conditions as Obj[]).find((c) => isObject(c) && c.type === 'DisruptionAllowed') : undefined;
    const transitioned = old === undefined || old.status !== 'False';
    conditions.push({ type: 'DisruptionAllowed', status: 'False', observedGeneration: num(status.observedGeneration), lastTransitionTime: transitioned ? scope.now() : old.lastTransitionTime, reason: 'InsufficientPods', message: '' });
    status.conditions = conditions;
  }
  if (dryRun) return;
  status.disruptedPods = { ...disrupted, [podName]: scope.now() };
  scope.storage.write(pdbStore, `${namespace}/${name}`, 'MODIFIED', { ...budget, status });
}

/**
 * Evicts the pod `name` of `namespace` as the Eviction `eviction` (already parsed) asks; `requestDryRun`
 * is the request's dryRun parameter. Resolves when the pod was deleted; throws the upstream errors.
 */
export function evictPod(scope: RegistryContext, pods: ApiResource, namespace: string, name: string, eviction: Obj, requestDryRun: readonly string[]): void {
  if (metaOf(eviction).name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const options = deleteOptionsOf(eviction, requestDryRun);
  const dryRun = options.dryRun.length > 0;
  const callerPinnedVersion = options.preconditions?.resourceVersion !== undefined;
  const current = scope.storage.get('pods', `${namespace}/${name}`);
  if (current === undefined) {
    deleteObject(scope, pods, namespace, name, options, dryRun);
    return;
  }
  const pod = current.obj;
  const podVersion = String(metaOf(pod).resourceVersion);
  if (canIgnorePDB(pod)) {
    const pinned = shouldEnforceResourceVersion(pod) && !callerPinnedVersion ? { ...options, preconditions: { ...options.preconditions, resourceVersion: podVersion } } : options;
    deleteObject(scope, pods, namespace, name, pinned, dryRun);
    return;
  }
  const budgets = budgetsOf(scope, pod, namespace);
  if (budgets.length > 1) {
    const { reason: _none, ...status } = newStatus(500, '', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    throw new StatusError(status);
  }
  let pinToPod = false;
  const budget = budgets[0];
  if (budget !== undefined) {
    const status = isObject(budget.status) ? budget.status : {};
    // An unready pod does not count towards healthy: while the budget has its desired pods, it may go.
    if (!isPodReady(pod) && num(status.currentHealthy) >= num(status.desiredHealthy) && num(status.desiredHealthy) > 0) pinToPod = true;
    else checkAndDecrement(scope, namespace, name, budget, dryRun);
  }
  const deletion = pinToPod ? { ...options, preconditions: { ...options.preconditions, resourceVersion: podVersion } } : options;
  try {
    deleteObject(scope, pods, namespace, name, deletion, dryRun);
  } catch (err) {
    if (err instanceof StatusError && err.status.code === 409 && pinToPod && !callerPinnedVersion) throw stillProcessing(String(metaOf(budget!).name));
    throw err;
  }
}

