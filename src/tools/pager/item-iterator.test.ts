import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ItemIterator, ItemIteratorClosedError } from './item-iterator.ts';

const drain = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

test('items come out in order, and the producer waits until the consumer took each batch', async () => {
  const log: string[] = [];
  const it = new ItemIterator<number>(async (deliver) => {
    for (const batch of [[1, 2], [3], [4, 5, 6]]) {
      log.push(`deliver ${batch.join(',')}`);
      await deliver(batch);
      log.push(`taken ${batch.join(',')}`);
    }
  });
  const seen: number[] = [];
  for await (const n of it) {
    seen.push(n);
    log.push(`consume ${n}`);
  }
  assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
  // A batch is released only after its last item was consumed and the next one asked for.
  assert.deepEqual(log, ['deliver 1,2', 'consume 1', 'consume 2', 'taken 1,2', 'deliver 3', 'consume 3', 'taken 3', 'deliver 4,5,6', 'consume 4', 'consume 5', 'consume 6', 'taken 4,5,6']);
});

test('a producer failure is raised after the items delivered before it, once', async () => {
  const failure = new Error('connection reset');
  const it = new ItemIterator<number>(async (deliver) => {
    await deliver([1, 2]);
    throw failure;
  });
  const seen: number[] = [];
  await assert.rejects(async () => {
    for await (const n of it) seen.push(n);
  }, (err) => err === failure);
  assert.deepEqual(seen, [1, 2]);
  assert.deepEqual(await it.next(), { done: true, value: undefined });
});

test('breaking out aborts the producer and releases it; later calls are done', async () => {
  let signalSeen: AbortSignal | undefined;
  let released = false;
  const it = new ItemIterator<number>(async (deliver, signal) => {
    signalSeen = signal;
    await deliver([1, 2, 3]);
    released = true;
    await deliver([4]);
  });
  for await (const n of it) if (n === 2) break;
  assert.ok(signalSeen?.aborted);
  assert.ok(signalSeen.reason instanceof ItemIteratorClosedError);
  await new Promise((r) => setImmediate(r));
  assert.ok(released);
  assert.deepEqual(await it.next(), { done: true, value: undefined });
});

test('the caller signal aborts the producer; iteration fails with the reason, unchanged', async () => {
  const controller = new AbortController();
  const reason = new Error('shutting down');
  const it = new ItemIterator<number>(
    (deliver, signal) =>
      new Promise<void>((resolve, reject) => {
        void deliver([1]);
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      }),
    controller.signal,
  );
  const first = await it.next();
  assert.deepEqual(first, { done: false, value: 1 });
  controller.abort(reason);
  await assert.rejects(it.next(), (err) => err === reason);
});

test('an empty producer ends the iteration at once', async () => {
  assert.deepEqual(await drain(new ItemIterator<number>(async () => undefined)), []);
});
