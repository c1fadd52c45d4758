/**
 * Model-based properties of the informer queues: any interleaving of reflector operations (add,
 * update, delete, relist, resync) and consumer pops must leave a consumer that applies what it pops
 * with exactly the state the operations imply — nothing lost, nothing resurrected — and batches
 * must follow RealFIFO's rules. (Store/Indexer and WorkQueue models live beside their code:
 * src/tools/cache/store.test.ts and src/util/workqueue/queue.property.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Cache, DeletedFinalStateUnknown, DeltaFIFO, DeltaType, RealFIFO, metaNamespaceKeyFunc, type Delta, type ObjectDelta } from '../src/tools/cache/index.ts';

interface Obj {
  metadata: { namespace: string; name: string; resourceVersion: string };
}

type Op =
  | { op: 'add' | 'update' | 'delete'; name: string }
  | { op: 'replace'; names: string[] }
  | { op: 'resync' }
  | { op: 'pop'; n: number };

const names = ['a', 'b', 'c', 'd', 'e'];
const nameArb = fc.constantFrom(...names);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constantFrom('add' as const, 'update' as const, 'delete' as const), name: nameArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('replace' as const), names: fc.uniqueArray(nameArb, { maxLength: 5 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'resync' as const }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('pop' as const), n: fc.integer({ min: 1, max: 4 }) }) },
);

const obj = (name: string, rv: number): Obj => ({ metadata: { namespace: 'ns', name, resourceVersion: String(rv) } });
const state = (objs: Iterable<Obj>): string[] => [...objs].map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

/** The reference model: what the server's collection is after the reflector reported `ops`. */
class Model {
  readonly items = new Map<string, Obj>();
  apply(op: Op, rv: number): Obj | Obj[] | undefined {
    switch (op.op) {
      case 'add':
      case 'update': {
        const o = obj(op.name, rv);
        this.items.set(op.name, o);
        return o;
      }
      case 'delete': {
        const o = this.items.get(op.name) ?? obj(op.name, rv);
        this.items.delete(op.name);
        return o;
      }
      case 'replace': {
        this.items.clear();
        const list = op.names.map((n) => obj(n, rv));
        for (const o of list) this.items.set(o.metadata.name, o);
        return list;
      }
      default:
        return undefined;
    }
  }
}

/** Applies one object delta the way the informer's HandleDeltas does. */
function applyDelta(store: Cache<Obj>, d: ObjectDelta<Obj>): void {
  if (d.type === DeltaType.Deleted) {
    store.delete(d.object instanceof DeletedFinalStateUnknown ? (d.object.obj ?? ({ metadata: { namespace: 'ns', name: d.object.key.split('/')[1]!, resourceVersion: '' } } as Obj)) : d.object);
    return;
  }
  const o = d.object as Obj;
  if (store.get(o) !== undefined) store.update(o);
  else store.add(o);
}

interface QueueUnderTest {
  queue: { add(o: Obj): void; update(o: Obj): void; delete(o: Obj): void; replace(l: readonly Obj[], rv: string): void; resync(): void };
  /** Pops one item (non-blocking: only called when something is queued) and applies it. */
  popOne(): Promise<void>;
  queued(): number;
}

async function runModel(make: (consumer: Cache<Obj>) => QueueUnderTest, ops: Op[]): Promise<void> {
  const consumer = new Cache<Obj>(metaNamespaceKeyFunc);
  const q = make(consumer);
  const model = new Model();
  let rv = 0;
  for (const op of ops) {
    rv++;
    if (op.op === 'pop') {
      for (let i = 0; i < op.n && q.queued() > 0; i++) await q.popOne();
      continue;
    }
    // The reflector reports a delete only for an object the server had.
    if (op.op === 'delete' && !model.items.has(op.name)) continue;
    const payload = model.apply(op, rv);
    if (op.op === 'add') q.queue.add(payload as Obj);
    else if (op.op === 'update') q.queue.update(payload as Obj);
    else if (op.op === 'delete') q.queue.delete(payload as Obj);
    else if (op.op === 'replace') q.queue.replace(payload as Obj[], String(rv));
    else q.queue.resync();
  }
  while (q.queued() > 0) await q.popOne();
  assert.deepEqual(state(consumer.list()), state(model.items.values()));
}

