import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FakeClock } from '../clock/clock.ts';
import { ItemFastSlowRateLimiter } from './item-fast-slow-rate-limiter.ts';
import { Queue } from './queue.ts';
import { RateLimitingQueue } from './rate-limiting-queue.ts';
import { runWorkers } from './run-workers.ts';

const turn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));

/**
 * A direct transcription of upstream's queue (a slice plus dirty and processing sets) with workers
 * blocked in Get served in arrival order: the reference the real queue is compared with.
 */
class ModelQueue {
  queue: string[] = [];
  dirty = new Set<string>();
  processing = new Set<string>();
  waiting: number[] = [];
  holding = new Map<number, string>();
  exited = new Set<number>();
  shuttingDown = false;
  handedOut: [number, string][] = [];

  get(w: number): void {
    if (this.queue.length > 0) this.#hand(w);
    else if (this.shuttingDown) this.exited.add(w);
    else this.waiting.push(w);
  }

  add(k: string): void {
    if (this.shuttingDown || this.dirty.has(k)) return;
    this.dirty.add(k);
    if (this.processing.has(k)) return;
    this.queue.push(k);
    this.#serve();
  }

  done(w: number): void {
    const k = this.holding.get(w)!;
    this.holding.delete(w);
    this.processing.delete(k);
    if (this.dirty.has(k)) {
      this.queue.push(k);
      this.#serve();
    }
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting) this.exited.add(w);
    this.waiting = [];
  }

  #serve(): void {
    while (this.waiting.length > 0 && this.queue.length > 0) this.#hand(this.waiting.shift()!);
  }

  #hand(w: number): void {
    const k = this.queue.shift()!;
    this.processing.add(k);
    this.dirty.delete(k);
    this.holding.set(w, k);
    this.handedOut.push([w, k]);
  }
}

type Command = { op: 'add'; key: string } | { op: 'done'; worker: number } | { op: 'shutDown' };

const command = (workers: number): fc.Arbitrary<Command> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom('a', 'b', 'c', 'd', 'e').map((key) => ({ op: 'add', key }) as const) },
    { weight: 4, arbitrary: fc.integer({ min: 0, max: workers - 1 }).map((worker) => ({ op: 'done', worker }) as const) },
    { weight: 1, arbitrary: fc.constant({ op: 'shutDown' } as const) },
  );

describe('Queue under random interleavings', () => {
  test('matches upstream semantics exactly, never hands one item to two workers and never loses one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }).chain((workers) => fc.tuple(fc.constant(workers), fc.array(command(workers), { maxLength: 60 }))),
        async ([workers, commands]) => {
          const q = new Queue<string>();
          const model = new ModelQueue();
          const holding = new Map<number, string>();
          const exited = new Set<number>();
          const handedOut: [number, string][] = [];
          const lastAdd = new Map<string, number>();
          const lastStart = new Map<string, number>();
          let step = 0;

          const get = (w: number): void => {
            model.get(w);
            void q.get().then((r) => {
              if (r.shutdown) {
                exited.add(w);
                return;
              }
              for (const [other, k] of holding) assert.notEqual(k, r.item, `worker ${w} got ${r.item} while worker ${other} holds it`);
              holding.set(w, r.item);
              handedOut.push([w, r.item]);
              lastStart.set(r.item, step);
            });
          };
          const done = (w: number): void => {
            const k = holding.get(w);
            if (k === undefined) return;
            holding.delete(w);
            model.done(w);
            q.done(k);
            get(w);
          };
          const check = (): void => {
            assert.equal(q.len(), model.queue.length);
            assert.deepEqual(handedOut, model.handedOut);
            assert.deepEqual([...exited].sort(), [...model.exited].sort());
          };

          for (let w = 0; w < workers; w++) get(w);
          await turn();
          for (const c of commands) {
            step++;
            if (c.op === 'add') {
              if (!q.shuttingDown()) lastAdd.set(c.key, step);
              model.add(c.key);
              q.add(c.key);
            } else if (c.op === 'done') {
              done(c.worker);
            } else {
              model.shutDown();
              q.shutDown();
            }
            await turn();
            check();
          }
          // Let every worker finish whatever it holds until nothing is left.
          step++;
          while (holding.size > 0) {
            for (const w of [...holding.keys()]) done(w);
            await turn();
            check();
          }
          for (const [k, added] of lastAdd) {
            assert.ok((lastStart.get(k) ?? -1) >= added, `${k} added at step ${added} was not processed afterwards`);
          }
          q.shutDown();
          await turn();
          assert.equal(exited.size, workers);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('runWorkers with random failures processes every item after its last add, one worker per item at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.boolean(), fc.nat(3)), { minLength: 1, maxLength: 40 }),
        async (concurrency, script) => {
          const clock = new FakeClock();
          const q = new RateLimitingQueue<string>({ clock, rateLimiter: new ItemFastSlowRateLimiter<string>(1, 10, 2) });
          const active = new Set<string>();
          // Recorded rather than thrown: runWorkers would treat a throw as a processing failure.
          const overlaps: string[] = [];
          const failures = script.map(([, fail]) => fail);
          let run = 0;
          const lastAdd = new Map<string, number>();
          const lastSuccess = new Map<string, number>();
          let step = 0;
          const running = runWorkers(q, { concurrency, onError: () => {} }, async (k) => {
            if (active.has(k)) overlaps.push(k);
            active.add(k);
            const fail = failures[run++] ?? false; // later attempts succeed
            await turn();
            active.delete(k);
            if (fail) throw new Error('transient');
            lastSuccess.set(k, step);
          });
          for (const [key, , pause] of script) {
            step++;
            lastAdd.set(key, step);
            q.add(key);
            for (let i = 0; i < pause; i++) await turn();
          }
          step++;
          // Failed items come back after 1 ms (then 10 ms); keep time moving until everything succeeded.
          for (let i = 0; i < 200 && [...lastAdd].some(([k, a]) => (lastSuccess.get(k) ?? -1) < a); i++) {
            await clock.step(10);
            await turn();
          }
          assert.deepEqual(overlaps, [], 'items processed by two workers at once');
          for (const [k, added] of lastAdd) assert.ok((lastSuccess.get(k) ?? -1) >= added, `${k} lost`);
          q.shutDown();
          await running;
        },
      ),
      { numRuns: 100 },
    );
  });
});
