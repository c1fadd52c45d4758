import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event as CoreEvent, Pod } from '../../../api/core/v1.ts';
import { StatusError, newStatus } from '../../../apimachinery/errors.ts';
import { FakeClock } from '../../../util/clock/clock.ts';
import { FakeEventSink } from '../fake-event-sink.ts';
import type { Logger } from '../logger.ts';
import { EventBroadcaster, type EventBroadcasterOptions } from './event.ts';

const T0 = Date.UTC(2024, 0, 1);
const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'ns', uid: 'u1' } };
const other: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-2', namespace: 'ns', uid: 'u2' } };

function setup(options: EventBroadcasterOptions = {}) {
  const clock = new FakeClock(T0);
  const errors: string[] = [];
  const logger: Logger = { debug() {}, info() {}, error: (m) => errors.push(m) };
  const sink = new FakeEventSink<CoreEvent>();
  const broadcaster = new EventBroadcaster({ clock, random: () => 0.5, logger, ...options });
  broadcaster.startRecordingToSink(sink);
  const recorder = broadcaster.newRecorder({ component: 'test-controller', host: 'node-a' });
  const calls = (): string[] => sink.calls.map((c) => `${c.verb} ${c.key}${c.patch ? ' ' + JSON.stringify(c.patch) : ''} ${c.outcome}`);
  return { clock, errors, sink, broadcaster, recorder, calls };
}

test('a recorded core/v1 event has the upstream shape', async () => {
  const { clock, sink, recorder, broadcaster } = setup();
  recorder.annotatedEventf(pod, { a: 'b' }, 'Normal', 'Started', 'Started container web');
  await clock.step(0);
  const [stored] = [...sink.events.values()];
  const { metadata, ...rest } = stored!;
  assert.equal(metadata.name, `web-1.${(BigInt(T0) * 1_000_000n).toString(16)}`);
  assert.equal(metadata.namespace, 'ns');
  assert.deepEqual(metadata.annotations, { a: 'b' });
  assert.deepEqual(rest, {
    apiVersion: 'v1',
    kind: 'Event',
    involvedObject: { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: 'ns', uid: 'u1' },
    reason: 'Started',
    message: 'Started container web',
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:00:00Z',
    count: 1,
    type: 'Normal',
    source: { component: 'test-controller', host: 'node-a' },
    reportingComponent: 'test-controller',
    reportingInstance: 'node-a',
  });
  await broadcaster.shutdown();
});

test('identical events are written once and then patched with count, lastTimestamp and message', async () => {
  const { clock, recorder, calls, sink, broadcaster } = setup();
  recorder.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
  await clock.step(2000);
  recorder.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
  await clock.step(2000);
  recorder.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
  await clock.step(0);
  const name = sink.calls[0]!.key;
  assert.deepEqual(calls(), [
    `create ${name} ok`,
    `patch ${name} {"count":2,"lastTimestamp":"2024-01-01T00:00:02Z","message":"Back-off restarting failed container"} ok`,
    `patch ${name} {"count":3,"lastTimestamp":"2024-01-01T00:00:04Z","message":"Back-off restarting failed container"} ok`,
  ]);
  const stored = sink.events.get(name)!;
  assert.equal(stored.count, 3);
  assert.equal(stored.firstTimestamp, '2024-01-01T00:00:00Z');
  await broadcaster.shutdown();
});

test('similar events (only the message differs) are aggregated after 10 within 10 minutes', async () => {
  const { clock, recorder, calls, sink, broadcaster } = setup();
  for (let i = 1; i <= 9; i++) {
    recorder.event(pod, 'Warning', 'FailedMount', `volume v${i} not found`);
    await clock.step(1000);
  }
  assert.equal(sink.events.size, 9);
  recorder.event(pod, 'Warning', 'FailedMount', 'volume v10 not found');
  await clock.step(1000);
  recorder.event(pod, 'Warning', 'FailedMount', 'volume v11 not found');
  await clock.step(0);
  const aggregate = sink.calls[9]!.key;
  assert.deepEqual(calls().slice(9), [
    `create ${aggregate} ok`,
    `patch ${aggregate} {"count":2,"lastTimestamp":"2024-01-01T00:00:10Z","message":"(combined from similar events): volume v11 not found"} ok`,
  ]);
  const stored = sink.events.get(aggregate)!;
  assert.equal(stored.message, '(combined from similar events): volume v11 not found');
  assert.equal(stored.reason, 'FailedMount');
  assert.equal(stored.count, 2);
  assert.equal(stored.reportingComponent, undefined, 'aggregates carry the source only, as upstream');

  // More than 10 minutes later the window starts again: events are written individually.
  await clock.step(601_000);
  recorder.event(pod, 'Warning', 'FailedMount', 'volume v12 not found');
  await clock.step(0);
  assert.match(calls().at(-1)!, /^create ns\/web-1\.[0-9a-f]+ ok$/);
  assert.equal(sink.events.get(sink.calls.at(-1)!.key)!.message, 'volume v12 not found');
  await broadcaster.shutdown();
});

