/**
 * Work queue throughput. Run: ./node_modules/.bin/node bench/workqueue.ts
 *
 * - add+get+done: a producer adds keys in batches of 100 and lets the workers catch up; workers take
 *   each item and mark it done, either at once or after one turn of simulated asynchronous work.
 *   "pool" draws keys at random from 1,000 keys, so adds of waiting items are deduplicated and adds of
 *   items being processed are requeued on done, as with a real informer; "distinct" adds each key once.
 *   Figures are processed items (get + done) per second of CPU time and of wall-clock time.
 * - addAfter: adds 100,000 items with random delays up to 60 s to a DelayingQueue on a FakeClock, then a
 *   further 100,000 addAfter calls while those wait, then moves the clock so every item becomes ready.
 *
 * The measurements are exported for bench/run.ts; the table below is printed only when this file is run.
 */
import { performance } from 'node:perf_hooks';
import { FakeClock } from '../src/util/clock/clock.ts';
import { DelayingQueue } from '../src/util/workqueue/delaying-queue.ts';
import { Queue } from '../src/util/workqueue/queue.ts';
import { RateLimitingQueue } from '../src/util/workqueue/rate-limiting-queue.ts';
import type { QueueInterface } from '../src/util/workqueue/queue.ts';
import { runWorkers } from '../src/util/workqueue/run-workers.ts';

/** One measured scenario. */
export interface Row {
  scenario: string;
  /** Items per second of this process's CPU time: stable on a shared machine. */
  'items/CPU-s': string;
  /** Items per second of wall-clock time: what a quiet machine gives. */
  'items/s': string;
  items: number;
  'cpu ms': string;
  /** Unrounded wall and CPU time. */
  wallMs: number;
  cpuMs: number;
}

/** Starts a measurement; the returned function ends it and builds the row. */
function measure(scenario: string): (items: number) => Row {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return (items) => {
    const wallMs = performance.now() - wall;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    return { scenario, 'items/CPU-s': fmt((items / cpuMs) * 1000), 'items/s': fmt((items / wallMs) * 1000), items, 'cpu ms': cpuMs.toFixed(0), wallMs, cpuMs };
  };
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

// Deterministic pseudo-random numbers so runs are comparable.
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** add+get+done through `queue` with `workers` workers; see the file comment. */
export async function addGetDone(
  label: string,
  queue: QueueInterface<string>,
  workers: number,
  keys: readonly string[],
  totalAdds: number,
  batch: number,
  asyncWork: boolean,
): Promise<Row> {
  let processed = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      processed++;
      // One turn of simulated asynchronous work, so that items are re-added while being processed.
      if (asyncWork) await Promise.resolve();
      queue.done(next.item);
    }
  };
  const running: Promise<void>[] = [];
  const end = measure(label);
  for (let w = 0; w < workers; w++) running.push(worker());
  let k = 0;
  for (let added = 0; added < totalAdds; added += batch) {
    for (let i = 0; i < batch; i++) {
      queue.add(keys[k]!);
      k = k + 1 === keys.length ? 0 : k + 1;
    }
    // Let the workers catch up before the next batch; watch events arrive as macrotasks too.
    while (queue.len() > 0) await new Promise<void>((r) => setImmediate(r));
  }
  await queue.shutDownWithDrain();
  queue.shutDown();
  await Promise.all(running);
  return end(processed);
}

/** The same producer feeding runWorkers (get, process, forget, done) on a RateLimitingQueue. */
export async function runWorkersBench(label: string, concurrency: number, keys: readonly string[], totalAdds: number, batch: number): Promise<Row> {
  const queue = new RateLimitingQueue<string>({ clock: new FakeClock() });
  let processed = 0;
  const end = measure(label);
  const running = runWorkers(queue, { concurrency }, () => {
    processed++;
  });
  let k = 0;
  for (let added = 0; added < totalAdds; added += batch) {
    for (let i = 0; i < batch; i++) {
      queue.add(keys[k]!);
      k = k + 1 === keys.length ? 0 : k + 1;
    }
    while (queue.len() > 0) await new Promise<void>((r) => setImmediate(r));
  }
  await queue.shutDownWithDrain();
  queue.shutDown();
  await running;
  return end(processed);
}

/** addAfter into an empty heap, with 100k waiting, and the heap draining when the clock moves. */
export async function addAfterBench(): Promise<Row[]> {
  const clock = new FakeClock();
  const queue = new DelayingQueue<string>({ clock });
  const random = rng(7);
  const n = 100_000;
  const keys = Array.from({ length: 2 * n }, (_, i) => `ns/item-${i}`);
  const delays = Array.from({ length: 2 * n }, () => 1 + Math.floor(random() * 60_000));
  let end = measure('addAfter into empty heap (100k)');
  for (let i = 0; i < n; i++) queue.addAfter(keys[i]!, delays[i]!);
  const fill = end(n);
  end = measure('addAfter with 100k waiting (100k more)');
  for (let i = n; i < 2 * n; i++) queue.addAfter(keys[i]!, delays[i]!);
  const more = end(n);
  end = measure('heap -> queue when ready (200k)');
  await clock.step(60_001);
  const fire = end(queue.len());
  queue.shutDown();
  return [fill, more, fire];
}

/** Runs a scenario three times and keeps the fastest run: the machine may be shared. */
export async function best(run: () => Promise<Row>): Promise<Row> {
  let top: Row | undefined;
  for (let i = 0; i < 3; i++) {
    const row = await run();
    if (top === undefined || row.cpuMs < top.cpuMs) top = row;
  }
  return top!;
}

async function main(): Promise<void> {
  const pool = Array.from({ length: 1000 }, (_, i) => `default/pod-${i}`);
  const random = rng(42);
  const poolDraws = Array.from({ length: 100_000 }, () => pool[Math.floor(random() * pool.length)]!);
  const total = 1_000_000;
  const distinct = Array.from({ length: total }, (_, i) => `default/pod-${i}`);

  const rows: Row[] = [];
  // Warm up the JIT so the first measured scenario is not penalised.
  await addGetDone('warmup', new Queue<string>(), 1, poolDraws, 1_000_000, 100, false);
  await addGetDone('warmup', new Queue<string>(), 8, poolDraws, 1_000_000, 100, true);
  for (const asyncWork of [false, true]) {
    for (const workers of [1, 8]) {
      const work = asyncWork ? ', async work' : '';
      rows.push(await best(() => addGetDone(`Queue, ${workers} worker(s), pool keys${work}`, new Queue<string>(), workers, poolDraws, total, 100, asyncWork)));
      rows.push(
        await best(() => addGetDone(`Queue, ${workers} worker(s), distinct keys${work}`, new Queue<string>(), workers, distinct, total, 100, asyncWork)),
      );
    }
  }
  rows.push(
    await best(() =>
      addGetDone('RateLimitingQueue, 1 worker, distinct keys', new RateLimitingQueue<string>({ clock: new FakeClock() }), 1, distinct, total, 100, false),
    ),
  );
  for (const workers of [1, 8]) {
    rows.push(await best(() => runWorkersBench(`runWorkers, ${workers} worker(s), pool keys`, workers, poolDraws, total, 100)));
  }
  const afterRuns = [await addAfterBench(), await addAfterBench(), await addAfterBench()];
  for (let i = 0; i < afterRuns[0]!.length; i++) {
    rows.push(afterRuns.map((r) => r[i]!).reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a)));
  }
  console.log(`node ${process.version}, best of 3 runs per scenario (by CPU time)`);
  console.table(rows.map(({ wallMs: _w, cpuMs: _c, ...shown }) => shown));
}

if (import.meta.main) await main();