const runs = { numRuns: 300 };

test('DeltaFIFO with knownObjects: any interleaving of reflector operations and pops converges to the model', async () => {
  for (const emitDeltaTypeReplaced of [false, true]) {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
        await runModel((consumer) => {
          const fifo = new DeltaFIFO<Obj>({ knownObjects: consumer, emitDeltaTypeReplaced });
          return {
            queue: fifo,
            queued: () => fifo.listKeys().length,
            popOne: async () => {
              await fifo.pop((deltas) => {
                assert.ok(deltas.length > 0, 'never an empty Deltas');
                const keys = new Set(deltas.map((d) => fifo.keyOf(d.object)));
                assert.equal(keys.size, 1, 'one key per pop');
                for (const d of deltas) applyDelta(consumer, d);
              });
            },
          };
        }, ops);
      }),
      runs,
    );
  }
});

/** Checks RealFIFO.popBatch's rules on one batch. */
function checkBatch(batch: Delta<Obj>[], batchSize: number): void {
  assert.ok(batch.length >= 1 && batch.length <= batchSize);
  if (batch.some((d) => d.type === DeltaType.ReplacedAll || d.type === DeltaType.SyncAll)) {
    assert.equal(batch.length, 1, 'ReplacedAll and SyncAll go alone');
    return;
  }
  const keys = batch.map((d) => (d.object instanceof DeletedFinalStateUnknown ? d.object.key : metaNamespaceKeyFunc(d.object as Obj)));
  assert.equal(new Set(keys).size, keys.length, 'at most one delta per key in a batch');
}

test('RealFIFO (atomic, as the informer runs it): batches keep arrival order, follow the batching rules and converge to the model', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (ops, batchSize) => {
      const pushed: string[] = [];
      const popped: string[] = [];
      const describe = (d: Delta<Obj>): string => (d.type === DeltaType.ReplacedAll ? `ReplacedAll ${d.object.resourceVersion}` : d.type === DeltaType.SyncAll ? 'SyncAll' : `${d.type} ${state([(d.object instanceof DeletedFinalStateUnknown ? d.object.obj : d.object) as Obj]).join()}`);
      await runModel((consumer) => {
        const fifo = new RealFIFO<Obj>({ batchSize });
        const record = <A extends unknown[]>(fn: (...a: A) => void, what: (...a: A) => string) => (...a: A) => {
          pushed.push(what(...a));
          fn(...a);
        };
        return {
          queue: {
            add: record((o: Obj) => fifo.add(o), (o) => `Added ${state([o]).join()}`),
            update: record((o: Obj) => fifo.update(o), (o) => `Updated ${state([o]).join()}`),
            delete: record((o: Obj) => fifo.delete(o), (o) => `Deleted ${state([o]).join()}`),
            replace: record((l: readonly Obj[], rv: string) => fifo.replace(l, rv), (_l, rv) => `ReplacedAll ${rv}`),
            resync: record(() => fifo.resync(), () => 'SyncAll'),
          },
          queued: () => fifo.length,
          popOne: async () => {
            await fifo.popBatch((batch) => {
              checkBatch(batch, batchSize);
              for (const d of batch) {
                popped.push(describe(d));
                if (d.type === DeltaType.ReplacedAll) consumer.replace([...d.object.objects], d.object.resourceVersion);
                else if (d.type !== DeltaType.SyncAll && d.type !== DeltaType.Bookmark) applyDelta(consumer, d);
              }
            });
          },
        };
      }, ops);
      assert.deepEqual(popped, pushed, 'every delta handed out once, in arrival order');
    }),
    runs,
  );
});

test('RealFIFO (non-atomic, with knownObjects): relists expand to tombstones and Replaced deltas that converge to the model', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (ops, batchSize) => {
      await runModel((consumer) => {
        const fifo = new RealFIFO<Obj>({ atomicEvents: false, knownObjects: consumer, batchSize });
        return {
          queue: fifo,
          queued: () => fifo.length,
          popOne: async () => {
            await fifo.popBatch((batch) => {
              checkBatch(batch, batchSize);
              for (const d of batch) applyDelta(consumer, d as ObjectDelta<Obj>);
            });
          },
        };
      }, ops);
    }),
    runs,
  );
});