test('the spam filter allows a burst of 25 events per source and object, then 1 per 5 minutes', async () => {
  const { clock, recorder, sink, broadcaster } = setup();
  for (let i = 0; i < 30; i++) recorder.event(pod, 'Normal', `Reason${i}`, 'm');
  recorder.event(other, 'Normal', 'Reason0', 'm');
  await clock.step(0);
  const about = (name: string) => [...sink.events.values()].filter((e) => e.involvedObject.name === name).map((e) => e.reason);
  assert.deepEqual(about('web-1'), Array.from({ length: 25 }, (_, i) => `Reason${i}`));
  assert.deepEqual(about('web-2'), ['Reason0'], 'another object has its own budget');
  await clock.step(299_000);
  recorder.event(pod, 'Normal', 'Late1', 'm');
  await clock.step(1000);
  recorder.event(pod, 'Normal', 'Late2', 'm');
  recorder.event(pod, 'Normal', 'Late3', 'm');
  await clock.step(0);
  assert.deepEqual(about('web-1').slice(25), ['Late2']);
  await broadcaster.shutdown();
});

test('failed writes are retried (first wait random, then 10 s) and a deleted event is created again', async () => {
  const { clock, recorder, sink, calls, broadcaster } = setup();
  sink.inject({ verb: 'create', error: new Error('connection reset') });
  sink.inject({ verb: 'create', error: new Error('connection reset') });
  recorder.event(pod, 'Normal', 'R', 'm');
  await clock.step(0);
  assert.equal(sink.calls.length, 1);
  await clock.step(5000); // 0.5 × 10 s
  assert.equal(sink.calls.length, 2);
  await clock.step(10_000);
  assert.deepEqual(sink.calls.map((c) => c.outcome), ['connection reset', 'connection reset', 'ok']);

  const name = sink.calls[2]!.key;
  sink.events.clear();
  recorder.event(pod, 'Normal', 'R', 'm');
  await clock.step(0);
  assert.deepEqual(calls().slice(3), [`patch ${name} {"count":2,"lastTimestamp":"2024-01-01T00:00:15Z","message":"m"} NotFound`, `create ${name} ok`]);

  // A Status is a refusal: not retried.
  sink.inject({ verb: 'create', error: new StatusError(newStatus(403, 'Forbidden', 'events is forbidden')) });
  recorder.event(other, 'Normal', 'R', 'm');
  await clock.step(60_000);
  assert.deepEqual(sink.calls.slice(5).map((c) => c.outcome), ['Forbidden']);
  await broadcaster.shutdown();
});

test('writes are sequential per sink, the queue is bounded, and shutdown gives queued events one attempt', async () => {
  const { clock, recorder, sink, errors, broadcaster } = setup({ maxQueuedEvents: 2 });
  let release!: () => void;
  sink.inject({ verb: 'create', until: new Promise<void>((resolve) => (release = resolve)) });
  recorder.event(pod, 'Normal', 'A', 'm');
  await clock.step(0);
  // A is being written; B and C wait in the queue; D does not fit.
  recorder.event(pod, 'Normal', 'B', 'm');
  recorder.event(pod, 'Normal', 'C', 'm');
  recorder.event(pod, 'Normal', 'D', 'm');
  await clock.step(0);
  assert.equal(sink.calls.length, 1);
  assert.deepEqual(errors, ['unable to record event: too many queued events, dropped event']);
  sink.inject({ verb: 'create', error: new Error('down') });
  release();
  await broadcaster.shutdown();
  assert.deepEqual(
    sink.calls.map((c) => `${[...sink.events.values()].find((e) => `${e.metadata.namespace}/${e.metadata.name}` === c.key)?.reason ?? '-'} ${c.outcome}`),
    ['A ok', '- down', 'C ok'],
  );
  assert.ok(errors.includes('unable to write event (broadcaster is shut down)'));
  recorder.event(pod, 'Normal', 'E', 'm');
  assert.ok(errors.includes('unable to record event: broadcaster is shut down (will not retry!)'));
  assert.equal(clock.hasWaiters(), false);
});

test('invalid types and subjects are logged and dropped; watchers and the logger see every event', async () => {
  const { clock, recorder, sink, errors, broadcaster } = setup();
  const seen: string[] = [];
  const stop = broadcaster.startEventWatcher((e) => {
    seen.push(e.reason!);
  });
  const logged: unknown[] = [];
  broadcaster.startLogging({ debug() {}, error() {}, info: (_m, f) => logged.push(f) });
  recorder.event(pod, 'Info', 'R', 'm');
  recorder.event({ metadata: { name: 'x' } }, 'Normal', 'R', 'm');
  recorder.eventf(pod, 'Normal', 'Ok', 'fine');
  await clock.step(0);
  stop();
  recorder.eventf(pod, 'Normal', 'Later', 'fine');
  await clock.step(0);
  assert.deepEqual(errors, ['unsupported event type', 'could not construct reference, will not report event']);
  assert.deepEqual(seen, ['Ok']);
  assert.deepEqual(logged[0], { object: 'ns/web-1', kind: 'Pod', type: 'Normal', reason: 'Ok', message: 'fine' });
  assert.equal(sink.events.size, 2);
  await broadcaster.shutdown();
});
