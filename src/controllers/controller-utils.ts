/**
 * What kube-controller-manager's workload controllers share (kubernetes/pkg/controller/controller_utils.go
 * and pkg/api/v1/pod/util.go): which pods count (FilterActivePods), pod readiness and availability
 * (IsPodReady, IsPodAvailable), the pod a template makes (GetPodFromTemplate), the order in which surplus
 * pods are deleted (ActivePodsWithRanks), the template hash (ComputeHash) and the slow-start batches every
 * controller creates its pods in (slowStartBatch); and what the per-namespace controllers (ServiceAccounts,
 * root CA publisher) share: which namespaces they sync and when ({@link getActiveNamespace},
 * {@link enqueueNamespace}).
 *
 * ComputeHash for pod templates ({@link podTemplateHash}) is upstream's value: hash/compute-hash.ts emulates
 * the go-spew print of the Go struct. {@link computeHash} is the older canonical-JSON hash (same FNV-32a and
 * rand.SafeEncodeString, different input), kept for what upstream does not hash as a PodTemplateSpec (the
 * StatefulSet's ControllerRevision data) and as the fallback for the few values the emulation refuses.
 */
import type { Namespace, Pod, PodTemplateSpec } from '../api/core/v1.ts';
import type { OwnerReference } from '../api/meta/v1.ts';
import { isNotFound, statusOf } from '../apimachinery/errors.ts';
import type { KeySink, ResourceEventHandler } from '../controller/event-handler.ts';
import type { Lister } from '../tools/cache/lister.ts';
import type { Clock } from '../util/clock/clock.ts';
import { computePodTemplateHash, fnv32a, safeEncodeString } from './hash/compute-hash.ts';
import { SpewUnsupportedError } from './hash/spew-format.ts';

export { safeEncodeString };

/** The ownerReference with `controller: true`, if any (metav1.GetControllerOf). */
export function getControllerOf(obj: { metadata?: { ownerReferences?: OwnerReference[] } }): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** A controller reference to `owner` (metav1.NewControllerRef): controller and blockOwnerDeletion true. */
export function newControllerRef(owner: { metadata?: { name?: string; uid?: string } }, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** A pod that is neither finished nor being deleted (controller.IsPodActive). */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

/** A pod being deleted that has not finished (controller.IsPodTerminating). */
export function isPodTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata?.deletionTimestamp !== undefined;
}

/** The pod's Ready condition, if reported. */
function readyCondition(pod: Pod): { status?: string; lastTransitionTime?: string } | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** True when the pod's Ready condition is True (podutil.IsPodReady). */
export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** Milliseconds of an RFC 3339 time, NaN when absent. */
export function timeMs(t: string | undefined): number {
  return t === undefined ? Number.NaN : Date.parse(t);
}

/**
 * True when the pod has been Ready for at least `minReadySeconds` at `nowMs` (podutil.IsPodAvailable:
 * the Ready condition's lastTransitionTime plus minReadySeconds is before now).
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = timeMs(readyCondition(pod)?.lastTransitionTime);
  return !Number.isNaN(since) && since + minReadySeconds * 1000 < nowMs;
}

/**
 * The pod a controller creates from its template (controller.GetPodFromTemplate): the template's labels,
 * annotations, finalizers and spec, `generateName` of the owner's name and a dash, and the controller
 * reference.
 */
export function getPodFromTemplate(template: PodTemplateSpec | undefined, ownerName: string, controllerRef: OwnerReference): Pod {
  const meta = template?.metadata ?? {};
  return {
    metadata: {
      generateName: `${ownerName}-`,
      ...(meta.labels === undefined ? {} : { labels: { ...meta.labels } }),
      ...(meta.annotations === undefined ? {} : { annotations: { ...meta.annotations } }),
      ...(meta.finalizers === undefined ? {} : { finalizers: [...meta.finalizers] }),
      ownerReferences: [controllerRef],
    },
    spec: structuredClone(template?.spec ?? { containers: [] }),
  };
}

// Upstream's SlowStartInitialBatchSize: the first batch of creates has one call, each next one doubles.
export const slowStartInitialBatchSize = 1;

/**
 * Calls `fn` `count` times in batches of 1, 2, 4, … (each batch in parallel); stops after the first batch
 * with a failure (controller.slowStartBatch), so a template the API refuses fails once, not `count` times.
 * Returns how many calls succeeded and the first error.
 */
export async function slowStartBatch(count: number, initialBatchSize: number, fn: () => Promise<void>): Promise<{ successes: number; error: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += results.length - results.filter((r) => r.status === 'rejected').length;
    if (failed !== undefined) return { successes, error: failed.reason };
    remaining -= batch;
  }
  return { successes, error: undefined };
}

const podPhaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * Orders pods for deletion, those to delete first first (controller.ActivePodsWithRanks.Less, with the
 * PodDeletionCost and LogarithmicScaleDown features on, as they are by default since 1.22):
 * unassigned before assigned; Pending, Unknown, Running; not ready before ready; lower
 * `controller.kubernetes.io/pod-deletion-cost` first; higher `rank` (more pods of the same owner on the
 * node) first; ready for less time first (on a log2 scale); more container restarts first; newer first
 * (on a log2 scale).
 */
