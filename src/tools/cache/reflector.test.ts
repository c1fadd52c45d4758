import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/clock.ts';
import { newStatus, type Status } from '../../apimachinery/errors.ts';
import type { KubeList } from '../../apimachinery/object.ts';
import { FakeListerWatcher, FakeWatch } from './testing/fake-lister-watcher.ts';
import { Reflector, ReflectorListError, ReflectorStoreError, type ReflectorOptions } from './reflector.ts';
import type { ReflectorStore } from './delta.ts';
import { DeltaFIFO } from './delta-fifo.ts';
import { newStore } from './store.ts';
import { DeletedFinalStateUnknown } from './key-functions.ts';

interface Obj {
  metadata: { name: string; resourceVersion?: string };
}
const o = (name: string, rv: string): Obj => ({ metadata: { name, resourceVersion: rv } });
const list = (rv: string, items: Obj[], cont?: string): KubeList<Obj> => ({ metadata: cont === undefined ? { resourceVersion: rv } : { resourceVersion: rv, continue: cont }, items });
const gone: Status = newStatus(410, 'Expired', 'too old resource version');
const statusError = async (code: number, reason: string): Promise<Error> => {
  const { StatusError } = await import('../../apimachinery/errors.ts');
  return new StatusError(newStatus(code, reason, reason));
};

/** Records every store operation as a compact string. */
class RecordingStore implements ReflectorStore<Obj> {
  readonly ops: string[] = [];
  add(obj: Obj): void {
    this.ops.push(`add ${obj.metadata.name}@${obj.metadata.resourceVersion ?? ''}`);
  }
  update(obj: Obj): void {
    this.ops.push(`update ${obj.metadata.name}@${obj.metadata.resourceVersion ?? ''}`);
  }
  delete(obj: Obj): void {
    this.ops.push(`delete ${obj.metadata.name}`);
  }
  replace(items: readonly Obj[], rv: string): void {
    this.ops.push(`replace [${items.map((i) => i.metadata.name).join(',')}]@${rv}`);
  }
  resync(): void {
    this.ops.push('resync');
  }
}

async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

function setup(options: ReflectorOptions = {}, lwOptions = { watchListUnsupported: true }) {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Obj>(lwOptions);
  const store = new RecordingStore();
  const errors: unknown[] = [];
  const reflector = new Reflector<Obj>(lw, store, {
    clock,
    random: () => 0.5,
    backoffManager: { nextDelay: () => 1000 },
    watchErrorHandler: (_r, err) => errors.push(err),
    ...options,
  });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  return { clock, lw, store, reflector, errors, stop, running };
}

test('Reflector lists at resourceVersion "0", replaces the store, then watches from the list revision', async () => {
  const { lw, store, reflector, stop, running } = setup();
  lw.pushList(list('10', [o('a', '5'), o('b', '7')]));
  const w = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ list: 1, watch: 1 });
  assert.deepEqual(lw.listCalls, [{ resourceVersion: '0', limit: 500 }]);
  // timeoutSeconds = 300 × (1 + 0.5): random in [300, 600) s.
  assert.deepEqual(lw.watchCalls, [{ resourceVersion: '10', timeoutSeconds: 450, allowWatchBookmarks: true }]);
  w.add(o('c', '11')).modify(o('a', '12')).delete(o('b', '13')).bookmark('14');
  await flush();
  assert.deepEqual(store.ops, ['replace [a,b]@10', 'add c@11', 'update a@12', 'delete b']);
  assert.equal(reflector.lastSyncResourceVersion(), '14');
  stop.abort();
  await running;
  assert.equal(w.stopped, true);
});

test('Reflector re-watches from the last resourceVersion when a watch ends cleanly, without relisting', async () => {
  const { lw, stop, running } = setup();
  lw.pushList(list('10', []));
  lw.pushWatch(new FakeWatch<Obj>()).add(o('a', '11')).bookmark('15').end();
  lw.pushWatch(new FakeWatch<Obj>()).add(o('b', '16')).fail(new Error('socket hang up'));
  await lw.waitForCalls({ watch: 3 });
  assert.deepEqual(
    lw.watchCalls.map((c) => c.resourceVersion),
    ['10', '15', '16'],
  );
  assert.equal(lw.listCalls.length, 1);
  stop.abort();
  await running;
});

