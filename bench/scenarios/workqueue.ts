/**
 * Scenario: WorkQueue throughput with bench/workqueue.ts's measurements: add+get+done with 1 and 8
 * workers (distinct keys: every add enqueues; pool keys: 1,000 keys drawn at random, so adds are
 * deduplicated and requeued as with a real informer), and addAfter with 100,000 items waiting.
 * Best of three runs each, by CPU time.
 */
import { Queue } from '../../src/util/workqueue/queue.ts';
import { addAfterBench, addGetDone, best, rng, type Row } from '../workqueue.ts';
import { scenario } from '../lib/child.ts';
import type { WorkQueueRow } from '../lib/types.ts';

interface WorkQueueInput {
  /** add+get+done items per run. */
  items: number;
}

const toRow = (r: Row, scenarioName: string): WorkQueueRow => ({ scenario: scenarioName, items: r.items, ms: r.wallMs, cpuMs: r.cpuMs });

scenario<WorkQueueInput, WorkQueueRow[]>(async (input) => {
  const random = rng(42);
  const pool = Array.from({ length: 1000 }, (_, i) => `default/pod-${i}`);
  const poolDraws = Array.from({ length: 100_000 }, () => pool[Math.floor(random() * pool.length)]!);
  const distinct = Array.from({ length: input.items }, (_, i) => `default/pod-${i}`);
  // Warm up the JIT so that the first measured scenario is not penalised.
  await addGetDone('warmup', new Queue<string>(), 1, poolDraws, input.items, 100, false);
  const rows: WorkQueueRow[] = [];
  for (const workers of [1, 8]) {
    const w = `${workers} worker${workers === 1 ? '' : 's'}`;
    rows.push(toRow(await best(() => addGetDone('', new Queue<string>(), workers, distinct, input.items, 100, false)), `add+get+done, ${w}, distinct keys`));
    rows.push(toRow(await best(() => addGetDone('', new Queue<string>(), workers, poolDraws, input.items, 100, false)), `add+get+done, ${w}, 1,000 pool keys`));
  }
  const runs = [await addAfterBench(), await addAfterBench(), await addAfterBench()];
  const names = ['addAfter ×100k into an empty queue', 'addAfter ×100k with 100k waiting', '200k waiting items become ready'];
  for (let i = 0; i < names.length; i++) {
    const fastest = runs.map((r) => r[i]!).reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
    rows.push(toRow(fastest, names[i]!));
  }
  return rows;
});
