/**
 * The Deployment controller's arithmetic and bookkeeping (kubernetes/pkg/controller/deployment/util/
 * deployment_util.go and pkg/controller/controller_utils.go's ReplicaSet orderings): revisions and their
 * annotations, the replicas annotations, maxSurge and maxUnavailable resolved against the replica count
 * (ResolveFenceposts), how many pods a new ReplicaSet may have (NewRSNewReplicas), proportional scaling,
 * deployment conditions and the completeness, progress and time-out tests the Progressing condition
 * follows. Pure functions over the API types.
 */
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet, ReplicaSetCondition } from '../../api/apps/v1.ts';
import type { PodTemplateSpec } from '../../api/core/v1.ts';
import { canonicalJson, timeMs } from '../controller-utils.ts';

/** The revision of a ReplicaSet and of its Deployment. */
export const revisionAnnotation = 'deployment.kubernetes.io/revision';
/** Revisions a ReplicaSet had before a rollback made it current again. */
export const revisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
/** The Deployment's replicas when the ReplicaSet was last scaled. */
export const desiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
/** The Deployment's replicas plus maxSurge when the ReplicaSet was last scaled. */
export const maxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
/** The label a Deployment adds to its ReplicaSets' selectors and templates (DefaultDeploymentUniqueLabelKey). */
export const podTemplateHashLabel = 'pod-template-hash';
// kubectl's last-applied-configuration annotation, never copied to ReplicaSets.
const lastAppliedConfigAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
// The extensions/v1beta1 rollback annotation, never copied either.
const deprecatedRollbackTo = 'deprecated.deployment.rollback.to';
/** Upstream maxRevHistoryLengthInChars: the longest revision-history annotation kept. */
export const maxRevHistoryLengthInChars = 2000;
// Upstream treats math.MaxInt32 as "no progress deadline".
const maxInt32 = 2147483647;

/** Condition reasons of the Deployment controller (deployment_util.go). */
export const DeploymentReason = {
  /** Progressing: a new ReplicaSet was created. */
  NewRSCreated: 'NewReplicaSetCreated',
  /** Progressing: the new ReplicaSet existed already. */
  FoundNewRS: 'FoundNewReplicaSet',
  /** Progressing: the rollout made progress. */
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  /** Progressing: the rollout is complete. */
  NewRSAvailable: 'NewReplicaSetAvailable',
  /** Progressing=False: no progress within progressDeadlineSeconds. */
  TimedOut: 'ProgressDeadlineExceeded',
  /** Progressing=Unknown: paused. */
  Paused: 'DeploymentPaused',
  /** Progressing=Unknown: resumed. */
  Resumed: 'DeploymentResumed',
  /** Progressing=False: the new ReplicaSet could not be created. */
  FailedRSCreate: 'ReplicaSetCreateError',
  /** Available=True. */
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  /** Available=False. */
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** spec.replicas with its default. */
export function replicasOf(obj: { spec?: { replicas?: number } } | undefined): number {
  return obj?.spec?.replicas ?? 1;
}

/** An integer annotation, undefined when absent or malformed. */
function intAnnotation(obj: { metadata?: { annotations?: Record<string, string> } }, key: string): number | undefined {
  const v = obj.metadata?.annotations?.[key];
  if (v === undefined || !/^-?\d+$/.test(v)) return undefined;
  return Number(v);
}

/** The ReplicaSet's revision (0 when unset or malformed: Revision). */
export function revisionOf(rs: ReplicaSet): number {
  return intAnnotation(rs, revisionAnnotation) ?? 0;
}

/** The highest revision among `rss` (MaxRevision). */
export function maxRevision(rss: readonly ReplicaSet[]): number {
  return rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

/** The desired-replicas annotation (GetDesiredReplicasAnnotation). */
export function desiredReplicasOf(rs: ReplicaSet): number | undefined {
  return intAnnotation(rs, desiredReplicasAnnotation);
}

function creationOrder(a: ReplicaSet, b: ReplicaSet): number {
  const ta = timeMs(a.metadata?.creationTimestamp);
  const tb = timeMs(b.metadata?.creationTimestamp);
  if (ta === tb || (Number.isNaN(ta) && Number.isNaN(tb))) {
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  return ta - tb;
}

/** Oldest first, then by name (ReplicaSetsByCreationTimestamp). */
export function byCreationTimestamp(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort(creationOrder);
}

/** Lowest revision first, then oldest (ReplicaSetsByRevision). */
export function byRevision(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => revisionOf(a) - revisionOf(b) || creationOrder(a, b));
}

/** Largest first, then oldest (ReplicaSetsBySizeOlder). */
export function bySizeOlder(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => replicasOf(b) - replicasOf(a) || creationOrder(a, b));
}

/** Largest first, then newest (ReplicaSetsBySizeNewer). */
export function bySizeNewer(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => replicasOf(b) - replicasOf(a) || creationOrder(b, a));
}