test('Reflector relists after 410 on the watch: LIST at the last revision, then at "" when that LIST is expired too', async () => {
  const { clock, lw, store, errors, stop, running } = setup();
  lw.pushList(list('10', [o('a', '1'), o('b', '2')]));
  lw.pushWatch(new FakeWatch<Obj>()).add(o('c', '12')).error(gone);
  lw.pushList(new (await import('../../apimachinery/errors.ts')).StatusError(gone));
  lw.pushList(list('30', [o('a', '1')]));
  await lw.waitForCalls({ list: 1, watch: 1 });
  await flush();
  await clock.step(1000); // backoff before relisting
  await lw.waitForCalls({ list: 3, watch: 2 });
  assert.deepEqual(
    lw.listCalls.map((c) => c.resourceVersion),
    ['0', '12', ''],
  );
  // A specific revision lists unpaginated (from the watch cache); the immediate retry at "" reuses
  // that pager setting, as upstream's does.
  assert.deepEqual(
    lw.listCalls.map((c) => c.limit),
    [500, undefined, undefined],
  );
  assert.deepEqual(store.ops, ['replace [a,b]@10', 'add c@12', 'replace [a]@30']);
  assert.equal(lw.watchCalls[1]!.resourceVersion, '30');
  assert.deepEqual(errors, []);
  stop.abort();
  await running;
});

test('Reflector relist after 410 feeds a DeltaFIFO that emits deletes for objects that vanished meanwhile', async () => {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  const known = newStore<Obj>();
  const fifo = new DeltaFIFO<Obj>({ knownObjects: known, emitDeltaTypeReplaced: true });
  const reflector = new Reflector<Obj>(lw, fifo, { clock, random: () => 0.5, backoffManager: { nextDelay: () => 1000 } });
  lw.pushList(list('10', [o('a', '1'), o('b', '2')]));
  lw.pushWatch(new FakeWatch<Obj>()).error(gone);
  lw.pushList(list('20', [o('b', '2')]));
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  const seen: string[] = [];
  const drain = async (): Promise<void> => {
    while (fifo.listKeys().length > 0) {
      await fifo.pop((deltas) => {
        for (const d of deltas) {
          const x = d.object;
          if (x instanceof DeletedFinalStateUnknown) {
            seen.push(`${d.type} tombstone ${x.key}`);
            known.delete(x);
          } else {
            seen.push(`${d.type} ${x.metadata.name}`);
            if (d.type === 'Deleted') known.delete(x);
            else known.add(x);
          }
        }
      });
    }
  };
  await lw.waitForCalls({ watch: 1 });
  await drain();
  await flush();
  await clock.step(1000);
  await lw.waitForCalls({ list: 2 });
  await drain();
  assert.deepEqual(seen, ['Replaced a', 'Replaced b', 'Replaced b', 'Deleted tombstone a']);
  stop.abort();
  await running;
});

