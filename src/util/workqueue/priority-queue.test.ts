import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../clock/clock.ts';
import { LowPriority, PriorityQueue } from './priority-queue.ts';

async function drain(q: PriorityQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const next = await q.getWithPriority();
    if (next.shutdown) break;
    out.push(`${next.item}@${next.priority}`);
    q.done(next.item);
  }
  return out;
}

test('PriorityQueue hands out higher priorities first, then in order of first add', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  q.addWithOpts({ priority: LowPriority }, 'a', 'b', 'c');
  q.add('x');
  q.addWithOpts({ priority: 10 }, 'y');
  // Re-adding keeps the higher priority and the original position among equals.
  q.addWithOpts({ priority: LowPriority }, 'x');
  q.add('b');
  assert.equal(q.len(), 5);
  assert.deepEqual(await drain(q), ['y@10', 'b@0', 'x@0', 'a@-100', 'c@-100']);
});

test('PriorityQueue delays items, keeps the sooner ready time, and rate-limits', async () => {
  const clock = new FakeClock();
  const q = new PriorityQueue<string>({ clock });
  q.addAfter('a', 1000);
  q.addAfter('a', 200);
  q.addAfter('a', 5000);
  q.addRateLimited('b'); // 5 ms
  q.addRateLimited('b');
  assert.equal(q.numRequeues('b'), 2);
  assert.equal(q.len(), 0);
  const got: string[] = [];
  const getter = (async () => {
    for (let i = 0; i < 2; i++) {
      const n = await q.get();
      if (!n.shutdown) {
        got.push(`${n.item}@${clock.now() - new FakeClock().now()}`);
        q.done(n.item);
      }
    }
  })();
  await clock.step(5);
  await clock.step(195);
  await getter;
  assert.deepEqual(got, ['b@5', 'a@200']);
  q.forget('b');
  assert.equal(q.numRequeues('b'), 0);
});

test('PriorityQueue never hands out an item being processed; a re-add waits for done', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  q.add('a');
  const first = await q.get();
  assert.equal(first.item, 'a');
  q.add('a');
  q.add('b');
  const second = await q.get();
  assert.equal(second.item, 'b');
  assert.equal(q.len(), 0);
  let third: string | undefined;
  const pending = q.get().then((r) => (third = r.item));
  await new Promise<void>((r) => setImmediate(r));
  assert.equal(third, undefined);
  q.done('a');
  await pending;
  assert.equal(third, 'a');
});

test('PriorityQueue shutdown releases waiting getters and refuses adds', async () => {
  const q = new PriorityQueue<string>({ clock: new FakeClock() });
  const waiting = q.get();
  q.shutDown();
  assert.deepEqual(await waiting, { shutdown: true, priority: 0 });
  q.add('a');
  assert.equal(q.len(), 0);
  assert.equal(q.shuttingDown(), true);
});
