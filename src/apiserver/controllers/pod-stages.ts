/**
 * kwok-style pod stages for the kubelet stand-in (sigs.k8s.io/kwok, kustomize/stage/pod/general: the
 * pod-ready, pod-complete and pod-delete stages, each with a delay): how long a bound pod stays Pending
 * (images "pulled", containers "created"), how long its running containers take to become ready, how long
 * the pods that finish run, and the probability that they fail. The failure draw is seeded and keyed by
 * the pod's namespace and name, so that a run is deterministic whatever order the pods are handled in
 * (kwok draws from math/rand, unseeded; a test needs the same answer every time).
 */

/** Delays and failure probability of the pod lifecycle (the `stages` option of the kubelet stand-in). */
export interface PodStages {
  /** How long a bound pod stays Pending before its containers run (kwok pod-ready delay; default 0). */
  pendingMs?: number;
  /** How long a running pod's containers take to become ready (default 0: Running and Ready at once). */
  readyMs?: number;
  /**
   * How long a pod that finishes (a Job's pod, or whatever the `podOutcome` option ends) runs before its
   * containers exit, when its outcome names no delay (kwok pod-complete delay; default 0).
   */
  completeMs?: number;
  /** The probability in [0, 1] that a finishing pod's containers exit non-zero (Failed, Error); default 0. */
  failureProbability?: number;
  /** Seed of the failure draw (default 1). */
  seed?: number;
}

/**
 * A number in [0, 1) drawn for one pod: FNV-1a of the seed and `namespace/name`, then a murmur3 finaliser,
 * so that close names draw far-apart numbers.
 */
export function podDraw(seed: number, namespace: string, name: string): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  const s = `${namespace}/${name}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

/** Whether the pod's finishing containers fail under `stages` (a draw below the failure probability). */
export function podFails(stages: PodStages, namespace: string, name: string): boolean {
  const p = stages.failureProbability ?? 0;
  if (p <= 0) return false;
  if (p >= 1) return true;
  return podDraw(stages.seed ?? 1, namespace, name) < p;
}