test('Reflector backs off and re-watches without relisting on 429 and connection refused', async () => {
  const { clock, lw, stop, running } = setup();
  lw.pushList(list('10', []));
  lw.pushWatch(await statusError(429, 'TooManyRequests'));
  lw.pushWatch(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
  lw.pushWatch(new FakeWatch<Obj>()).error(newStatus(429, 'TooManyRequests', 'slow down'));
  await lw.waitForCalls({ watch: 1 });
  await flush();
  for (let i = 0; i < 3; i++) {
    await clock.step(1000);
    await flush();
  }
  await lw.waitForCalls({ watch: 4 });
  assert.equal(lw.listCalls.length, 1);
  assert.deepEqual(
    lw.watchCalls.map((c) => c.resourceVersion),
    ['10', '10', '10', '10'],
  );
  stop.abort();
  await running;
});

test('Reflector treats other watch errors as a reason to back off and relist from the last revision', async () => {
  const { clock, lw, errors, stop, running } = setup();
  lw.pushList(list('10', []));
  lw.pushWatch(new FakeWatch<Obj>()).add(o('a', '11')).error(newStatus(500, 'InternalError', 'etcd hiccup'));
  await lw.waitForCalls({ watch: 1 });
  await flush();
  assert.equal(lw.listCalls.length, 1);
  await clock.step(1000);
  await lw.waitForCalls({ list: 2 });
  assert.deepEqual(
    lw.listCalls.map((c) => c.resourceVersion),
    ['0', '11'],
  );
  assert.deepEqual(errors, []);
  stop.abort();
  await running;
});

test('Reflector reports a failed LIST to the watch error handler and retries after the backoff', async () => {
  const { clock, lw, errors, stop, running } = setup();
  lw.pushList(await statusError(403, 'Forbidden'));
  lw.pushList(list('5', []));
  await lw.waitForCalls({ list: 1 });
  await flush();
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof ReflectorListError);
  await clock.step(999);
  assert.equal(lw.listCalls.length, 1);
  await clock.step(1);
  await lw.waitForCalls({ list: 2, watch: 1 });
  assert.deepEqual(
    lw.listCalls.map((c) => c.resourceVersion),
    ['0', '0'],
  );
  stop.abort();
  await running;
});

test('Reflector pages through LIST results and keeps paging relists once the server paged at "0"', async () => {
  const { clock, lw, store, stop, running } = setup({ watchListPageSize: 0 });
  lw.pushList(list('10', [o('a', '1')], 'tok1'));
  lw.pushList(list('10', [o('b', '2')]));
  lw.pushWatch(new FakeWatch<Obj>()).error(gone);
  lw.pushList(list('20', [o('a', '1')], 'tok2'));
  lw.pushList(list('20', [o('b', '2')]));
  await lw.waitForCalls({ list: 2, watch: 1 });
  await flush();
  await clock.step(1000);
  await lw.waitForCalls({ list: 4, watch: 2 });
  assert.deepEqual(lw.listCalls, [
    { resourceVersion: '0', limit: 500 },
    { limit: 500, continue: 'tok1' },
    { resourceVersion: '10', limit: 500 },
    { limit: 500, continue: 'tok2' },
  ]);
  assert.deepEqual(store.ops, ['replace [a,b]@10', 'replace [a,b]@20']);
  stop.abort();
  await running;
});

test('Reflector falls back to a full list when a continue page expired', async () => {
  const { lw, store, stop, running } = setup();
  lw.pushList(list('10', [o('a', '1')], 'tok1'));
  lw.pushList(await statusError(410, 'Expired'));
  lw.pushList(list('12', [o('a', '1'), o('b', '2')]));
  await lw.waitForCalls({ list: 3, watch: 1 });
  assert.deepEqual(lw.listCalls, [{ resourceVersion: '0', limit: 500 }, { limit: 500, continue: 'tok1' }, { resourceVersion: '0' }]);
  assert.deepEqual(store.ops, ['replace [a,b]@12']);
  stop.abort();
  await running;
});

test('Reflector drops a watch that stays silent past its idle timeout and resumes from the last revision', async () => {
  const { clock, lw, stop, running } = setup();
  lw.pushList(list('10', []));
  const silent = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ watch: 1 });
  silent.add(o('a', '11'));
  await flush();
  // Requested timeout 450 s + 30 s grace, counted from the last event.
  await clock.step(479_000);
  assert.equal(silent.stopped, false);
  await clock.step(1_000);
  await lw.waitForCalls({ watch: 2 });
  assert.equal(silent.stopped, true);
  assert.equal(lw.watchCalls[1]!.resourceVersion, '11');
  assert.equal(lw.listCalls.length, 1);
  stop.abort();
  await running;
});

