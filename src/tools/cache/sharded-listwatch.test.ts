import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/clock.ts';
import { fnv1a64BigInt } from '../../apimachinery/sharding/hash.ts';
import { evenShardSelector } from '../../apimachinery/sharding/selector.ts';
import { FakeListerWatcher, FakeWatch } from './testing/fake-lister-watcher.ts';
import { Reflector } from './reflector.ts';
import type { ReflectorStore } from './delta.ts';
import { ShardedListWatch } from './sharded-listwatch.ts';

interface Obj {
  metadata: { name: string; uid: string; resourceVersion?: string; ownerReferences?: Array<{ uid: string; controller: boolean }> };
}

const lowHalf = evenShardSelector(0, 2);
function uid(inLow: boolean): string {
  for (;;) {
    const u = crypto.randomUUID();
    if (fnv1a64BigInt(u) < 1n << 63n === inLow) return u;
  }
}
const o = (name: string, u: string, rv = '1', owner?: string): Obj => ({ metadata: { name, uid: u, resourceVersion: rv, ...(owner === undefined ? {} : { ownerReferences: [{ uid: owner, controller: true }] }) } });

class RecordingStore implements ReflectorStore<Obj> {
  readonly ops: string[] = [];
  add(obj: Obj): void {
    this.ops.push(`add ${obj.metadata.name}`);
  }
  update(obj: Obj): void {
    this.ops.push(`update ${obj.metadata.name}`);
  }
  delete(obj: Obj): void {
    this.ops.push(`delete ${obj.metadata.name}`);
  }
  replace(items: readonly Obj[]): void {
    this.ops.push(`replace [${items.map((i) => i.metadata.name).join(',')}]`);
  }
  resync(): void {}
}

async function flush(rounds = 30): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

test('without shardInfo the list and the watch are filtered here; with a client-side key, MODIFIED out of the shard becomes DELETED and into it passes', async () => {
  const inside = uid(true);
  const outside = uid(false);
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  const sharded = new ShardedListWatch<Obj>(lw, { selector: lowHalf, shardKey: (x) => x.metadata.ownerReferences?.[0]?.uid ?? x.metadata.uid });
  lw.pushList({ metadata: { resourceVersion: '1' }, items: [o('a', uid(true), '1', inside), o('b', uid(true), '1', outside)] });
  const w = lw.pushWatch(new FakeWatch<Obj>());
  const store = new RecordingStore();
  const clock = new FakeClock();
  const reflector = new Reflector<Obj>(sharded, store, { clock, backoffManager: { nextDelay: () => 1000 } });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  await lw.waitForCalls({ watch: 1 });
  // A client-only key is never sent to the server.
  assert.equal(lw.listCalls[0]!.shardSelector, undefined);
  w.modify(o('a', uid(true), '2', outside)); // leaves
  w.modify(o('b', uid(true), '3', inside)); // enters
  w.add(o('c', uid(true), '4', outside)); // never ours
  w.delete(o('c', uid(true), '5', outside));
  w.add(o('d', uid(true), '6', inside));
  await flush();
  assert.deepEqual(store.ops, ['replace [a]', 'delete a', 'update b', 'add d']);
  stop.abort();
  await running;
});

test('a LIST echoing the selector in shardInfo is trusted, and its watch is not filtered again', async () => {
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  const sharded = new ShardedListWatch<Obj>(lw, { selector: lowHalf });
  lw.pushList((opts) => ({ metadata: { resourceVersion: '1', shardInfo: { selector: opts.shardSelector } } as never, items: [o('x', uid(false))] }));
  const list = await sharded.list({});
  assert.equal(lw.listCalls[0]!.shardSelector, lowHalf.toString());
  assert.equal(sharded.serverSharded(), true);
  assert.deepEqual(list.items.map((i) => i.metadata.name), ['x']);
  lw.pushList({ metadata: { resourceVersion: '2' }, items: [o('x', uid(false)), o('y', uid(true))] });
  assert.deepEqual((await sharded.list({})).items.map((i) => i.metadata.name), ['y']);
  assert.equal(sharded.serverSharded(), false);
});

test('Reflector.relist ends the watch and lists again at once, without waiting for the backoff', async () => {
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  const sharded = new ShardedListWatch<Obj>(lw, { selector: lowHalf });
  const a = o('a', uid(true));
  const b = o('b', uid(false));
  lw.pushList({ metadata: { resourceVersion: '1' }, items: [a, b] });
  const w1 = lw.pushWatch(new FakeWatch<Obj>());
  lw.pushList({ metadata: { resourceVersion: '2' }, items: [a, b] });
  lw.pushWatch(new FakeWatch<Obj>());
  const store = new RecordingStore();
  const clock = new FakeClock();
  const reflector = new Reflector<Obj>(sharded, store, { clock, backoffManager: { nextDelay: () => 60_000 } });
  const stop = new AbortController();
  const running = reflector.run({ signal: stop.signal });
  await lw.waitForCalls({ watch: 1 });
  sharded.setSelector(evenShardSelector(1, 2));
  reflector.relist();
  // No clock step: the second LIST and WATCH come without the 60 s backoff.
  await lw.waitForCalls({ list: 2, watch: 2 });
  assert.equal(w1.stopped, true);
  assert.deepEqual(store.ops, ['replace [a]', 'replace [b]']);
  assert.equal(lw.listCalls[1]!.shardSelector, evenShardSelector(1, 2).toString());
  stop.abort();
  await running;
});
