import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../clock/clock.ts';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.ts';
import { RateLimitingQueue } from './rate-limiting-queue.ts';
import { InvalidConcurrencyError, runWorkers } from './run-workers.ts';

const turns = async (n = 3): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

function newQueue(clock: FakeClock): RateLimitingQueue<string> {
  return new RateLimitingQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000) });
}

describe('runWorkers', () => {
  test('processes items, forgets them on success and exits once the queue is shut down and empty', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const seen: string[] = [];
    for (const k of ['a', 'b', 'c']) q.add(k);
    const running = runWorkers(q, { concurrency: 2 }, (k) => {
      seen.push(k);
    });
    await turns();
    assert.deepEqual(seen, ['a', 'b', 'c']);
    assert.equal(q.numRequeues('a'), 0);
    q.shutDown();
    await running;
  });

  test('requeues failures with backoff, reports each error, and forgets on the first success', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const attempts: number[] = [];
    const errors: [string, string][] = [];
    const start = clock.now();
    q.add('flaky');
    const running = runWorkers(
      q,
      { onError: (err, item) => errors.push([(err as Error).message, item]) },
      async (k) => {
        attempts.push(clock.now() - start);
        if (attempts.length <= 3) throw new Error(`attempt ${attempts.length} of ${k} failed`);
      },
    );
    await turns();
    for (let i = 0; i < 3; i++) await clock.stepToNextTimer();
    await turns();
    assert.deepEqual(attempts, [0, 5, 15, 35]);
    assert.deepEqual(errors, [
      ['attempt 1 of flaky failed', 'flaky'],
      ['attempt 2 of flaky failed', 'flaky'],
      ['attempt 3 of flaky failed', 'flaky'],
    ]);
    assert.equal(q.numRequeues('flaky'), 0, 'forgotten after success');
    q.shutDown();
    await running;
  });

  test('reports errors with console.error by default, and survives a throwing reporter', async (t) => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const logged = t.mock.method(console, 'error', () => {});
    q.add('ns/x');
    const running = runWorkers(q, {}, () => {
      throw new Error('boom');
    });
    await turns();
    assert.equal(logged.mock.callCount(), 1);
    assert.match(String(logged.mock.calls[0]!.arguments[0]), /"ns\/x"/);
    assert.equal(q.numRequeues('ns/x'), 1);
    q.shutDown();
    await running;

    const q2 = newQueue(clock);
    q2.add('y');
    const running2 = runWorkers(
      q2,
      {
        onError: () => {
          throw new Error('reporter failed');
        },
      },
      () => Promise.reject(new Error('boom')),
    );
    await turns();
    assert.equal(q2.numRequeues('y'), 1, 'still requeued');
    q2.shutDown();
    await running2;
  });

  test('an item re-added while it is processed runs again afterwards, never concurrently', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const release: (() => void)[] = [];
    q.add('k');
    const running = runWorkers(q, { concurrency: 4 }, async () => {
      runs++;
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise<void>((r) => release.push(r));
      active--;
    });
    await turns();
    q.add('k');
    q.add('k');
    await turns();
    assert.equal(runs, 1);
    release.shift()!();
    await turns();
    assert.equal(runs, 2);
    release.shift()!();
    await turns();
    assert.equal(runs, 2);
    assert.equal(maxActive, 1);
    q.shutDown();
    await running;
  });

  test('abort shuts the queue down, starts nothing new, and resolves once in-flight work is done', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const controller = new AbortController();
    const started: string[] = [];
    let finish!: () => void;
    for (const k of ['a', 'b', 'c']) q.add(k);
    let stopped = false;
    const running = runWorkers(q, { concurrency: 1, signal: controller.signal }, async (k) => {
      started.push(k);
      await new Promise<void>((r) => (finish = r));
    }).then(() => (stopped = true));
    await turns();
    controller.abort();
    assert.equal(q.shuttingDown(), true);
    await turns();
    assert.equal(stopped, false, 'waits for the item in flight');
    finish();
    await running;
    assert.deepEqual(started, ['a']);
  });

  test('a handler that keeps re-adding its own item does not starve the event loop', async () => {
    const q = newQueue(new FakeClock());
    const limit = 10_000;
    let runs = 0;
    let runsWhenLoopTurned = -1;
    setImmediate(() => (runsWhenLoopTurned = runs));
    q.add('self');
    const running = runWorkers(q, {}, (k) => {
      runs++;
      if (runs < limit) q.add(k);
    });
    while (runs < limit) await new Promise<void>((r) => setImmediate(r));
    assert.ok(runsWhenLoopTurned >= 0 && runsWhenLoopTurned < limit, `event loop first turned after ${runsWhenLoopTurned} runs`);
    q.shutDown();
    await running;
  });

  test('an already aborted signal stops at once', async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.add('a');
    const seen: string[] = [];
    await runWorkers(q, { signal: AbortSignal.abort(), concurrency: 3 }, (k) => {
      seen.push(k);
    });
    assert.deepEqual(seen, []);
    assert.equal(q.shuttingDown(), true);
  });

  for (const concurrency of [0, -1, 1.5, NaN]) {
    test(`rejects concurrency ${concurrency}`, async () => {
      const q = newQueue(new FakeClock());
      await assert.rejects(
        runWorkers(q, { concurrency }, () => {}),
        (err: unknown) => err instanceof InvalidConcurrencyError && err.code === 'ERR_INVALID_CONCURRENCY',
      );
      q.shutDown();
    });
  }
});
