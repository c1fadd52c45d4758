/**
 * The informer micro-benchmarks (bench/informer.ts, bench/informer-freeze.ts) use the same realistic
 * Pod as `npm run bench` (bench/lib/workload.ts), so their figures compare with BENCHMARKS.md.
 */
import { benchPod as workloadPod, type BenchPod } from './lib/workload.ts';

/** A realistic Pod (about 3.4 KB of JSON, with managedFields), in `namespace` (default "default"). */
export function benchPod(i: number, namespace = 'default'): BenchPod {
  return workloadPod(i, namespace);
}
