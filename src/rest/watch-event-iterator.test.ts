import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchDecodeError } from './errors.ts';
import { WatchEventIterator, type WatchEventSource } from './watch-event-iterator.ts';

type Obj = { metadata: { name: string } };

const line = (type: string, name: string): string => `${JSON.stringify({ type, object: { metadata: { name } } })}\n`;

/** A scripted byte source: each step is a chunk (string) or a failure ({ fail }). */
function source(steps: Array<string | { fail: unknown }>, options: { stopped?: () => boolean; readError?: WatchEventSource['readError'] } = {}) {
  let i = 0;
  const log: string[] = [];
  const src: WatchEventSource = {
    chunks: {
      next: async () => {
        const step = steps[i++];
        if (step === undefined) return { done: true, value: undefined };
        if (typeof step !== 'string') throw step.fail;
        return { done: false, value: Buffer.from(step) };
      },
    },
    readError: options.readError ?? ((err, midEvent) => new Error(`read failed (midEvent=${midEvent})`, { cause: err })),
    stopped: options.stopped ?? (() => false),
    cleanup: () => void log.push('cleanup'),
  };
  return { src, log, reads: () => i };
}

async function drain(it: WatchEventIterator<Obj>): Promise<{ names: string[]; error: unknown }> {
  const names: string[] = [];
  try {
    for await (const e of it) names.push(`${e.type} ${(e.object as Obj).metadata.name}`);
    return { names, error: undefined };
  } catch (err) {
    return { names, error: err };
  }
}

test('WatchEventIterator yields every event of every chunk in order, lines split across chunks included, and cleans up once at the end', async () => {
  const whole = line('ADDED', 'a') + line('MODIFIED', 'a') + line('DELETED', 'b');
  const { src, log } = source([whole.slice(0, 10), whole.slice(10, 70), whole.slice(70)]);
  const it = new WatchEventIterator<Obj>(src);
  assert.deepEqual(await drain(it), { names: ['ADDED a', 'MODIFIED a', 'DELETED b'], error: undefined });
  assert.deepEqual(log, ['cleanup']);
  assert.deepEqual(await it.next(), { done: true, value: undefined });
  assert.deepEqual(log, ['cleanup']);
});

test('WatchEventIterator reads a new chunk only once the buffered events are consumed', async () => {
  const { src, reads } = source([line('ADDED', 'a') + line('ADDED', 'b'), line('ADDED', 'c')]);
  const it = new WatchEventIterator<Obj>(src);
  await it.next();
  assert.equal(reads(), 1);
  await it.next();
  assert.equal(reads(), 1);
  await it.next();
  assert.equal(reads(), 2);
});

test('WatchEventIterator hands out the events before a bad line, then throws the decode error once', async () => {
  const { src, log } = source([line('ADDED', 'a') + 'not json\n' + line('ADDED', 'b')]);
  const it = new WatchEventIterator<Obj>(src);
  const { names, error } = await drain(it);
  assert.deepEqual(names, ['ADDED a']);
  assert.ok(error instanceof WatchDecodeError);
  assert.deepEqual(log, ['cleanup']);
  assert.deepEqual(await it.next(), { done: true, value: undefined });
});

test('WatchEventIterator: a truncated last event is a decode error unless the consumer stopped the stream', async () => {
  const cut = line('ADDED', 'a') + line('ADDED', 'b').slice(0, 12);
  const failed = await drain(new WatchEventIterator<Obj>(source([cut]).src));
  assert.deepEqual(failed.names, ['ADDED a']);
  assert.ok(failed.error instanceof WatchDecodeError);
  const stopped = await drain(new WatchEventIterator<Obj>(source([cut], { stopped: () => true }).src));
  assert.deepEqual(stopped, { names: ['ADDED a'], error: undefined });
});

test('WatchEventIterator maps read failures through readError: an error is thrown after the buffered events, undefined ends cleanly', async () => {
  const boom = new Error('socket');
  const thrown = await drain(new WatchEventIterator<Obj>(source([line('ADDED', 'a') + line('ADDED', 'b').slice(0, 5), { fail: boom }]).src));
  assert.deepEqual(thrown.names, ['ADDED a']);
  assert.equal((thrown.error as Error).message, 'read failed (midEvent=true)');
  assert.equal((thrown.error as Error).cause, boom);
  const ended = await drain(new WatchEventIterator<Obj>(source([line('ADDED', 'a'), { fail: boom }], { readError: () => undefined }).src));
  assert.deepEqual(ended, { names: ['ADDED a'], error: undefined });
});

test('WatchEventIterator.return() cleans up and ends the iteration, dropping buffered events', async () => {
  const { src, log } = source([line('ADDED', 'a') + line('ADDED', 'b')]);
  const it = new WatchEventIterator<Obj>(src);
  assert.equal(((await it.next()).value as { object: Obj }).object.metadata.name, 'a');
  assert.deepEqual(await it.return(), { done: true, value: undefined });
  assert.deepEqual(log, ['cleanup']);
  assert.deepEqual(await it.next(), { done: true, value: undefined });
  assert.deepEqual(log, ['cleanup']);
});

test('WatchEventIterator keeps call order for concurrent next() calls', async () => {
  const { src } = source([line('ADDED', 'a'), line('ADDED', 'b') + line('ADDED', 'c')]);
  const it = new WatchEventIterator<Obj>(src);
  const results = await Promise.all([it.next(), it.next(), it.next(), it.next()]);
  assert.deepEqual(
    results.map((r) => (r.done === true ? 'done' : (r.value.object as Obj).metadata.name)),
    ['a', 'b', 'c', 'done'],
  );
});

test('nextBatch hands over every event of a chunk at once, mixes with next() in order, and is undefined at the end', async () => {
  const { src, log } = source([line('ADDED', 'a') + line('ADDED', 'b') + line('ADDED', 'c'), line('MODIFIED', 'a'), line('DELETED', 'b') + line('ADDED', 'd')]);
  const it = new WatchEventIterator<Obj>(src);
  const names = (batch: ReadonlyArray<{ type: string; object: unknown }> | undefined): string[] | undefined => batch?.map((e) => `${e.type} ${(e.object as Obj).metadata.name}`);
  const first = await it.next();
  assert.equal(first.done === true ? 'done' : (first.value.object as Obj).metadata.name, 'a');
  assert.deepEqual(names(await it.nextBatch()), ['ADDED b', 'ADDED c']);
  assert.deepEqual(names(await it.nextBatch()), ['MODIFIED a']);
  assert.deepEqual(names(await it.nextBatch()), ['DELETED b', 'ADDED d']);
  assert.equal(await it.nextBatch(), undefined);
  assert.deepEqual(log, ['cleanup']);
});

test('nextBatch: the events decoded before a failure come first, then the failure, once', async () => {
  const { src } = source([line('ADDED', 'a') + line('ADDED', 'b') + 'not json\n']);
  const it = new WatchEventIterator<Obj>(src);
  const batch = await it.nextBatch();
  assert.deepEqual(batch?.map((e) => (e.object as Obj).metadata.name), ['a', 'b']);
  await assert.rejects(it.nextBatch(), (err) => err instanceof WatchDecodeError);
  assert.equal(await it.nextBatch(), undefined);
});
