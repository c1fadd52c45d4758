import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parallelizeUntil } from './parallelizer.ts';

/** A piece that waits until released, to observe how many run at once. */
function gate(): { run: (p: number) => Promise<void>; started: number[]; running: () => number; peak: () => number; releaseAll: () => void } {
  const started: number[] = [];
  const waiting: Array<() => void> = [];
  let running = 0;
  let peak = 0;
  let open = false;
  return {
    started,
    running: () => running,
    peak: () => peak,
    releaseAll: () => {
      open = true;
      for (const w of waiting.splice(0)) w();
    },
    run: async (p) => {
      started.push(p);
      running++;
      peak = Math.max(peak, running);
      if (!open) await new Promise<void>((r) => waiting.push(r));
      running--;
    },
  };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}

test('every piece runs once on at most `workers` workers; chunks are handed out in order', async () => {
  const g = gate();
  const done = parallelizeUntil(3, 10, g.run);
  await flush();
  assert.deepEqual(g.started, [0, 1, 2]);
  g.releaseAll();
  await done;
  assert.deepEqual([...g.started].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(g.peak(), 3);
  const chunked: number[] = [];
  await parallelizeUntil(2, 7, (p) => void chunked.push(p), { chunkSize: 3 });
  // Worker 1 takes 0-2, worker 2 takes 3-5, then 6: each chunk runs in order.
  assert.deepEqual([...chunked].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6]);
});

test('no piece starts once the signal aborted; zero pieces or workers run nothing', async () => {
  const g = gate();
  const controller = new AbortController();
  const done = parallelizeUntil(2, 100, g.run, { signal: controller.signal });
  await flush();
  controller.abort();
  g.releaseAll();
  await done;
  assert.deepEqual(g.started, [0, 1]);
  let calls = 0;
  await parallelizeUntil(4, 0, () => void calls++);
  await parallelizeUntil(0, 5, () => void calls++);
  assert.equal(calls, 0);
});

test('a throwing piece stops new pieces and its error surfaces', async () => {
  const seen: number[] = [];
  const boom = new Error('boom');
  await assert.rejects(
    parallelizeUntil(1, 5, (p) => {
      seen.push(p);
      if (p === 1) throw boom;
    }),
    (e) => e === boom,
  );
  assert.deepEqual(seen, [0, 1]);
});
