/**
 * When is the PodSet world converged? A pure check over PodSets and Pods, used on the informer
 * caches while waiting and on live LISTs to confirm.
 */
import type { Pod } from '../api/core/v1.ts';
import { labelSelectorAsSelector } from '../apimachinery/labels.ts';
import { objectKey } from '../apimachinery/meta.ts';
import { isBeingDeleted } from '../controller/finalizers.ts';
import { controllerRefOf } from './podset-controller.ts';
import { podSetKind, type PodSet } from './podset.ts';

/** The outcome of {@link checkConvergence}: converged, or the first reason it is not. */
export interface ConvergenceResult {
  converged: boolean;
  /** Why not ('' when converged). */
  reason: string;
  /** PodSets already at their desired state. */
  convergedPodSets: number;
}

function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * Converged when exactly the `expected` PodSets exist (key → replicas), each with `replicas` owned
 * ready pods and a status saying so for its current generation; no pod is owned by a PodSet that
 * is gone; no orphan pod matches a PodSet's selector (it would be adopted).
 */
export function checkConvergence(podSets: readonly PodSet[], pods: readonly Pod[], expected: ReadonlyMap<string, number>): ConvergenceResult {
  const byUid = new Map<string, PodSet>();
  for (const ps of podSets) byUid.set(ps.metadata?.uid ?? '', ps);
  const owned = new Map<string, Pod[]>();
  const reasons: string[] = [];
  for (const pod of pods) {
    if (isBeingDeleted(pod)) continue;
    const ref = controllerRefOf(pod);
    if (ref === undefined || ref.kind !== podSetKind) continue;
    const ps = byUid.get(ref.uid);
    if (ps === undefined) {
      reasons.push(`pod ${objectKey(pod)} is owned by a PodSet that is gone`);
      continue;
    }
    const list = owned.get(ref.uid) ?? [];
    list.push(pod);
    owned.set(ref.uid, list);
  }
  let convergedPodSets = 0;
  const seen = new Set<string>();
  for (const ps of podSets) {
    const key = objectKey(ps);
    seen.add(key);
    const want = expected.get(key);
    if (want === undefined) {
      reasons.push(`PodSet ${key} should be gone`);
      continue;
    }
    const mine = owned.get(ps.metadata?.uid ?? '') ?? [];
    const ready = mine.filter(isReady).length;
    const status = ps.status ?? {};
    if ((ps.spec?.replicas ?? 1) !== want) reasons.push(`PodSet ${key} wants ${ps.spec?.replicas ?? 1}, expected ${want}`);
    else if (mine.length !== want) reasons.push(`PodSet ${key} has ${mine.length}/${want} pods`);
    else if (ready !== want) reasons.push(`PodSet ${key} has ${ready}/${want} ready pods`);
    else if (status.replicas !== want || status.readyReplicas !== want || status.observedGeneration !== ps.metadata?.generation) reasons.push(`PodSet ${key} status is not up to date`);
    else convergedPodSets++;
    const selector = ps.spec?.selector === undefined ? undefined : labelSelectorAsSelector(ps.spec.selector);
    for (const pod of pods) {
      if (pod.metadata?.namespace !== ps.metadata?.namespace || controllerRefOf(pod) !== undefined || isBeingDeleted(pod)) continue;
      if (selector?.matches(pod.metadata?.labels ?? {}) === true) reasons.push(`orphan pod ${objectKey(pod)} matches PodSet ${key}`);
    }
  }
  for (const key of expected.keys()) if (!seen.has(key)) reasons.push(`PodSet ${key} is missing`);
  return { converged: reasons.length === 0, reason: reasons[0] ?? '', convergedPodSets };
}