test('Reflector relists after a very short watch (closed within a second without events)', async () => {
  const { clock, lw, stop, running } = setup();
  lw.pushList(list('10', []));
  lw.pushWatch(new FakeWatch<Obj>()).end();
  await lw.waitForCalls({ watch: 1 });
  await flush();
  await clock.step(1000);
  await lw.waitForCalls({ list: 2 });
  assert.deepEqual(
    lw.listCalls.map((c) => c.resourceVersion),
    ['0', '10'],
  );
  stop.abort();
  await running;
});

test('Reflector streams the initial state with a watch-list and keeps watching on the same stream', async () => {
  const { lw, store, reflector, stop, running } = setup({}, { watchListUnsupported: false });
  const w = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ watch: 1 });
  assert.deepEqual(lw.watchCalls[0], { resourceVersion: '', allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', timeoutSeconds: 450 });
  w.add(o('a', '3')).add(o('b', '4')).bookmark('9', true);
  await flush();
  assert.deepEqual(store.ops, ['replace [a,b]@9']);
  assert.equal(reflector.lastSyncResourceVersion(), '9');
  w.add(o('c', '10'));
  await flush();
  assert.deepEqual(store.ops, ['replace [a,b]@9', 'add c@10']);
  assert.equal(lw.watchCalls.length, 1);
  assert.equal(lw.listCalls.length, 0);
  stop.abort();
  await running;
});

test('Reflector keeps a watch-list stream under the idle guard of its requested timeout (450 s + 30 s), not 10.5 min', async () => {
  const { clock, lw, store, stop, running } = setup({}, { watchListUnsupported: false });
  const w = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ watch: 1 });
  assert.equal(lw.watchCalls[0]!.timeoutSeconds, 450);
  w.add(o('a', '3')).bookmark('9', true);
  await flush();
  w.add(o('b', '10'));
  await flush();
  assert.deepEqual(store.ops, ['replace [a]@9', 'add b@10']);
  // Silent since 'b': the server ends a 450 s watch by then, so 30 s later the stream counts as dead.
  await clock.step(479_000);
  assert.equal(w.stopped, false);
  await clock.step(1_000);
  await lw.waitForCalls({ watch: 2 });
  assert.equal(w.stopped, true);
  assert.deepEqual(lw.watchCalls[1], { resourceVersion: '10', timeoutSeconds: 450, allowWatchBookmarks: true });
  assert.equal(lw.listCalls.length, 0);
  stop.abort();
  await running;
});

test('Reflector falls back to LIST when the server rejects the watch-list request', async () => {
  const { lw, store, stop, running } = setup({}, { watchListUnsupported: false });
  lw.pushWatch(await statusError(400, 'BadRequest'));
  lw.pushList(list('7', [o('a', '1')]));
  await lw.waitForCalls({ list: 1, watch: 2 });
  assert.equal(lw.watchCalls[0]!.sendInitialEvents, true);
  assert.equal(lw.watchCalls[1]!.sendInitialEvents, undefined);
  assert.deepEqual(store.ops, ['replace [a]@7']);
  stop.abort();
  await running;
});

test('Reflector retries a watch-list at "" after 410 on the stream', async () => {
  const { lw, store, stop, running } = setup({}, { watchListUnsupported: false });
  lw.pushWatch(new FakeWatch<Obj>()).add(o('a', '1')).error(gone);
  lw.pushWatch(new FakeWatch<Obj>()).add(o('b', '2')).bookmark('5', true);
  await lw.waitForCalls({ watch: 2 });
  await flush();
  assert.deepEqual(store.ops, ['replace [b]@5']);
  assert.deepEqual(
    lw.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents]),
    [
      ['', true],
      ['', true],
    ],
  );
  stop.abort();
  await running;
});

test('Reflector resyncs the store every period when shouldResync agrees', async () => {
  let allow = true;
  const { clock, lw, store, stop, running } = setup({ resyncPeriodMs: 1000, shouldResync: () => allow });
  lw.pushList(list('10', []));
  await lw.waitForCalls({ watch: 1 });
  await clock.step(1000);
  await clock.step(1000);
  allow = false;
  await clock.step(1000);
  allow = true;
  await clock.step(1000);
  assert.deepEqual(store.ops, ['replace []@10', 'resync', 'resync', 'resync']);
  stop.abort();
  await running;
});

