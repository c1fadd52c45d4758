import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { deliverEvent } from '../source/event-causes.ts';
import { Reflector } from '../tools/cache/reflector.ts';
import { FakeListerWatcher, FakeWatch } from '../tools/cache/testing/fake-lister-watcher.ts';
import { newStore } from '../tools/cache/store.ts';
import { FakeClock } from '../util/clock/clock.ts';
import { noteWatchEventsReceived, watchReceivedAt } from './watch-receipt.ts';

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}
const o = (name: string, rv: string): Obj => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const hrMs = (t: [number, number]): number => t[0] * 1000 + t[1] / 1e6;

async function reflectOne(clock: FakeClock, obj: Obj): Promise<void> {
  const lw = new FakeListerWatcher<Obj>({ watchListUnsupported: true });
  lw.pushList({ metadata: { resourceVersion: '1' }, items: [] });
  const w = lw.pushWatch(new FakeWatch<Obj>());
  const store = newStore<Obj>();
  const stop = new AbortController();
  const running = new Reflector<Obj>(lw, store, { clock }).run({ signal: stop.signal });
  await lw.waitForCalls({ watch: 1 });
  w.add(obj);
  while (store.list().length === 0) await new Promise((r) => setImmediate(r));
  stop.abort();
  await running;
}

test('Without a tracer provider the reflector notes no receipt time', async () => {
  const obj = o('a', '2');
  await reflectOne(new FakeClock(1_000_000), obj);
  assert.equal(watchReceivedAt(obj), undefined);
});

test("With a tracer provider the reflector notes when it read each watch event, and the event's span starts then, with an informer child span up to the handler", async (t) => {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  t.after(() => trace.disable());
  const clock = new FakeClock(1_700_000_000_000);
  const obj = o('a', '2');
  await reflectOne(clock, obj);
  assert.equal(watchReceivedAt(obj), 1_700_000_000_000);

  // An object the reflector did not see (a transformed copy) keeps the span starting at the handler.
  const copy = o('b', '3');
  noteWatchEventsReceived([{ object: obj }], 1_700_000_000_000);
  const added: string[] = [];
  for (const object of [obj, copy]) {
    deliverEvent({}, { add: (r) => added.push(r.name) }, () => ({ type: 'update', kind: 'Thing', object, predicates: [], handler: 'h' }), (q) => q.add({ namespace: 'ns', name: object.metadata.name }));
  }
  assert.deepEqual(added, ['a', 'b']);
  const spans = exporter.getFinishedSpans();
  const [eventA, eventB] = spans.filter((s) => s.name === 'Thing update');
  assert.equal(hrMs(eventA!.startTime), 1_700_000_000_000);
  const informer = spans.filter((s) => s.name === 'informer');
  assert.equal(informer.length, 1);
  assert.equal(informer[0]!.parentSpanContext?.spanId, eventA!.spanContext().spanId);
  assert.equal(hrMs(informer[0]!.startTime), 1_700_000_000_000);
  const handlerA = spans.find((s) => s.name === 'handler h' && s.parentSpanContext?.spanId === eventA!.spanContext().spanId)!;
  assert.ok(hrMs(informer[0]!.endTime) <= hrMs(handlerA.startTime));
  // Without a note the event span starts at the handler call: no earlier than the handler's.
  const handlerB = spans.find((s) => s.name === 'handler h' && s.parentSpanContext?.spanId === eventB!.spanContext().spanId)!;
  assert.ok(hrMs(eventB!.startTime) <= hrMs(handlerB.startTime) && hrMs(eventB!.startTime) > 1_700_000_000_000);
});
