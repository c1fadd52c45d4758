import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeltaFIFO, dedupDeltas } from './delta-fifo.ts';
import { EnqueueError, FIFOClosedError, RequeueError, type Deltas } from './delta.ts';
import { DeletedFinalStateUnknown } from './key-functions.ts';
import { newStore } from './store.ts';

interface Obj {
  metadata: { name: string; resourceVersion?: string };
  v?: number;
}
const o = (name: string, v = 0): Obj => ({ metadata: { name }, v });

/** Renders deltas compactly: "Type:name@v" or "Type:tomb(key,v)". */
function show(deltas: Deltas<Obj>): string[] {
  return deltas.map((d) => {
    const x = d.object;
    if (x instanceof DeletedFinalStateUnknown) return `${d.type}:tomb(${x.key},${x.obj === undefined ? '-' : String(x.obj.v)})`;
    return `${d.type}:${x.metadata.name}@${String(x.v)}`;
  });
}

async function popAll(fifo: DeltaFIFO<Obj>): Promise<[string[], boolean][]> {
  const out: [string[], boolean][] = [];
  while (fifo.listKeys().length > 0) await fifo.pop((d, initial) => out.push([show(d), initial]));
  return out;
}

test('DeltaFIFO accumulates every change of a key; the key keeps its first position', async () => {
  const fifo = new DeltaFIFO<Obj>();
  fifo.add(o('a', 1));
  fifo.add(o('b', 1));
  fifo.update(o('a', 2));
  fifo.delete(o('a', 3));
  assert.deepEqual(await popAll(fifo), [
    [['Added:a@1', 'Updated:a@2', 'Deleted:a@3'], false],
    [['Added:b@1'], false],
  ]);
});

test('dedupDeltas collapses only two trailing deletions, keeping the one with more information', () => {
  const del = (x: Obj | DeletedFinalStateUnknown<Obj>) => ({ type: 'Deleted' as const, object: x });
  const tomb = new DeletedFinalStateUnknown<Obj>('a', o('a', 9));
  const cases: [Deltas<Obj>, string[]][] = [
    [[del(o('a', 1)), del(o('a', 2))], ['Deleted:a@1']],
    [[del(tomb), del(o('a', 2))], ['Deleted:a@2']],
    [[del(o('a', 1)), del(tomb)], ['Deleted:a@1']],
    [[{ type: 'Updated', object: o('a', 1) }, { type: 'Updated', object: o('a', 2) }], ['Updated:a@1', 'Updated:a@2']],
    [[{ type: 'Added', object: o('a', 1) }, del(o('a', 2))], ['Added:a@1', 'Deleted:a@2']],
  ];
  for (const [input, expected] of cases) assert.deepEqual(show(dedupDeltas(input)), expected);
});

test('DeltaFIFO.delete of an object unknown to queue and knownObjects is suppressed', async () => {
  const known = newStore<Obj>();
  known.add(o('k', 1));
  const fifo = new DeltaFIFO<Obj>({ knownObjects: known });
  fifo.delete(o('nobody'));
  fifo.delete(o('k', 2));
  assert.deepEqual(await popAll(fifo), [[['Deleted:k@2'], false]]);
  const bare = new DeltaFIFO<Obj>();
  bare.delete(o('x'));
  assert.deepEqual(bare.listKeys(), []);
});

test('DeltaFIFO.replace without knownObjects: Sync per item, tombstones for queued keys missing from the list', async () => {
  const fifo = new DeltaFIFO<Obj>();
  fifo.add(o('gone', 1));
  fifo.add(o('kept', 1));
  fifo.replace([o('kept', 2), o('new', 1)], '10');
  assert.deepEqual(await popAll(fifo), [
    [['Added:gone@1', 'Deleted:tomb(gone,1)'], false],
    [['Added:kept@1', 'Sync:kept@2'], false],
    [['Sync:new@1'], false],
  ]);
});

test('DeltaFIFO.replace with knownObjects and emitDeltaTypeReplaced: Replaced deltas, tombstones with the known object', async () => {
  const known = newStore<Obj>();
  known.add(o('cached-gone', 5));
  known.add(o('cached-kept', 5));
  const fifo = new DeltaFIFO<Obj>({ knownObjects: known, emitDeltaTypeReplaced: true });
  fifo.replace([o('cached-kept', 6), o('fresh', 1)], '20');
  assert.equal(fifo.hasSynced(), false);
  const popped = await popAll(fifo);
  assert.deepEqual(popped, [
    [['Replaced:cached-kept@6'], true],
    [['Replaced:fresh@1'], true],
    [['Deleted:tomb(cached-gone,5)'], true],
  ]);
  assert.equal(fifo.hasSynced(), true);
});

test('DeltaFIFO.hasSynced: after the first replace is drained; isInInitialList only for those pops', async () => {
  const fifo = new DeltaFIFO<Obj>();
  assert.equal(fifo.hasSynced(), false);
  fifo.replace([o('a'), o('b')], '1');
  fifo.add(o('c'));
  const seen: boolean[] = [];
  await fifo.pop((_d, initial) => seen.push(initial));
  assert.equal(fifo.hasSynced(), false);
  await fifo.pop((_d, initial) => seen.push(initial));
  assert.equal(fifo.hasSynced(), true);
  await fifo.pop((_d, initial) => seen.push(initial));
  assert.deepEqual(seen, [true, true, false]);
  const early = new DeltaFIFO<Obj>();
  early.add(o('x'));
  assert.equal(early.hasSynced(), true);
});