test('Reflector.run returns promptly when stopped during a list, a watch or a backoff', async () => {
  for (const phase of ['list', 'watch', 'backoff'] as const) {
    const { clock, lw, stop, running } = setup();
    if (phase !== 'list') lw.pushList(phase === 'backoff' ? await statusError(500, 'InternalError') : list('1', []));
    await lw.waitForCalls({ list: 1 });
    await flush();
    if (phase === 'watch') await lw.waitForCalls({ watch: 1 });
    stop.abort();
    await running;
    assert.equal(clock.hasWaiters(), false, phase);
  }
});

test('Reflector reports a watch event the store rejects and keeps watching from its revision, without relisting', async () => {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  const store = new RecordingStore();
  store.add = (obj: Obj): void => {
    if (obj.metadata.name === '') throw new Error('object has no name');
    store.ops.push(`add ${obj.metadata.name}@${obj.metadata.resourceVersion ?? ''}`);
  };
  const errors: unknown[] = [];
  const reflector = new Reflector<Obj>(lw, store, { clock, random: () => 0.5, backoffManager: { nextDelay: () => 1000 }, watchErrorHandler: (_r, err) => errors.push(err) });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  lw.pushList(list('10', []));
  const w = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ list: 1, watch: 1 });
  w.add(o('', '11')).add(o('b', '12'));
  await flush();
  assert.deepEqual(store.ops, ['replace []@10', 'add b@12']);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof ReflectorStoreError);
  assert.equal(errors[0].eventType, 'ADDED');
  assert.equal(reflector.lastSyncResourceVersion(), '12');
  assert.equal(lw.listCalls.length, 1);
  assert.equal(lw.watchCalls.length, 1);
  stop.abort();
  await running;
});

test('Reflector does not apply a LIST that completes after the stop', async () => {
  const { lw, store, reflector, stop, running } = setup();
  lw.pushList(() => {
    stop.abort();
    return list('10', [o('a', '1')]);
  });
  await running;
  assert.deepEqual(store.ops, []);
  assert.equal(reflector.lastSyncResourceVersion(), '');
  assert.equal(lw.watchCalls.length, 0);
});

test('Reflector takes a chunk\'s events in one batch when the watch offers them, with the same store operations and revisions', async () => {
  const { clock, lw, store, reflector, errors, stop, running } = setup();
  store.add = (obj: Obj): void => {
    if (obj.metadata.name === '') throw new Error('object has no name');
    store.ops.push(`add ${obj.metadata.name}@${obj.metadata.resourceVersion ?? ''}`);
  };
  lw.pushList(list('10', [o('a', '5')]));
  const w = lw.pushWatch(new FakeWatch<Obj>({ batches: true }));
  await lw.waitForCalls({ list: 1, watch: 1 });
  // One batch: a rejected event in the middle does not lose the ones after it.
  w.add(o('c', '11')).add(o('', '12')).modify(o('a', '13')).bookmark('14').delete(o('c', '15'));
  await flush();
  assert.deepEqual(store.ops, ['replace [a]@10', 'add c@11', 'update a@13', 'delete c']);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof ReflectorStoreError);
  assert.equal(reflector.lastSyncResourceVersion(), '15');
  // An ERROR in a batch ends the watch there: the events after it are not applied, and 410 relists.
  lw.pushList(list('20', [o('a', '13')]));
  lw.pushWatch(new FakeWatch<Obj>({ batches: true }));
  w.add(o('d', '16')).error(gone).add(o('e', '17'));
  await flush();
  await clock.step(1000); // backoff before relisting
  await lw.waitForCalls({ list: 2, watch: 2 });
  await flush();
  assert.deepEqual(store.ops.slice(4), ['add d@16', 'replace [a]@20']);
  stop.abort();
  await running;
});

