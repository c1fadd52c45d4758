/** One phase of the sharding harness (bench/sharding/run.ts), as its JSON output and report.ts read it. */
export interface PhaseResult {
  phase: string;
  replicas: number;
  settleMs: number;
  movedReconciledByOwnerMs: number;
  moved: number;
  withoutOwner: number;
  withTwoOwners: number;
  perReplica: Array<{ id: string; heapMB: number; cached: number; activeFraction: number }>;
  singleChangeReplicas?: number;
}