test('DeltaFIFO.resync queues Sync only for known objects with nothing queued', async () => {
  const known = newStore<Obj>();
  known.add(o('a', 1));
  known.add(o('b', 1));
  const fifo = new DeltaFIFO<Obj>({ knownObjects: known });
  fifo.update(o('b', 2));
  fifo.resync();
  assert.deepEqual(await popAll(fifo), [
    [['Updated:b@2'], false],
    [['Sync:a@1'], false],
  ]);
  new DeltaFIFO<Obj>().resync();
});

test('DeltaFIFO.pop: RequeueError puts the deltas back; its cause rejects the pop; other errors drop them', async () => {
  const fifo = new DeltaFIFO<Obj>();
  fifo.add(o('a', 1));
  const item = await fifo.pop(() => {
    throw new RequeueError();
  });
  assert.deepEqual(show(item), ['Added:a@1']);
  assert.deepEqual(fifo.listKeys(), ['a']);
  const cause = new Error('try later');
  await assert.rejects(
    fifo.pop(() => {
      throw new RequeueError({ cause });
    }),
    (err) => err === cause,
  );
  assert.deepEqual(show(fifo.getByKey('a')!), ['Added:a@1']);
  await assert.rejects(
    fifo.pop(() => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.deepEqual(fifo.listKeys(), []);
});

test('DeltaFIFO.addIfNotPresent keeps newer deltas queued for the same key', async () => {
  const fifo = new DeltaFIFO<Obj>();
  fifo.add(o('a', 1));
  let popped: Deltas<Obj> = [];
  await fifo.pop((d) => (popped = d));
  fifo.update(o('a', 2));
  fifo.addIfNotPresent(popped);
  assert.deepEqual(show(fifo.getByKey('a')!), ['Updated:a@2']);
  await fifo.pop(() => {});
  fifo.addIfNotPresent(popped);
  assert.deepEqual(show(fifo.getByKey('a')!), ['Added:a@1']);
  assert.deepEqual(fifo.list(), [o('a', 1)]);
  assert.deepEqual(show(fifo.get(o('a'))!), ['Added:a@1']);
});

test('DeltaFIFO.pop waits for an item, and close() rejects waiting pops with FIFOClosedError', async () => {
  const fifo = new DeltaFIFO<Obj>();
  const waiting = fifo.pop(() => {});
  fifo.add(o('late'));
  assert.deepEqual(show(await waiting), ['Added:late@0']);
  const blocked = fifo.pop(() => {});
  fifo.close();
  assert.equal(fifo.isClosed(), true);
  await assert.rejects(blocked, FIFOClosedError);
  await assert.rejects(fifo.pop(() => {}), FIFOClosedError);
});

test('DeltaFIFO applies the transformer once to new objects, never to tombstones or resyncs', async () => {
  const calls: string[] = [];
  const known = newStore<Obj>();
  known.add(o('k', 1));
  const fifo = new DeltaFIFO<Obj>({
    knownObjects: known,
    transformer: (x) => {
      calls.push(x.metadata.name);
      return { ...x, v: (x.v ?? 0) + 100 };
    },
  });
  fifo.add(o('a', 1));
  fifo.resync();
  fifo.replace([o('b', 1)], '1');
  assert.deepEqual(calls, ['a', 'b']);
  assert.deepEqual(await popAll(fifo), [
    [['Added:a@101', 'Deleted:tomb(a,101)'], false],
    [['Sync:k@1', 'Deleted:tomb(k,1)'], false],
    [['Sync:b@101'], false],
  ]);
});

test('a knownObjects lookup that throws is not fatal: delete queues, replace leaves a tombstone without object, resync skips the key', async () => {
  const known = newStore<Obj>();
  known.add(o('a', 1));
  known.add(o('b', 1));
  const lookupErrors: string[] = [];
  const failing = {
    listKeys: () => known.listKeys(),
    getByKey: (key: string) => {
      if (key === 'a') throw new Error('lookup failed');
      return known.getByKey(key);
    },
  };
  const fifo = new DeltaFIFO<Obj>({ knownObjects: failing, onLookupError: (err, key) => lookupErrors.push(`${key}: ${(err as Error).message}`) });
  fifo.delete(o('a', 2));
  assert.deepEqual(show(fifo.getByKey('a')!), ['Deleted:a@2']);
  await popAll(fifo);
  fifo.replace([], '5');
  assert.deepEqual(sortedShow(fifo), ['Deleted:tomb(a,-)', 'Deleted:tomb(b,1)']);
  await popAll(fifo);
  fifo.resync();
  assert.deepEqual(sortedShow(fifo), ['Sync:b@1']);
  assert.deepEqual(lookupErrors, ['a: lookup failed', 'a: lookup failed']);
});

function sortedShow(fifo: DeltaFIFO<Obj>): string[] {
  return fifo.listKeys().flatMap((k) => show(fifo.getByKey(k)!)).sort();
}

test('DeltaFIFO.replace wraps a transformer error as upstream ("couldn\'t enqueue object: ..."); add lets it through (delta_fifo.go)', () => {
  const boom = new Error('bad object');
  const fifo = new DeltaFIFO<{ metadata: { name: string; namespace?: string } }>({
    transformer: (obj) => {
      if (obj.metadata.name === 'bad') throw boom;
      return obj;
    },
  });
  assert.throws(
    () => fifo.replace([{ metadata: { name: 'good' } }, { metadata: { name: 'bad' } }], '1'),
    (err: unknown) => err instanceof EnqueueError && err.code === 'ERR_CACHE_ENQUEUE' && err.message === "couldn't enqueue object: bad object" && err.cause === boom,
  );
  assert.throws(() => fifo.add({ metadata: { name: 'bad' } }), (err: unknown) => err === boom);
});