/** Drops empty objects and arrays (and undefined), as the semantic equality treats nil and empty alike. */
function pruneEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(pruneEmpty);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = pruneEmpty(x);
      if (p !== undefined) out[k] = p;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}

/** Templates equal but for the pod-template-hash label (EqualIgnoreHash). */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined): unknown => {
    const c = structuredClone(t ?? {});
    if (c.metadata?.labels !== undefined) delete c.metadata.labels[podTemplateHashLabel];
    return pruneEmpty(c);
  };
  return canonicalJson(strip(a)) === canonicalJson(strip(b));
}

/** The ReplicaSet whose template is the Deployment's, the oldest if several (FindNewReplicaSet). */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return byCreationTimestamp(rss).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** Every ReplicaSet but the new one (FindOldReplicaSets' second result). */
export function findOldReplicaSets(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet[] {
  const uid = findNewReplicaSet(d, rss)?.metadata?.uid;
  return rss.filter((rs) => uid === undefined || rs.metadata?.uid !== uid);
}

/** ReplicaSets with replicas (FilterActiveReplicaSets). */
export function activeReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== undefined && replicasOf(rs) > 0);
}

/** Sum of spec.replicas (GetReplicaCountForReplicaSets). */
export function specReplicas(rss: readonly (ReplicaSet | undefined)[]): number {
  return rss.reduce((n, rs) => n + (rs === undefined ? 0 : replicasOf(rs)), 0);
}

/** Sum of a status count over ReplicaSets (GetActual/Ready/AvailableReplicaCountForReplicaSets). */
export function statusReplicas(rss: readonly (ReplicaSet | undefined)[], field: 'replicas' | 'readyReplicas' | 'availableReplicas'): number {
  return rss.reduce((n, rs) => n + (rs?.status?.[field] ?? 0), 0);
}

/** An int-or-percent against `total` (GetScaledValueFromIntOrPercent); percents round up or down. */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (m === null) {
    if (/^\d+$/.test(v)) return Number(v);
    throw new Error(`invalid value for IntOrString: invalid value "${v}": must be an integer or a percentage`);
  }
  const raw = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(raw) : Math.floor(raw);
}

/** Whether the strategy is RollingUpdate (the default). */
export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** maxSurge and maxUnavailable against the replica count; never both 0 (ResolveFenceposts). */
export function resolveFenceposts(d: Deployment): { surge: number; unavailable: number } {
  const desired = replicasOf(d);
  const ru = d.spec?.strategy?.rollingUpdate;
  const surge = scaledValue(ru?.maxSurge ?? '25%', desired, true);
  let unavailable = scaledValue(ru?.maxUnavailable ?? '25%', desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** MaxUnavailable: 0 for Recreate or no replicas, never above the replica count. */
export function maxUnavailable(d: Deployment): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, replicas);
}

/** MaxSurge: 0 for Recreate. */
export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).surge : 0;
}

/** The replicas the new ReplicaSet may have now (NewRSNewReplicas). */
export function newRSNewReplicas(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d)) return replicas;
  const surge = scaledValue(d.spec?.strategy?.rollingUpdate?.maxSurge ?? '25%', replicas, true);
  const current = specReplicas(all);
  const maxTotal = replicas + surge;
  if (current >= maxTotal) return replicasOf(newRS);
  const up = Math.min(maxTotal - current, replicas - replicasOf(newRS));
  return replicasOf(newRS) + up;
}

/** True when the ReplicaSet has all the Deployment's replicas, available (IsSaturated). */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  const replicas = replicasOf(d);
  return replicasOf(rs) === replicas && desiredReplicasOf(rs) === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/** The one active ReplicaSet, or the newest when none is active (FindActiveOrLatest); undefined when several are active. */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const newestFirst = byCreationTimestamp(oldRSs).reverse();
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  if (active.length === 1) return active[0];
  return undefined;
}

/** The share of `toAdd` a ReplicaSet gets when a Deployment is scaled mid-rollout (GetProportion). */
export function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const replicas = replicasOf(d);
  if (replicas === 0) return -replicasOf(rs);
  const deploymentReplicas = replicas + maxSurge(d);
  const annotated = intAnnotation(rs, maxReplicasAnnotation) ?? d.status?.replicas ?? 0;
  // integer.RoundToInt32: half away from zero.
  const size = (replicasOf(rs) * deploymentReplicas) / annotated;
  const rounded = size < 0 ? -Math.round(-size) : Math.round(size);
  return rounded - replicasOf(rs);
}

