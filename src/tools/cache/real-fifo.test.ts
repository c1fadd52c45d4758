import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RealFIFO } from './real-fifo.ts';
import { FIFOClosedError, type Delta } from './delta.ts';
import { DeletedFinalStateUnknown } from './key-functions.ts';
import { newStore } from './store.ts';
import { RingBuffer } from './ring-buffer.ts';

interface Obj {
  metadata: { name: string };
  v?: number;
}
const o = (name: string, v = 0): Obj => ({ metadata: { name }, v });

function show(deltas: Delta<Obj>[]): string[] {
  return deltas.map((d) => {
    if (d.type === 'ReplacedAll') return `ReplacedAll@${d.object.resourceVersion}[${d.object.objects.map((x) => `${x.metadata.name}@${String(x.v)}`).join(',')}]`;
    if (d.type === 'SyncAll') return 'SyncAll';
    if (d.type === 'Bookmark') return `Bookmark@${d.object.resourceVersion}`;
    const x = d.object;
    if (x instanceof DeletedFinalStateUnknown) return `${d.type}:tomb(${x.key},${x.obj === undefined ? '-' : String(x.obj.v)})`;
    return `${d.type}:${x.metadata.name}@${String(x.v)}`;
  });
}

async function drainBatches(fifo: RealFIFO<Obj>): Promise<[string[], boolean][]> {
  const out: [string[], boolean][] = [];
  while (fifo.length > 0) await fifo.popBatch((d, initial) => out.push([show(d), initial]));
  return out;
}

test('RealFIFO hands out every delta in arrival order, with no per-key merging', async () => {
  const fifo = new RealFIFO<Obj>();
  fifo.add(o('a', 1));
  fifo.update(o('a', 2));
  fifo.add(o('b', 1));
  fifo.delete(o('a', 3));
  const popped: string[][] = [];
  while (fifo.length > 0) await fifo.pop((d) => popped.push(show(d)));
  assert.deepEqual(popped, [['Added:a@1'], ['Updated:a@2'], ['Added:b@1'], ['Deleted:a@3']]);
});

test('RealFIFO.popBatch: unique keys per batch, batch size cap, unbatchable items alone', async () => {
  const fifo = new RealFIFO<Obj>({ batchSize: 3 });
  fifo.add(o('a', 1));
  fifo.add(o('b', 1));
  fifo.update(o('a', 2));
  fifo.add(o('c', 1));
  fifo.add(o('d', 1));
  fifo.add(o('e', 1));
  fifo.add(o('f', 1));
  fifo.resync();
  fifo.add(o('g', 1));
  assert.deepEqual(await drainBatches(fifo), [
    [['Added:a@1', 'Added:b@1'], false],
    [['Updated:a@2', 'Added:c@1', 'Added:d@1'], false],
    [['Added:e@1', 'Added:f@1'], false],
    [['SyncAll'], false],
    [['Added:g@1'], false],
  ]);
});

test('RealFIFO (atomic) queues a relist as one ReplacedAll item and a resync as one SyncAll item', async () => {
  const fifo = new RealFIFO<Obj>({ transformer: (x) => ({ ...x, v: (x.v ?? 0) + 10 }) });
  fifo.replace([o('a', 1), o('b', 1)], '7');
  fifo.add(o('c', 1));
  fifo.resync();
  assert.equal(fifo.hasSynced(), false);
  const out = await drainBatches(fifo);
  assert.deepEqual(out, [
    [['ReplacedAll@7[a@11,b@11]'], true],
    [['Added:c@11'], false],
    [['SyncAll'], false],
  ]);
  assert.equal(fifo.hasSynced(), true);
});

test('RealFIFO (atomic) queues a watch bookmark as one Bookmark item behind the events before it; a non-atomic queue ignores it', async () => {
  const fifo = new RealFIFO<Obj>();
  fifo.replace([o('a', 1)], '7');
  fifo.add(o('b', 1));
  fifo.update(o('a', 2));
  fifo.bookmark('9');
  fifo.add(o('c', 1));
  assert.deepEqual(await drainBatches(fifo), [
    [['ReplacedAll@7[a@1]'], true],
    [['Added:b@1', 'Updated:a@2'], false],
    [['Bookmark@9'], false],
    [['Added:c@1'], false],
  ]);
  const plain = new RealFIFO<Obj>({ atomicEvents: false, knownObjects: newStore<Obj>() });
  plain.add(o('a', 1));
  plain.bookmark('9');
  assert.deepEqual(await drainBatches(plain), [[['Added:a@1'], false]]);
});

test('RealFIFO (non-atomic) replace: tombstones for vanished queued and known keys, then Replaced in list order', async () => {
  const known = newStore<Obj>();
  known.add(o('known-gone', 5));
  known.add(o('known-kept', 5));
  known.add(o('queued-and-known', 5));
  const fifo = new RealFIFO<Obj>({ atomicEvents: false, knownObjects: known });
  fifo.add(o('queued-gone', 1));
  fifo.update(o('queued-gone', 2));
  fifo.delete(o('queued-deleted', 1));
  fifo.update(o('queued-and-known', 6));
  fifo.replace([o('known-kept', 6), o('new', 1)], '9');
  const all: string[] = [];
  while (fifo.length > 0) await fifo.pop((d) => all.push(...show(d)));
  assert.deepEqual(all, [
    'Added:queued-gone@1',
    'Updated:queued-gone@2',
    'Deleted:queued-deleted@1',
    'Updated:queued-and-known@6',
    'Deleted:tomb(queued-gone,2)',
    'Deleted:tomb(queued-and-known,6)',
    'Deleted:tomb(known-gone,5)',
    'Replaced:known-kept@6',
    'Replaced:new@1',
  ]);
});