test('Reflector keeps the events after a watch-list\'s end bookmark that came in the same batch, and applies them next', async () => {
  const { lw, store, reflector, stop, running } = setup({}, { watchListUnsupported: false });
  const w = lw.pushWatch(new FakeWatch<Obj>({ batches: true }));
  await lw.waitForCalls({ watch: 1 });
  w.add(o('a', '3')).add(o('b', '4')).bookmark('9', true).add(o('c', '10')).modify(o('a', '11'));
  await flush();
  assert.deepEqual(store.ops, ['replace [a,b]@9', 'add c@10', 'update a@11']);
  assert.equal(reflector.lastSyncResourceVersion(), '11');
  assert.equal(lw.watchCalls.length, 1);
  stop.abort();
  await running;
});

/** A {@link RecordingStore} offering replace transactions, recording their batches and commits. */
class TransactionStore extends RecordingStore {
  /** Throws for an object of this name in a batch. */
  refuse: string | undefined;
  beginReplace(): { add(objects: readonly Obj[]): void; commit(rv: string): void } {
    const id = this.ops.filter((op) => op.startsWith('begin')).length + 1;
    this.ops.push(`begin ${id}`);
    return {
      add: (objects) => {
        if (objects.some((x) => x.metadata.name === this.refuse)) throw new Error(`cannot take ${String(this.refuse)}`);
        this.ops.push(`${id} add [${objects.map((x) => x.metadata.name).join(',')}]`);
      },
      commit: (rv) => void this.ops.push(`${id} commit@${rv}`),
    };
  }
}

test('Reflector streams a LIST into the store\'s replace transaction: batches as decoded, one commit; an expired continue restarts it', async () => {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true, streamBatchSize: 2 });
  const store = new TransactionStore();
  const reflector = new Reflector<Obj>(lw, store, { clock, random: () => 0.5, backoffManager: { nextDelay: () => 1000 }, watchErrorHandler: () => undefined });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  lw.pushList(list('10', [o('a', '1'), o('b', '2'), o('c', '3')], 'tok1'));
  lw.pushList(await statusError(410, 'Expired'));
  lw.pushList(list('12', [o('a', '1'), o('b', '2'), o('c', '3'), o('d', '4'), o('e', '5')]));
  lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ list: 3, watch: 1 });
  // The first page went into transaction 1, never committed: the full list replaces it.
  assert.deepEqual(store.ops, ['begin 1', '1 add [a,b]', '1 add [c]', 'begin 2', '2 add [a,b]', '2 add [c,d]', '2 add [e]', '2 commit@12']);
  assert.deepEqual(lw.streamedBatches, [[2, 1], [2, 2, 1]]);
  assert.equal(reflector.lastSyncResourceVersion(), '12');
  stop.abort();
  await running;
});

test('Reflector: a store refusing an object of a streamed LIST reports the store\'s error, commits nothing and lists again', async () => {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true, streamBatchSize: 1 });
  const store = new TransactionStore();
  store.refuse = 'bad';
  const errors: unknown[] = [];
  const reflector = new Reflector<Obj>(lw, store, { clock, random: () => 0.5, backoffManager: { nextDelay: () => 1000 }, watchErrorHandler: (_r, err) => errors.push(err) });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  lw.pushList(list('10', [o('a', '1'), o('bad', '2'), o('c', '3')]));
  await lw.waitForCalls({ list: 1 });
  await flush();
  assert.deepEqual(store.ops, ['begin 1', '1 add [a]']);
  assert.equal(errors.length, 1);
  assert.ok(!(errors[0] instanceof ReflectorListError));
  assert.match((errors[0] as Error).message, /cannot take bad/);
  // The rest of that response was not read on; after the backoff the reflector lists again.
  assert.deepEqual(lw.streamedBatches, [[1, 1]]);
  store.refuse = undefined;
  lw.pushList(list('11', [o('a', '1'), o('c', '3')]));
  lw.pushWatch(new FakeWatch<Obj>());
  await clock.step(1000);
  await lw.waitForCalls({ list: 2, watch: 1 });
  assert.deepEqual(store.ops.slice(2), ['begin 2', '2 add [a]', '2 add [c]', '2 commit@11']);
  stop.abort();
  await running;
});