/** Sets the replicas annotations; true when one changed (SetReplicasAnnotations). */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const meta = (rs.metadata ??= {});
  const a = (meta.annotations ??= {});
  let updated = false;
  if (a[desiredReplicasAnnotation] !== String(desired)) {
    a[desiredReplicasAnnotation] = String(desired);
    updated = true;
  }
  if (a[maxReplicasAnnotation] !== String(max)) {
    a[maxReplicasAnnotation] = String(max);
    updated = true;
  }
  return updated;
}

/** Whether the replicas annotations differ from these values (ReplicasAnnotationsNeedUpdate). */
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = rs.metadata?.annotations;
  return a === undefined || a[desiredReplicasAnnotation] !== String(desired) || a[maxReplicasAnnotation] !== String(max);
}

function skipCopyAnnotation(key: string): boolean {
  return [lastAppliedConfigAnnotation, revisionAnnotation, revisionHistoryAnnotation, desiredReplicasAnnotation, maxReplicasAnnotation, deprecatedRollbackTo].includes(key);
}

/**
 * The Deployment's annotations (but the controller's own and kubectl's last-applied) on the new
 * ReplicaSet, the new revision (and the old one in the revision history when a rollback brings an old
 * ReplicaSet back), and for a ReplicaSet about to be created the replicas annotations. True when an
 * annotation changed (SetNewReplicaSetAnnotations).
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): boolean {
  const meta = (rs.metadata ??= {});
  const a = (meta.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (skipCopyAnnotation(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const oldText = a[revisionAnnotation];
  const hadRevision = oldText !== undefined;
  if (hadRevision && !/^-?\d+$/.test(oldText)) return false;
  const oldRevision = hadRevision ? Number(oldText) : 0;
  if (oldRevision < newRevision) {
    a[revisionAnnotation] = String(newRevision);
    changed = true;
    if (hadRevision) {
      // A rollback: keep the revisions this ReplicaSet had, within the length limit.
      const history = a[revisionHistoryAnnotation] ?? '';
      if (history === '') a[revisionHistoryAnnotation] = oldText;
      else {
        let revisions = history.split(',');
        let total = history.length + oldText.length + 1;
        let start = 0;
        while (total > maxRevHistoryLengthInChars && start < revisions.length) {
          total -= revisions[start]!.length + 1;
          start++;
        }
        if (total <= maxRevHistoryLengthInChars) {
          revisions = [...revisions.slice(start), oldText];
          a[revisionHistoryAnnotation] = revisions.join(',');
        }
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** Sets the Deployment's revision annotation; true when it changed (SetDeploymentRevision). */
export function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const meta = (d.metadata ??= {});
  const a = (meta.annotations ??= {});
  if (a[revisionAnnotation] === revision) return false;
  a[revisionAnnotation] = revision;
  return true;
}

/** Whether progressDeadlineSeconds applies (HasProgressDeadline). */
export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== maxInt32;
}

/** A condition stamped now (NewDeploymentCondition). */
export function newDeploymentCondition(type: string, status: string, reason: string, message: string, now: string): DeploymentCondition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** The condition of a type, if any. */
export function getDeploymentCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * Sets a condition (SetDeploymentCondition): nothing when status and reason are unchanged; the
 * transition time kept when only the reason changes. Conditions of other types keep their order and the
 * new one goes last.
 */
export function setDeploymentCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getDeploymentCondition(status, condition.type);
  if (current !== undefined && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current !== undefined && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

/** Removes the condition of a type (RemoveDeploymentCondition). */
export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  if (status.conditions === undefined) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
}

/** A ReplicaSet's condition as the Deployment's (ReplicaSetToDeploymentCondition). */
export function replicaSetToDeploymentCondition(c: ReplicaSetCondition): DeploymentCondition {
  return {
    type: c.type,
    status: c.status,
    ...(c.lastTransitionTime === undefined ? {} : { lastTransitionTime: c.lastTransitionTime, lastUpdateTime: c.lastTransitionTime }),
    ...(c.reason === undefined ? {} : { reason: c.reason }),
    ...(c.message === undefined ? {} : { message: c.message }),
  };
}

/** Every replica updated and available, and the spec observed (DeploymentComplete). */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const replicas = replicasOf(d);
  return (s.updatedReplicas ?? 0) === replicas && (s.replicas ?? 0) === replicas && (s.availableReplicas ?? 0) === replicas && (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

/** More updated, ready or available replicas, or fewer old ones, than the stored status shows (DeploymentProgressing). */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** No progress for progressDeadlineSeconds since the Progressing condition's last update (DeploymentTimedOut). */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getDeploymentCondition(s, 'Progressing');
  if (c === undefined) return false;
  if (c.reason === DeploymentReason.NewRSAvailable) return false;
  if (c.reason === DeploymentReason.TimedOut) return true;
  const from = timeMs(c.lastUpdateTime);
  return !Number.isNaN(from) && from + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 < nowMs;
}
