/**
 * The summary the demo prints at the end of an embedded run: steps with their convergence times,
 * the objects the controller wrote, the events it recorded, its reconciles, and the total time.
 */
import type { PodSetControllerCounts } from './podset-controller.ts';
import type { StepResult } from './workload.ts';

/** Everything the summary reports. */
export interface DemoSummary {
  steps: StepResult[];
  counts: PodSetControllerCounts;
  podsMarkedReady: number;
  eventsByReason: ReadonlyMap<string, number>;
  /** Events found on the server afterwards (series are aggregated, so this can be fewer). */
  eventsStored: number;
  reconciles: { success: number; requeueAfter: number; error: number };
  /** A few reconcile errors, for the curious (optimistic-concurrency conflicts are expected). */
  errorSamples: string[];
  totalMs: number;
  workloadMs: number;
}

function ms(value: number): string {
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** Formats the summary as the lines printed at the end of `kubeloom demo`. */
export function formatSummary(s: DemoSummary): string {
  const converged = s.steps.filter((r) => r.converged).length;
  const ok = converged === s.steps.length && s.steps.length > 0;
  const lines: string[] = [];
  lines.push('');
  lines.push(`summary: ${ok ? 'converged' : 'FAILED to converge'} (${converged}/${s.steps.length} steps)`);
  const width = Math.max(...s.steps.map((r) => r.name.length), 10);
  for (const [i, r] of s.steps.entries()) {
    lines.push(`  ${i + 1}. ${r.name.padEnd(width)}  ${r.converged ? ms(r.convergenceMs).padStart(8) : `NOT converged: ${r.reason}`}`);
  }
  const c = s.counts;
  lines.push(`  objects:    pods created ${c.podsCreated}, deleted ${c.podsDeleted}, adopted ${c.podsAdopted}, released ${c.podsReleased}; status updates ${c.statusUpdates}; pods marked ready ${s.podsMarkedReady}`);
  const reasons = [...s.eventsByReason.entries()].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `${reason} ${n}`);
  const recorded = [...s.eventsByReason.values()].reduce((a, b) => a + b, 0);
  lines.push(`  events:     ${recorded} recorded (${reasons.join(', ') || 'none'}), ${s.eventsStored} Event objects on the server`);
  const r = s.reconciles;
  lines.push(`  reconciles: ${r.success + r.requeueAfter + r.error} (${r.success} done, ${r.requeueAfter} requeued, ${r.error} retried after an error)`);
  if (s.errorSamples.length > 0) lines.push(`              (retried errors are expected: optimistic concurrency; first: ${s.errorSamples[0]})`);
  lines.push(`  time:       workload ${ms(s.workloadMs)}, total ${ms(s.totalMs)} (API server start, CRD, caches, workload)`);
  lines.push('');
  return lines.join('\n');
}