export function comparePodsForDeletion(a: Pod, b: Pod, rankA: number, rankB: number, nowMs: number): number {
  const assigned = (p: Pod): number => ((p.spec?.nodeName ?? '') === '' ? 0 : 1);
  if (assigned(a) !== assigned(b)) return assigned(a) - assigned(b);
  const phase = (p: Pod): number => podPhaseRank[p.status?.phase ?? 'Pending'] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  const ready = (p: Pod): number => (isPodReady(p) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  const cost = (p: Pod): number => {
    const v = Number(p.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost'] ?? '0');
    return Number.isInteger(v) ? v : 0;
  };
  if (cost(a) !== cost(b)) return cost(a) - cost(b);
  if (rankA !== rankB) return rankB - rankA;
  // Log2 of the age in nanoseconds, as upstream's logarithmic comparison; a missing time sorts first.
  const logAge = (t: string | undefined): number => {
    const ms = timeMs(t);
    if (Number.isNaN(ms)) return Number.NEGATIVE_INFINITY;
    const ns = Math.max(1, (nowMs - ms) * 1e6);
    return Math.floor(Math.log2(ns));
  };
  if (isPodReady(a) && isPodReady(b)) {
    const ra = logAge(readyCondition(a)?.lastTransitionTime);
    const rb = logAge(readyCondition(b)?.lastTransitionTime);
    if (ra !== rb) return ra - rb;
  }
  const restarts = (p: Pod): number => Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  const ca = logAge(a.metadata?.creationTimestamp);
  const cb = logAge(b.metadata?.creationTimestamp);
  return ca - cb;
}

/** JSON with object keys sorted, so equal objects hash equally whatever their key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * A hash of any object and a collision count over its canonical JSON (FNV-32a, rand.SafeEncodeString):
 * stable and well-formed, but not a value kube-controller-manager computes. Pod templates use
 * {@link podTemplateHash} instead.
 */
export function computeHash(template: unknown, collisionCount?: number): string {
  let text = canonicalJson(template);
  if (collisionCount !== undefined) text += `#${collisionCount}`;
  return safeEncodeString(String(fnv32a(Buffer.from(text, 'utf8'))));
}

/**
 * controller.ComputeHash of a stored pod template and collision count: the `pod-template-hash` of a
 * Deployment's ReplicaSets and the `controller-revision-hash` of a DaemonSet's revisions, equal to
 * kube-controller-manager v1.24's (see hash/compute-hash.ts). For a template holding a value whose Go print
 * is not emulated (a non-zero metav1.Time, a quantity beyond int64), falls back to {@link computeHash}.
 */
export function podTemplateHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  try {
    return computePodTemplateHash(template ?? {}, collisionCount);
  } catch (err) {
    if (err instanceof SpewUnsupportedError) return computeHash(template ?? {}, collisionCount);
    throw err;
  }
}

/** The current time of `clock` as a metav1.Time string (seconds precision, as the API serialises it). */
export function nowTime(clock: Clock): string {
  return new Date(Math.floor(clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** True when the error's Status names a cause of type `cause` (apierrors.HasStatusCause), e.g. NamespaceTerminating. */
export function hasStatusCause(err: unknown, cause: string): boolean {
  return statusOf(err)?.details?.causes?.some((c) => c.reason === cause) ?? false;
}

/**
 * `v` without zero numbers, false, empty strings, empty objects and empty arrays: what Go's `omitempty`
 * leaves out, so a computed status compares equal to the one the server stored.
 */
export function pruneZero(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => pruneZero(x) ?? {});
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = pruneZero(x);
      if (p !== undefined) out[k] = p;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (v === 0 || v === false || v === '' || v === null) return undefined;
  return v;
}

/**
 * The namespace `name` from `lister` when it exists and is active (phase Active, or none yet, and not being
 * deleted), else undefined: how the per-namespace controllers' syncNamespace opens
 * (serviceaccounts_controller.go, rootcacertpublisher/publisher.go), since creating in a namespace that is
 * gone or terminating is refused. Errors other than NotFound are thrown.
 */
export function getActiveNamespace(lister: Lister<Namespace>, name: string): Namespace | undefined {
  let ns: Namespace;
  try {
    ns = lister.get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (ns.metadata?.deletionTimestamp !== undefined || (ns.status?.phase ?? 'Active') !== 'Active') return undefined;
  return ns;
}

/**
 * Enqueues a namespace's name when it is added or updated, and nothing when it is deleted (the
 * namespaceAdded / namespaceUpdated handlers of the per-namespace controllers: a namespace that is gone has
 * nothing left to fill).
 */
export function enqueueNamespace(sink: KeySink): ResourceEventHandler<Namespace> {
  const enqueue = (ns: Namespace): void => sink.add(ns.metadata?.name ?? '');
  return { onAdd: enqueue, onUpdate: (_old, ns) => enqueue(ns), onDelete: () => undefined };
}