test('a watch started from resourceVersion "" takes no resourceVersion from the initial ADDED events, only from the first later event', async () => {
  const { lw, reflector, stop, running } = setup();
  // A list without a resourceVersion leaves the reflector at "": the watch then starts with
  // synthetic ADDED events in no resourceVersion order.
  lw.pushList(list('', []));
  const first = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ list: 1, watch: 1 });
  assert.equal(lw.watchCalls[0]!.resourceVersion, '');
  first.add(o('b', '9')).add(o('a', '5'));
  await flush();
  assert.equal(reflector.lastSyncResourceVersion(), '');
  first.modify(o('a', '12'));
  await flush();
  assert.equal(reflector.lastSyncResourceVersion(), '12');
  first.add(o('c', '13'));
  await flush();
  assert.equal(reflector.lastSyncResourceVersion(), '13', 'past the initial events, ADDED moves it too');
  // A watch from a real resourceVersion propagates from its first event.
  const second = lw.pushWatch(new FakeWatch<Obj>());
  first.end();
  await lw.waitForCalls({ watch: 2 });
  assert.equal(lw.watchCalls[1]!.resourceVersion, '13');
  second.add(o('d', '14'));
  await flush();
  assert.equal(reflector.lastSyncResourceVersion(), '14');
  stop.abort();
  await running;
});

test('meta.k8s.io Tables in a watch are skipped and reported; a Table list fails the LIST', async () => {
  const { lw, store, errors, reflector, stop, running } = setup();
  lw.pushList(list('10', []));
  const w = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ list: 1, watch: 1 });
  w.emit({ type: 'ADDED', object: { apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: { resourceVersion: '11' }, rows: [] } as unknown as Obj });
  w.add(o('a', '12'));
  await flush();
  assert.deepEqual(store.ops, ['replace []@10', 'add a@12']);
  assert.ok(errors[0] instanceof ReflectorStoreError);
  assert.equal(reflector.lastSyncResourceVersion(), '12');
  stop.abort();
  await running;

  const t = setup();
  t.lw.pushList({ apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: { resourceVersion: '10' }, items: [] } as unknown as KubeList<Obj>);
  await t.lw.waitForCalls({ list: 1 });
  await flush();
  assert.ok(t.errors[0] instanceof ReflectorListError);
  assert.match((t.errors[0] as Error).message, /unsupported list gvk/);
  assert.deepEqual(t.store.ops, []);
  t.stop.abort();
  await t.running;
});

test('watch bookmarks reach a store that keeps a resourceVersion', async () => {
  const clock = new FakeClock();
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  const store = newStore<Obj>() as ReturnType<typeof newStore<Obj>> & { lastStoreSyncResourceVersion(): string };
  const reflector = new Reflector<Obj>(lw, store, { clock, random: () => 0.5, backoffManager: { nextDelay: () => 1000 } });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  lw.pushList(list('10', []));
  const w = lw.pushWatch(new FakeWatch<Obj>());
  await lw.waitForCalls({ list: 1, watch: 1 });
  w.bookmark('15');
  await flush();
  assert.equal(store.lastStoreSyncResourceVersion(), '15');
  stop.abort();
  await running;
});

test("the default backoff starts over every 2 minutes even while every attempt fails (DelayWithReset)", async () => {
  const clock = new FakeClock(0);
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  const reflector = new Reflector<Obj>(lw, newStore<Obj>(), { clock, random: () => 0, watchErrorHandler: () => undefined });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  const delays: number[] = [];
  for (let i = 0; i < 11; i++) {
    lw.pushList(await statusError(500, 'InternalError'));
    await lw.waitForCalls({ list: i + 1 });
    await clock.waitForWaiters(1);
    const next = clock.nextTimerIn()!;
    delays.push(next);
    await clock.step(next);
  }
  assert.deepEqual(delays, [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000, 800, 1600]);
  stop.abort();
  await running;
});
