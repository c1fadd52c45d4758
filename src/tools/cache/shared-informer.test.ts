import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/clock.ts';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import type { KubeList } from '../../apimachinery/object.ts';
import type { ObjectMeta } from '../../api/meta/v1.ts';
import { FakeListerWatcher, FakeWatch } from './testing/fake-lister-watcher.ts';
import { InformerStateError, InvalidRegistrationError, SharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.ts';
import type { ResourceEventHandler } from './event-handlers.ts';
import { DeletedFinalStateUnknown } from './key-functions.ts';
import { stripManagedFields } from './transforms.ts';

interface Pod {
  metadata: ObjectMeta & { name: string };
  spec?: { node?: string };
}
const pod = (name: string, rv: string, extra: Partial<Pod> = {}): Pod => ({ metadata: { namespace: 'ns', name, resourceVersion: rv }, ...extra });
const list = (rv: string, items: Pod[]): KubeList<Pod> => ({ metadata: { resourceVersion: rv }, items });
const gone = newStatus(410, 'Expired', 'too old');

async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A handler recording every notification as "add a@1 initial", "update a@1->a@2", "delete tomb(ns/a)@1". */
function recorder(log: string[] = []): ResourceEventHandler<Pod> & { log: string[] } {
  const show = (p: Pod | DeletedFinalStateUnknown<Pod>): string =>
    p instanceof DeletedFinalStateUnknown ? `tomb(${p.key})@${p.obj?.metadata.resourceVersion ?? '-'}` : `${p.metadata.name}@${p.metadata.resourceVersion ?? ''}`;
  return {
    log,
    onAdd: (obj, initial) => void log.push(`add ${show(obj)}${initial ? ' initial' : ''}`),
    onUpdate: (o, n) => void log.push(`update ${show(o)}->${show(n)}`),
    onDelete: (obj) => void log.push(`delete ${show(obj)}`),
  };
}

function setup(options: SharedIndexInformerOptions<Pod> = {}, streamBatchSize?: number) {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Pod>({ watchListUnsupported: true, ...(streamBatchSize === undefined ? {} : { streamBatchSize }) });
  const errors: unknown[] = [];
  const informer = new SharedIndexInformer<Pod>(lw, {
    clock,
    objectDescription: 'pods',
    onHandlerError: (err) => errors.push(err),
    reflector: { random: () => 0.5, backoffManager: { nextDelay: () => 1000 } },
    ...options,
  });
  const stop = new AbortController();
  const start = (): Promise<void> => informer.run({ signal: stop.signal });
  return { clock, lw, informer, errors, stop, start };
}

test('SharedIndexInformer delivers the initial list as adds in list order, then watch events in order', async () => {
  const { lw, informer, stop, start } = setup();
  const h = recorder();
  const reg = informer.addEventHandler(h);
  lw.pushList(list('10', [pod('a', '1'), pod('b', '2')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  assert.equal(informer.hasSynced(), false);
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  assert.equal(informer.hasSynced(), true);
  assert.equal(reg.hasSynced(), true);
  w.add(pod('c', '11')).modify(pod('a', '12')).delete(pod('b', '13')).bookmark('14');
  await flush();
  assert.deepEqual(h.log, ['add a@1 initial', 'add b@2 initial', 'add c@11', 'update a@1->a@12', 'delete b@13']);
  assert.deepEqual(informer.getStore().listKeys().sort(), ['ns/a', 'ns/c']);
  assert.equal(informer.lastSyncResourceVersion(), '14');
  assert.deepEqual(informer.getIndexer().indexKeys('namespace', 'ns').sort(), ['ns/a', 'ns/c']);
  stop.abort();
  await running;
  assert.equal(informer.isStopped(), true);
});

test('SharedIndexInformer.lastStoreSyncResourceVersion: the list’s version, then each applied event’s, then a watch bookmark’s (client-go 1.36 Bookmark deltas)', async () => {
  const { lw, informer, stop, start } = setup();
  const seen: string[] = [];
  // What handlers see when they are called.
  const note = (): void => {
    seen.push(informer.lastStoreSyncResourceVersion());
  };
  informer.addEventHandler({ onAdd: note, onUpdate: note, onDelete: note });
  assert.equal(informer.lastStoreSyncResourceVersion(), '');
  lw.pushList(list('10', [pod('a', '1'), pod('b', '2')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  assert.equal(informer.lastStoreSyncResourceVersion(), '10');
  w.add(pod('c', '11')).modify(pod('a', '12'));
  await flush();
  assert.equal(informer.lastStoreSyncResourceVersion(), '12');
  // A bookmark moves it on with no event: nothing changed up to 14.
  w.bookmark('14');
  await flush();
  assert.equal(informer.lastStoreSyncResourceVersion(), '14');
  assert.equal(informer.lastSyncResourceVersion(), '14');
  w.delete(pod('b', '15')).bookmark('16');
  await flush();
  assert.equal(informer.lastStoreSyncResourceVersion(), '16');
  assert.deepEqual(seen, ['10', '10', '11', '12', '15']);
  stop.abort();
  await running;
});

test('SharedIndexInformer relist after 410: deletes (tombstones with the cached object) for vanished objects, then the list in order', async () => {
  const { clock, lw, informer, stop, start } = setup();
  const h = recorder();
  informer.addEventHandler(h);
  lw.pushList(list('10', [pod('a', '1'), pod('b', '2'), pod('c', '3')]));
  lw.pushWatch(new FakeWatch<Pod>()).modify(pod('b', '11')).error(gone);
  // Meanwhile a was deleted and c changed; b is unchanged since the watch saw it.
  lw.pushList(list('20', [pod('d', '15'), pod('c', '16'), pod('b', '11')]));
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  await clock.step(1000);
  await lw.waitForCalls({ list: 2, watch: 2 });
  await flush();
  assert.deepEqual(
    lw.listCalls.map((c) => c.resourceVersion),
    ['0', '11'],
  );
  assert.deepEqual(h.log, [
    'add a@1 initial',
    'add b@2 initial',
    'add c@3 initial',
    'update b@2->b@11',
    'delete tomb(ns/a)@1',
    'add d@15',
    'update c@3->c@16',
    'update b@11->b@11',
  ]);
  assert.deepEqual(informer.getStore().listKeys().sort(), ['ns/b', 'ns/c', 'ns/d']);
  stop.abort();
  await running;
});

test('SharedIndexInformer: a handler added after start first gets the cached objects as initial adds', async () => {
  const { lw, informer, stop, start } = setup();
  lw.pushList(list('10', [pod('a', '1'), pod('b', '2')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  const late = recorder();
  const reg = informer.addEventHandler(late);
  assert.equal(reg.hasSynced(), false);
  w.add(pod('c', '11'));
  await flush();
  assert.equal(reg.hasSynced(), true);
  assert.deepEqual(late.log.slice(0, 2).sort(), ['add a@1 initial', 'add b@2 initial']);
  assert.deepEqual(late.log.slice(2), ['add c@11']);
  stop.abort();
  await running;
});

test('SharedIndexInformer.removeEventHandler stops notifications to that handler only', async () => {
  const { lw, informer, stop, start } = setup();
  const kept = recorder();
  const removed = recorder();
  informer.addEventHandler(kept);
  const reg = informer.addEventHandler(removed);
  lw.pushList(list('10', []));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  w.add(pod('a', '11'));
  await flush();
  informer.removeEventHandler(reg);
  w.add(pod('b', '12'));
  await flush();
  assert.deepEqual(kept.log, ['add a@11', 'add b@12']);
  assert.deepEqual(removed.log, ['add a@11']);
  // Removing it again is harmless; a handle no informer issued is an error.
  informer.removeEventHandler(reg);
  assert.throws(() => informer.removeEventHandler({ hasSynced: () => true }), InvalidRegistrationError);
  stop.abort();
  await running;
});

test('SharedIndexInformer: a throwing handler is reported and neither it nor others stop receiving', async () => {
  const { lw, informer, errors, stop, start } = setup();
  const calm = recorder();
  const seen: string[] = [];
  informer.addEventHandler({
    onAdd: (p) => {
      seen.push(p.metadata.name);
      if (p.metadata.name === 'a') throw new Error('handler bug');
    },
  });
  informer.addEventHandler({
    onAdd: async (p) => {
      if (p.metadata.name === 'b') throw new Error('async handler bug');
    },
  });
  informer.addEventHandler(calm);
  lw.pushList(list('10', [pod('a', '1'), pod('b', '2'), pod('c', '3')]));
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  assert.deepEqual(seen, ['a', 'b', 'c']);
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['handler bug', 'async handler bug'],
  );
  assert.deepEqual(calm.log, ['add a@1 initial', 'add b@2 initial', 'add c@3 initial']);
  stop.abort();
  await running;
});

test('SharedIndexInformer: a stuck handler only delays itself; its notifications stay buffered in order', async () => {
  const { lw, informer, stop, start } = setup();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow: string[] = [];
  informer.addEventHandler({
    onAdd: async (p) => {
      slow.push(p.metadata.name);
      if (p.metadata.name === 'a') await gate;
    },
  });
  const fast = recorder();
  informer.addEventHandler(fast);
  lw.pushList(list('10', [pod('a', '1')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  for (let i = 0; i < 50; i++) w.add(pod(`p${i}`, String(100 + i)));
  await flush();
  assert.equal(fast.log.length, 51);
  assert.deepEqual(slow, ['a']);
  release();
  await flush(60);
  assert.deepEqual(slow, ['a', ...Array.from({ length: 50 }, (_, i) => `p${i}`)]);
  stop.abort();
  await running;
});

test('SharedIndexInformer: per-handler resync periods (minimum 1 s, check period shrinks to the smallest)', async () => {
  const { clock, lw, informer, stop, start } = setup({ defaultEventHandlerResyncPeriodMs: 5000 });
  const fast = recorder();
  const byDefault = recorder();
  const never = recorder();
  informer.addEventHandler(fast, { resyncPeriodMs: 200 });
  informer.addEventHandler(byDefault);
  informer.addEventHandler(never, { resyncPeriodMs: 0 });
  lw.pushList(list('10', [pod('a', '1')]));
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  await clock.step(999);
  assert.deepEqual(fast.log, ['add a@1 initial']);
  const counts: number[][] = [];
  for (let s = 1; s <= 5; s++) {
    await clock.step(s === 1 ? 1 : 1000);
    await flush();
    counts.push([fast.log.length - 1, byDefault.log.length - 1, never.log.length - 1]);
  }
  // The fast handler resyncs every second (200 ms raised to the 1 s minimum), the default one every 5 s.
  assert.deepEqual(counts, [
    [1, 0, 0],
    [2, 0, 0],
    [3, 0, 0],
    [4, 0, 0],
    [5, 1, 0],
  ]);
  assert.equal(fast.log[1], 'update a@1->a@1');
  stop.abort();
  await running;
});

test('SharedIndexInformer freezes cached objects after the transform, which runs once per object', async () => {
  const { lw, informer, stop, start } = setup();
  let calls = 0;
  informer.setTransform((p) => {
    calls++;
    return stripManagedFields(p);
  });
  const got: Pod[] = [];
  informer.addEventHandler({ onAdd: (p) => void got.push(p), onUpdate: (_o, n) => void got.push(n) });
  lw.pushList(list('10', [pod('a', '1', { spec: { node: 'n1' } }), { metadata: { namespace: 'ns', name: 'b', resourceVersion: '2', managedFields: [{}] } }]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  w.modify(pod('a', '11'));
  await flush();
  assert.equal(calls, 3);
  assert.equal(got.length, 3);
  for (const p of got) assert.ok(Object.isFrozen(p) && Object.isFrozen(p.metadata));
  assert.equal(informer.getStore().getByKey('ns/b')?.metadata.managedFields, undefined);
  assert.equal(informer.getStore().getByKey('ns/a'), got[2]);
  assert.throws(() => {
    (got[0]!.spec as { node: string }).node = 'mutated';
  }, TypeError);
  assert.throws(() => informer.setTransform((p) => p), InformerStateError);
  assert.throws(() => informer.setWatchErrorHandler(() => {}), InformerStateError);
  stop.abort();
  await running;
  assert.throws(() => informer.addEventHandler({}), InformerStateError);
});

test('SharedIndexInformer syncs from a streamed LIST: each batch is transformed and frozen as it arrives, the cache swaps once at the end', async () => {
  const { lw, informer, stop, start } = setup({}, 1);
  const atTransform: string[] = [];
  informer.setTransform((p) => {
    atTransform.push(`${p.metadata.name}: batch ${lw.streamedBatches[0]!.length}, cached ${informer.getStore().list().length}`);
    return p;
  });
  const h = recorder();
  informer.addEventHandler(h);
  lw.pushList(list('10', [pod('a', '1'), pod('b', '2'), pod('c', '3')]));
  lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  assert.deepEqual(atTransform, ['a: batch 1, cached 0', 'b: batch 2, cached 0', 'c: batch 3, cached 0']);
  assert.deepEqual(h.log, ['add a@1 initial', 'add b@2 initial', 'add c@3 initial']);
  assert.ok(informer.getStore().list().every((p) => Object.isFrozen(p) && Object.isFrozen(p.metadata)));
  assert.equal(informer.hasSynced(), true);
  stop.abort();
  await running;
});

test('SharedIndexInformer: a new version takes over the unchanged, frozen parts of the cached one', async () => {
  const { clock, lw, informer, stop, start } = setup();
  const seen: Array<[Pod, Pod]> = [];
  informer.addEventHandler({ onUpdate: (o, n) => void seen.push([o, n]) });
  lw.pushList(list('10', [pod('a', '1', { spec: { node: 'n1' } })]));
  lw.pushList(list('12', [pod('a', '11', { spec: { node: 'n1' } })]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  w.modify(pod('a', '11', { spec: { node: 'n1' } }));
  await flush();
  const cached = informer.getStore().getByKey('ns/a')!;
  const [[old, updated]] = seen as [[Pod, Pod]];
  assert.equal(updated, cached);
  assert.notEqual(updated, old);
  assert.equal(updated.spec, old.spec, 'the unchanged spec is the cached object, not a copy');
  assert.ok(Object.isFrozen(updated) && Object.isFrozen(updated.metadata) && Object.isFrozen(updated.spec));
  // A relist that brings the same object again hands over the cached object itself (a resync).
  w.error(gone);
  await flush();
  await clock.step(1000);
  await lw.waitForCalls({ list: 2 });
  await flush();
  assert.equal(seen.length, 2);
  assert.equal(seen[1]![1], cached);
  assert.equal(informer.getStore().getByKey('ns/a'), cached);
  stop.abort();
  await running;
});

/** Whether `value` and everything reachable from it is frozen. */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

test('SharedIndexInformer: every version handed to handlers and listers is deeply frozen and equals what was sent after the transform', async () => {
  const { lw, informer, stop, start } = setup();
  // A transform that mutates what it is given, as users' transforms do (drop an annotation, add a label).
  const transform = (p: Pod): Pod => {
    delete p.metadata.annotations?.['drop'];
    p.metadata.labels = { ...p.metadata.labels, seen: 'yes' };
    return p;
  };
  informer.setTransform(transform);
  const seen: Array<[Pod, Pod]> = [];
  informer.addEventHandler({ onUpdate: (o, n) => void seen.push([o, n]) });
  const version = (rv: string, node: string, keep: string): Pod =>
    pod('a', rv, { metadata: { namespace: 'ns', name: 'a', resourceVersion: rv, labels: { app: 'x' }, annotations: { drop: 'd', keep } }, spec: { node } });
  const sent = [version('11', 'n1', 'k2'), version('12', 'n2', 'k2'), version('13', 'n2', 'k2'), version('14', 'n2', 'k3')];
  lw.pushList(list('10', [version('1', 'n1', 'k1')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  for (const v of sent) w.modify(structuredClone(v));
  await flush();
  assert.equal(seen.length, sent.length);
  for (let i = 0; i < sent.length; i++) {
    const [old, updated] = seen[i]!;
    assert.deepEqual(updated, transform(structuredClone(sent[i]!)), `version ${sent[i]!.metadata.resourceVersion}`);
    assert.ok(deeplyFrozen(updated) && deeplyFrozen(old));
    if (i > 0) assert.equal(old, seen[i - 1]![1], 'the old object of an update is the previously delivered version');
  }
  assert.equal(informer.getStore().getByKey('ns/a'), seen.at(-1)![1], 'the lister returns the last delivered object');
  // Unchanged subtrees are taken over from the cached version; changed ones are not.
  assert.equal(seen[2]![1].spec, seen[1]![1].spec);
  assert.equal(seen[3]![1].spec, seen[2]![1].spec);
  assert.equal(seen[2]![1].metadata.annotations, seen[1]![1].metadata.annotations);
  assert.notEqual(seen[1]![1].spec, seen[0]![1].spec);
  assert.notEqual(seen[3]![1].metadata.annotations, seen[2]![1].metadata.annotations);
  stop.abort();
  await running;
});

test('SharedIndexInformer.setWatchErrorHandler receives failed lists', async () => {
  const { clock, lw, informer, stop, start } = setup();
  const seen: unknown[] = [];
  informer.setWatchErrorHandler((_r, err) => seen.push(err));
  lw.pushList(new StatusError(newStatus(403, 'Forbidden', 'no')));
  lw.pushList(list('1', []));
  const running = start();
  await lw.waitForCalls({ list: 1 });
  await flush();
  assert.equal(seen.length, 1);
  await clock.step(1000);
  await lw.waitForCalls({ list: 2 });
  await flush();
  assert.equal(informer.hasSynced(), true);
  stop.abort();
  await running;
});

test('SharedIndexInformer.notifications yields every notification and ends with the signal', async () => {
  const { lw, informer, stop, start } = setup();
  lw.pushList(list('10', [pod('a', '1')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  const iterStop = new AbortController();
  const seen: string[] = [];
  const consuming = (async () => {
    for await (const n of informer.notifications({ signal: iterStop.signal })) {
      seen.push(`${n.type} ${n.type === 'delete' ? 'x' : n.object.metadata.name}`);
      if (seen.length === 3) iterStop.abort();
    }
  })();
  await flush();
  w.add(pod('b', '11')).delete(pod('a', '12')).add(pod('c', '13'));
  await consuming;
  assert.deepEqual(seen, ['add a', 'add b', 'delete x']);
  stop.abort();
  await running;
});

test('SharedIndexInformer: a delta that cannot be applied is reported; the rest of the batch is applied', async () => {
  const { lw, informer, errors, stop, start } = setup({
    indexers: {
      byNode: (p) => {
        if (p.metadata.name === 'bad') throw new Error('index function failed');
        return [p.spec?.node ?? ''];
      },
    },
  });
  const h = recorder();
  informer.addEventHandler(h);
  lw.pushList(list('10', []));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  w.add(pod('a', '11')).add(pod('bad', '12')).add(pod('c', '13'));
  await flush();
  assert.deepEqual(h.log, ['add a@11', 'add c@13']);
  assert.deepEqual(informer.getStore().listKeys().sort(), ['ns/a', 'ns/c']);
  assert.equal(errors.length, 1);
  stop.abort();
  await running;
});

test('SharedIndexInformer: a relisted object with an unchanged resourceVersion is a resync, delivered only to handlers whose resync is due', async () => {
  const { clock, lw, informer, stop, start } = setup({ defaultEventHandlerResyncPeriodMs: 60_000 });
  const resyncing = recorder();
  const never = recorder();
  informer.addEventHandler(resyncing);
  informer.addEventHandler(never, { resyncPeriodMs: 0 });
  lw.pushList(list('10', [pod('a', '1'), pod('b', '2')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  // The periodic check marks which handlers take part in resyncs.
  await clock.step(60_000);
  await flush();
  w.error(gone);
  lw.pushList(list('20', [pod('a', '1'), pod('b', '3')]));
  await flush();
  await clock.step(1000);
  await lw.waitForCalls({ list: 2 });
  await flush();
  assert.deepEqual(never.log, ['add a@1 initial', 'add b@2 initial', 'update b@2->b@3']);
  assert.deepEqual(resyncing.log, ['add a@1 initial', 'add b@2 initial', 'update a@1->a@1', 'update b@2->b@2', 'update a@1->a@1', 'update b@2->b@3']);
  stop.abort();
  await running;
});

test('SharedIndexInformer: an update between objects without resourceVersion counts as a resync, as upstream compares the two (empty) versions', async () => {
  const { clock, lw, informer, stop, start } = setup({ defaultEventHandlerResyncPeriodMs: 60_000 });
  const resyncing = recorder();
  const never = recorder();
  informer.addEventHandler(resyncing);
  informer.addEventHandler(never, { resyncPeriodMs: 0 });
  const bare = (node: string): Pod => ({ metadata: { namespace: 'ns', name: 'a' }, spec: { node } });
  lw.pushList(list('10', [bare('n1')]));
  const w = lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  await clock.step(60_000);
  await flush();
  w.modify(bare('n2'));
  await flush();
  assert.deepEqual(never.log, ['add a@ initial']);
  assert.deepEqual(resyncing.log, ['add a@ initial', 'update a@->a@', 'update a@->a@']);
  assert.equal(informer.getStore().getByKey('ns/a')?.spec?.node, 'n2');
  stop.abort();
  await running;
});

test('SharedIndexInformer.addIndexers indexes cached objects while running and is refused once stopped, as upstream', async () => {
  const { lw, informer, stop, start } = setup();
  lw.pushList(list('10', [pod('a', '1', { spec: { node: 'n1' } })]));
  lw.pushWatch(new FakeWatch<Pod>());
  const running = start();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  informer.addIndexers({ byNode: (p) => (p.spec?.node === undefined ? [] : [p.spec.node]) });
  assert.deepEqual(informer.getIndexer().indexKeys('byNode', 'n1'), ['ns/a']);
  stop.abort();
  await running;
  assert.throws(
    () => informer.addIndexers({ other: () => [] }),
    (err: unknown) => err instanceof InformerStateError && err.message === 'indexer was not added because it has stopped already',
  );
});

test('SharedIndexInformer asks its first LIST to share identical parts, not a relist, and never with a transform or without freezing', async () => {
  const shares = async (options: SharedIndexInformerOptions<Pod>, transform?: (p: Pod) => Pod): Promise<Array<boolean | undefined>> => {
    const { clock, lw, informer, stop, start } = setup(options);
    if (transform !== undefined) informer.setTransform(transform);
    lw.pushList(list('10', [pod('a', '1')]));
    lw.pushList(list('12', [pod('a', '1')]));
    const w = lw.pushWatch(new FakeWatch<Pod>());
    lw.pushWatch(new FakeWatch<Pod>());
    const running = start();
    await lw.waitForCalls({ watch: 1 });
    await flush();
    w.error(gone);
    await flush();
    await clock.step(1000);
    await lw.waitForCalls({ list: 2 });
    stop.abort();
    await running;
    return lw.listCalls.map((o) => o.shareIdenticalParts);
  };
  assert.deepEqual(await shares({}), [true, undefined]);
  assert.deepEqual(await shares({}, (p) => p), [undefined, undefined]);
  assert.deepEqual(await shares({ freezeObjects: false }), [undefined, undefined]);
});
