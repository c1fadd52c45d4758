/**
 * A StatefulSet's PersistentVolumeClaim retention policy (kubernetes/pkg/controller/statefulset
 * stateful_set_utils.go: isClaimOwnerUpToDate, updateClaimOwnerRefForSetAndPod, hasStaleOwnerRef,
 * hasUnexpectedController, podInOrdinalRange). The controller deletes no claim itself: it sets owner
 * references so that the garbage collector does —
 *
 *   whenScaled Retain, whenDeleted Retain: no reference (claims stay; the default);
 *   whenScaled Retain, whenDeleted Delete: a controller reference to the StatefulSet;
 *   whenScaled Delete, whenDeleted Retain: a controller reference to the pod once it is scaled down;
 *   whenScaled Delete, whenDeleted Delete: to the pod once scaled down, to the set before.
 *
 * Claims with a reference to a pod or set of the same name but another uid (stale), or controlled by
 * something else, are left as they are, as upstream leaves them.
 */
import type { StatefulSet } from '../../api/apps/v1.ts';
import type { OwnerReference } from '../../api/meta/v1.ts';
import type { PersistentVolumeClaim, Pod } from '../../api/core/v1.ts';
import { newControllerRef } from '../controller-utils.ts';

const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet' } as const;
const podRef = { apiVersion: 'v1', kind: 'Pod' } as const;
const retain = 'Retain';
const remove = 'Delete';

interface Named {
  metadata?: { name?: string; uid?: string };
}

/** The set's policy, each field defaulting to Retain (getPersistentVolumeClaimRetentionPolicy). */
export function claimRetentionPolicy(set: StatefulSet): { whenDeleted: string; whenScaled: string } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted ?? retain, whenScaled: p?.whenScaled ?? retain };
}

/** A reference of the right group and kind and name to `obj`, whatever its uid (matchesRef). */
function matchesRef(ref: OwnerReference, obj: Named, kind: { apiVersion: string; kind: string }): boolean {
  return ref.apiVersion.split('/')[0] === kind.apiVersion.split('/')[0] && ref.kind === kind.kind && ref.name === (obj.metadata?.name ?? '');
}

function hasOwnerRef(claim: PersistentVolumeClaim, owner: Named): boolean {
  const uid = owner.metadata?.uid;
  return uid !== undefined && uid !== '' && (claim.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
}

/** A reference matching `obj` by kind and name with another uid: left by an earlier namesake (hasStaleOwnerRef). */
export function hasStaleOwnerRef(claim: PersistentVolumeClaim, obj: Named, kind: 'StatefulSet' | 'Pod'): boolean {
  const ref = (claim.metadata?.ownerReferences ?? []).find((r) => matchesRef(r, obj, kind === 'Pod' ? podRef : setRef));
  return ref !== undefined && ref.uid !== (obj.metadata?.uid ?? '');
}

/** Another controller owns the claim, or ours with a mismatching uid (hasUnexpectedController). */
function hasUnexpectedController(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  const policy = claimRetentionPolicy(set);
  if (policy.whenScaled === retain && policy.whenDeleted === retain) return false;
  for (const ref of claim.metadata?.ownerReferences ?? []) {
    if (matchesRef(ref, set, setRef)) {
      if (ref.uid !== set.metadata?.uid) return true;
      continue;
    }
    if (matchesRef(ref, pod, podRef)) {
      if (ref.uid !== pod.metadata?.uid) return true;
      continue;
    }
    if (ref.controller === true) return true;
  }
  return false;
}

/** The set or pod references the claim without being its controller (hasNonControllerOwner). */
function hasNonControllerOwner(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  return (claim.metadata?.ownerReferences ?? []).some((r) => (r.uid === set.metadata?.uid || r.uid === pod.metadata?.uid) && r.controller !== true);
}

/**
 * Whether the claim's owner references already follow the policy (isClaimOwnerUpToDate); `inRange`: the
 * pod's ordinal is below the set's replicas, i.e. it is not scaled down (podInOrdinalRange).
 */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod, inRange: boolean): boolean {
  if (hasStaleOwnerRef(claim, set, 'StatefulSet') || hasStaleOwnerRef(claim, pod, 'Pod')) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const policy = claimRetentionPolicy(set);
  const onSet = hasOwnerRef(claim, set);
  const onPod = hasOwnerRef(claim, pod);
  if (policy.whenScaled === remove && policy.whenDeleted === remove) return inRange === onSet && inRange !== onPod;
  if (policy.whenScaled === remove) return !onSet && !inRange === onPod;
  if (policy.whenDeleted === remove) return onSet && !onPod;
  return !onSet && !onPod;
}

/** The claim's owner references as the policy wants them (updateClaimOwnerRefForSetAndPod). */
export function claimOwnerRefsForSetAndPod(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod, inRange: boolean): OwnerReference[] {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const refs = (claim.metadata?.ownerReferences ?? []).filter((r) => !matchesRef(r, set, setRef) && !matchesRef(r, pod, podRef));
  if (unexpected) return refs;
  const policy = claimRetentionPolicy(set);
  const toSet = policy.whenDeleted === remove && (policy.whenScaled === retain || inRange);
  const toPod = policy.whenScaled === remove && !inRange;
  if (toSet) refs.push(newControllerRef(set, setRef.apiVersion, setRef.kind));
  if (toPod) refs.push(newControllerRef(pod, podRef.apiVersion, podRef.kind));
  return refs;
}
