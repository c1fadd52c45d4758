/**
 * Turns the JSON of bench/sharding/run.ts (one file per server) into the Markdown tables of
 * BENCHMARKS.md's sharding section. node bench/sharding/report.ts a.json b.json …
 */
import { readFileSync } from 'node:fs';
import type { PhaseResult } from './phase-result.ts';

type Phase = Required<PhaseResult>;
interface Run {
  server: string;
  objects: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  reconciles: number;
  overlappingIntervals: number;
  phases: Phase[];
}

for (const file of process.argv.slice(2)) {
  const run = JSON.parse(readFileSync(file, 'utf8')) as Run;
  const out: string[] = [];
  out.push(`**${run.server}**, ${run.objects.toLocaleString('en')} ConfigMaps of 1 KiB, lease ${run.leaseDurationMs / 1000} s / renew deadline ${run.renewDeadlineMs / 1000} s / retry ${run.retryPeriodMs / 1000} s: ${run.reconciles.toLocaleString('en')} reconciles, **${run.overlappingIntervals} overlapping intervals**.`);
  out.push('');
  out.push('| change | replicas | objects moved | ring settled | moved objects reconciled by new owner | without owner / two owners | one change reconciled by | heap per replica (MiB) | cached per replica |');
  out.push('| :--- | ---: | ---: | ---: | ---: | ---: | ---: | :--- | :--- |');
  for (const p of run.phases) {
    out.push(
      `| ${p.phase} | ${p.replicas} | ${p.moved.toLocaleString('en')} | ${(p.settleMs / 1000).toFixed(1)} s | ${(p.movedReconciledByOwnerMs / 1000).toFixed(1)} s | ${p.withoutOwner} / ${p.withTwoOwners} | ${p.singleChangeReplicas} replica | ${p.perReplica.map((r) => r.heapMB.toFixed(1)).join(', ')} | ${p.perReplica.map((r) => r.cached.toLocaleString('en')).join(', ')} |`,
    );
  }
  // heap = constant + per-object × cached, least squares over every replica of every phase.
  const pts = run.phases.flatMap((p) => p.perReplica.map((r) => [r.cached, r.heapMB] as const));
  const n = pts.length;
  const mx = pts.reduce((a, [x]) => a + x, 0) / n;
  const my = pts.reduce((a, [, y]) => a + y, 0) / n;
  const slope = pts.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / pts.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const c = my - slope * mx;
  const one = run.phases[0]!.perReplica[0]!.heapMB;
  const three = run.phases.find((p) => p.replicas === 3)!.perReplica.map((r) => r.heapMB);
  const five = run.phases.find((p) => p.replicas === 5)!.perReplica.map((r) => r.heapMB);
  const avg = (a: number[]): number => a.reduce((x, y) => x + y, 0) / a.length;
  out.push('');
  out.push(
    `Heap after GC ≈ ${c.toFixed(1)} MiB + ${((slope * 1024 * 1024) / 1000).toFixed(2)} KB × cached objects (least squares over every replica and phase). Cache part (heap − ${c.toFixed(1)} MiB) with 3 replicas: ${((avg(three) - c) / (one - c)).toFixed(2)} of one replica's, with 5: ${((avg(five) - c) / (one - c)).toFixed(2)} (ideal 0.33 and 0.20).`,
  );
  out.push('');
  process.stdout.write(`${out.join('\n')}\n`);
}