test('RealFIFO (non-atomic) resync: Sync for known objects with nothing queued', async () => {
  const known = newStore<Obj>();
  known.add(o('a', 1));
  known.add(o('b', 1));
  const fifo = new RealFIFO<Obj>({ atomicEvents: false, knownObjects: known });
  fifo.update(o('a', 2));
  fifo.resync();
  const all: string[] = [];
  while (fifo.length > 0) await fifo.pop((d) => all.push(...show(d)));
  assert.deepEqual(all, ['Updated:a@2', 'Sync:b@1']);
});

test('RealFIFO batches never cross the end of the initial list', async () => {
  const known = newStore<Obj>();
  const fifo = new RealFIFO<Obj>({ atomicEvents: false, knownObjects: known });
  fifo.replace([o('a'), o('b')], '1');
  fifo.add(o('c'));
  assert.deepEqual(await drainBatches(fifo), [
    [['Replaced:a@0', 'Replaced:b@0'], true],
    [['Added:c@0'], false],
  ]);
});

test('RealFIFO options are validated as upstream', () => {
  assert.throws(() => new RealFIFO<Obj>({ knownObjects: newStore<Obj>() }), TypeError);
  assert.throws(() => new RealFIFO<Obj>({ atomicEvents: false }), TypeError);
});

test('RealFIFO pops wait for items and reject with FIFOClosedError after close', async () => {
  const fifo = new RealFIFO<Obj>();
  const waiting = fifo.popBatch(() => {});
  fifo.add(o('x'));
  assert.equal(await waiting, 1);
  const blocked = fifo.pop(() => {});
  fifo.close();
  await assert.rejects(blocked, FIFOClosedError);
  assert.equal(fifo.isClosed(), true);
});

test('RingBuffer keeps FIFO order across growth and wrap-around', () => {
  const ring = new RingBuffer<number>(2);
  const model: number[] = [];
  let next = 0;
  for (let round = 0; round < 200; round++) {
    const pushes = (round * 7) % 5;
    for (let i = 0; i < pushes; i++) {
      ring.push(next);
      model.push(next++);
    }
    const shifts = (round * 3) % 4;
    for (let i = 0; i < shifts; i++) assert.equal(ring.shift(), model.shift());
    assert.equal(ring.length, model.length);
    assert.deepEqual([...ring], model);
    assert.equal(ring.at(0), model[0]);
  }
  assert.equal(ring.at(-1), undefined);
});

test('RealFIFO (atomic) refuses a relist holding an object without a key, leaving the queue unsynced', () => {
  const fifo = new RealFIFO<Obj>();
  const bad = { v: 1 } as unknown as Obj;
  assert.throws(() => fifo.replace([o('a'), bad], '7'), { name: 'KeyError' });
  assert.equal(fifo.length, 0, 'nothing was queued');
  assert.equal(fifo.hasSynced(), false, 'a refused list does not count as the initial population');
  fifo.replace([o('a')], '8');
  assert.equal(fifo.length, 1);
});

test('RealFIFO.beginReplace transforms each batch as it arrives, queues nothing before the commit, then one ReplacedAll as replace() would', async () => {
  const transformed: string[] = [];
  const fifo = new RealFIFO<Obj>({ transformer: (x) => (transformed.push(x.metadata.name), { ...x, v: (x.v ?? 0) + 10 }) });
  fifo.add(o('z', 1));
  const tx = fifo.beginReplace();
  tx.add([o('a', 1), o('b', 2)]);
  assert.deepEqual(transformed, ['z', 'a', 'b']);
  tx.add([o('c', 3)]);
  assert.equal(fifo.length, 1);
  tx.commit('7');
  assert.throws(() => tx.add([o('d', 4)]), TypeError);
  assert.throws(() => tx.commit('8'), TypeError);
  assert.deepEqual(await drainBatches(fifo), [
    [['Added:z@11'], false],
    [['ReplacedAll@7[a@11,b@12,c@13]'], false],
  ]);
  // A transaction dropped without a commit leaves no trace; one refusing a keyless object throws.
  const other = fifo.beginReplace();
  other.add([o('x', 1)]);
  assert.throws(() => other.add([o('y', 1), { v: 1 } as unknown as Obj]), { name: 'KeyError' });
  assert.equal(fifo.length, 0);
});

test('RealFIFO.beginReplace on a queue without atomic events commits through replace(): tombstones, then Replaced deltas', async () => {
  const known = newStore<Obj>();
  known.add(o('gone', 1));
  const fifo = new RealFIFO<Obj>({ atomicEvents: false, knownObjects: known });
  const tx = fifo.beginReplace();
  tx.add([o('a', 1)]);
  tx.add([o('b', 2)]);
  assert.equal(fifo.length, 0);
  tx.commit('5');
  assert.deepEqual(await drainBatches(fifo), [[['Deleted:tomb(gone,1)', 'Replaced:a@1', 'Replaced:b@2'], true]]);
});
