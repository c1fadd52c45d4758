import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../api/core/v1.ts';
import type { Event } from '../../api/events/v1.ts';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import { EventBroadcaster, SinkAlreadyStartedError, type EventBroadcasterOptions } from './event-broadcaster.ts';
import { FakeEventSink } from './fake-event-sink.ts';
import type { Logger } from './logger.ts';

const T0 = Date.UTC(2024, 0, 1);
const MIN = 60_000;

const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'ns', uid: 'u1', resourceVersion: '7' } };
const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'u2' } };

function setup(options: EventBroadcasterOptions = {}) {
  const clock = new FakeClock(T0);
  const errors: string[] = [];
  const logger: Logger = { debug() {}, info() {}, error: (m) => errors.push(m) };
  const sink = new FakeEventSink();
  const broadcaster = new EventBroadcaster({ clock, random: () => 0, logger, ...options });
  broadcaster.startRecordingToSink(sink);
  const recorder = broadcaster.newRecorder('kubeloom.dev/test', { reportingInstance: 'test-1' });
  const calls = (): string[] => sink.calls.map((c) => `${c.verb} ${c.key}${c.patch ? ' ' + JSON.stringify(c.patch) : ''} ${c.outcome}`);
  return { clock, errors, sink, broadcaster, recorder, calls };
}

test('eventf writes an events.k8s.io/v1 Event in the background without blocking the caller', async () => {
  const { clock, sink, recorder, calls, broadcaster } = setup();
  assert.throws(() => broadcaster.startRecordingToSink(sink), SinkAlreadyStartedError);
  recorder.eventf(pod, node, 'Normal', 'Scheduled', 'Binding', 'assigned ns/web-1 to n1');
  assert.equal(sink.calls.length, 0, 'nothing is written synchronously');
  await clock.step(0);
  const name = `web-1.${(BigInt(T0) * 1_000_000n).toString(16)}`;
  assert.deepEqual(calls(), [`create ns/${name} ok`]);
  const stored = sink.events.get(`ns/${name}`)!;
  const { metadata, ...rest } = stored;
  assert.equal(metadata?.name, name);
  assert.equal(metadata?.namespace, 'ns');
  assert.deepEqual(rest, {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    eventTime: '2024-01-01T00:00:00.000000Z',
    reportingController: 'kubeloom.dev/test',
    reportingInstance: 'test-1',
    action: 'Binding',
    reason: 'Scheduled',
    regarding: { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
    related: { kind: 'Node', apiVersion: 'v1', name: 'n1', uid: 'u2' },
    note: 'assigned ns/web-1 to n1',
    type: 'Normal',
  });
  await broadcaster.shutdown();
});

test('identical events become a series: created once, patched to count 2 at once, finished with the final count', async () => {
  const { clock, recorder, calls, broadcaster, sink } = setup();
  const fire = () => recorder.eventf(pod, undefined, 'Warning', 'BackOff', 'Restart', 'back-off restarting container');
  fire();
  await clock.step(1000);
  fire();
  await clock.step(1000);
  fire();
  fire();
  await clock.step(0);
  const name = `ns/web-1.${(BigInt(T0) * 1_000_000n).toString(16)}`;
  assert.deepEqual(calls(), [`create ${name} ok`, `patch ${name} {"series":{"count":2,"lastObservedTime":"2024-01-01T00:00:01.000000Z"}} ok`]);

  // The finish check runs every 6 minutes; at 6 min the series was seen 4 min ago, at 12 min it is idle.
  await clock.step(6 * MIN - 2000);
  assert.equal(sink.calls.length, 2);
  await clock.step(6 * MIN);
  assert.deepEqual(calls().slice(2), [`patch ${name} {"series":{"count":4,"lastObservedTime":"2024-01-01T00:00:02.000000Z"}} ok`]);
  assert.deepEqual(sink.events.get(name)!.series, { count: 4, lastObservedTime: '2024-01-01T00:00:02.000000Z' });

  // Finished and forgotten: the next occurrence is a new event.
  fire();
  await clock.step(0);
  assert.match(calls()[3]!, /^create ns\/web-1\.[0-9a-f]+ ok$/);
  assert.notEqual(sink.calls[3]!.key, name);
  await broadcaster.shutdown();
});

test('ongoing series are refreshed every 30 minutes', async () => {
  const { clock, recorder, calls, broadcaster } = setup();
  const fire = () => recorder.eventf(pod, undefined, 'Normal', 'Sync', 'Sync', 'synced');
  fire();
  await clock.step(0);
  fire();
  await clock.step(0);
  // Keep the series alive (observed every 5 minutes) so it never finishes; the refresh at 30 min writes
  // what was observed up to then (count 7, last at 25 min).
  for (let t = 5; t <= 30; t += 5) {
    await clock.step(5 * MIN);
    fire();
  }
  await clock.step(0);
  const patches = calls().filter((c) => c.startsWith('patch'));
  assert.equal(patches.length, 2);
  assert.match(patches[1]!, /"series":\{"count":7,"lastObservedTime":"2024-01-01T00:25:00.000000Z"\}/);
  await broadcaster.shutdown();
});

test('events that differ in reason, action, type, regarding or related object are separate events', async () => {
  const { clock, recorder, sink, broadcaster } = setup();
  recorder.eventf(pod, undefined, 'Normal', 'A', 'X', 'n');
  recorder.eventf(pod, undefined, 'Normal', 'B', 'X', 'n');
  recorder.eventf(pod, undefined, 'Normal', 'A', 'Y', 'n');
  recorder.eventf(pod, undefined, 'Warning', 'A', 'X', 'n');
  recorder.eventf(pod, node, 'Normal', 'A', 'X', 'n');
  recorder.eventf({ ...pod, metadata: { ...pod.metadata, resourceVersion: '8' } }, undefined, 'Normal', 'A', 'X', 'n');
  // Only the note differs: the same event (series).
  recorder.eventf(pod, undefined, 'Normal', 'A', 'X', 'other note');
  await clock.step(0);
  assert.deepEqual(
    sink.calls.map((c) => c.verb),
    ['create', 'create', 'create', 'create', 'create', 'create', 'patch'],
  );
  assert.equal(new Set(sink.calls.map((c) => c.key)).size, 6, 'distinct names even within one millisecond');
  await broadcaster.shutdown();
});

test('a singleton event is forgotten once older than the finish time (TTL cache)', async () => {
  const { clock, recorder, calls, broadcaster } = setup();
  recorder.eventf(pod, undefined, 'Normal', 'Pulled', 'Pull', 'pulled');
  await clock.step(7 * MIN);
  // Still cached at 7 min (the check at 6 min saw it exactly 6 min old): a repeat starts a series.
  recorder.eventf(pod, undefined, 'Normal', 'Pulled', 'Pull', 'pulled');
  await clock.step(0);
  assert.deepEqual(calls().map((c) => c.split(' ')[0]), ['create', 'patch']);
  await broadcaster.shutdown();

  const second = setup();
  second.recorder.eventf(pod, undefined, 'Normal', 'Pulled', 'Pull', 'pulled');
  await second.clock.step(12 * MIN);
  second.recorder.eventf(pod, undefined, 'Normal', 'Pulled', 'Pull', 'pulled');
  await second.clock.step(0);
  assert.deepEqual(second.calls().map((c) => c.split(' ')[0]), ['create', 'create']);
  await second.broadcaster.shutdown();
});

test('a series whose event was deleted on the server is created again, with its series', async () => {
  const { clock, recorder, sink, calls, broadcaster } = setup();
  recorder.eventf(pod, undefined, 'Normal', 'R', 'A', 'n');
  await clock.step(0);
  sink.events.clear();
  recorder.eventf(pod, undefined, 'Normal', 'R', 'A', 'n');
  await clock.step(0);
  const name = sink.calls[0]!.key;
  assert.deepEqual(calls().slice(1), [`patch ${name} {"series":{"count":2,"lastObservedTime":"2024-01-01T00:00:00.000000Z"}} NotFound`, `create ${name} ok`]);
  assert.deepEqual(sink.events.get(name)!.series, { count: 2, lastObservedTime: '2024-01-01T00:00:00.000000Z' });
  await broadcaster.shutdown();
});

test('network failures are retried every 10 s (jittered up to 25%), at most 12 attempts; refusals are not retried', async () => {
  const { clock, recorder, sink, errors, broadcaster } = setup({ random: () => 0.5 });
  const down = new Error('connect ECONNREFUSED');
  sink.inject({ verb: 'create', error: down });
  sink.inject({ verb: 'create', error: down });
  recorder.eventf(pod, undefined, 'Normal', 'R', 'A', 'n');
  await clock.step(0);
  assert.equal(sink.calls.length, 1);
  await clock.step(11_249);
  assert.equal(sink.calls.length, 1);
  await clock.step(1);
  assert.equal(sink.calls.length, 2);
  await clock.step(11_250);
  assert.deepEqual(sink.calls.map((c) => c.outcome), ['connect ECONNREFUSED', 'connect ECONNREFUSED', 'ok']);

  // A Status from the server (here 500) means it refused the event: dropped, not retried, as upstream.
  sink.inject({ verb: 'create', error: new StatusError(newStatus(500, 'InternalError', 'etcd down')) });
  recorder.eventf(pod, undefined, 'Normal', 'Other', 'A', 'n');
  await clock.step(60_000);
  assert.deepEqual(sink.calls.slice(3).map((c) => c.outcome), ['InternalError']);
  assert.ok(errors.includes('server rejected event (will not retry!)'));

  // Always failing: 12 attempts, then given up.
  for (let i = 0; i < 20; i++) sink.inject({ verb: 'create', error: down });
  recorder.eventf(pod, undefined, 'Normal', 'Third', 'A', 'n');
  for (let i = 0; i < 15; i++) await clock.step(11_250);
  assert.equal(sink.calls.slice(4).length, 12);
  assert.ok(errors.includes('unable to write event (retry limit exceeded!)'));
  await broadcaster.shutdown();
});

test('the queue is bounded: events beyond it are dropped with a logged error', async () => {
  const { clock, recorder, sink, errors, broadcaster } = setup({ maxQueuedEvents: 3 });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  for (let i = 0; i < 3; i++) sink.inject({ verb: 'create', until: held });
  for (let i = 0; i < 5; i++) recorder.eventf(pod, undefined, 'Normal', `R${i}`, 'A', 'n');
  await clock.step(0);
  assert.equal(broadcaster.pending(), 3);
  assert.deepEqual(errors, ['unable to record event: too many queued events, dropped event', 'unable to record event: too many queued events, dropped event']);
  release();
  await clock.step(0);
  assert.equal(broadcaster.pending(), 0);
  assert.equal(sink.events.size, 3);
  recorder.eventf(pod, undefined, 'Normal', 'Later', 'A', 'n');
  await clock.step(0);
  assert.equal(sink.events.size, 4);
  await broadcaster.shutdown();
});

test('unsupported types and subjects without a kind are logged and dropped', async () => {
  const { clock, recorder, sink, errors, broadcaster } = setup();
  recorder.eventf(pod, undefined, 'Info' as 'Normal', 'R', 'A', 'n');
  recorder.eventf({ metadata: { name: 'x' } }, undefined, 'Normal', 'R', 'A', 'n');
  // A reference is accepted as is; an unusable related object is left out.
  recorder.eventf({ kind: 'Node', name: 'n1' }, { metadata: { name: 'nokind' } }, 'Normal', 'R', 'A', 'n');
  await clock.step(0);
  assert.deepEqual(errors, ['unsupported event type', 'could not construct reference, will not report event']);
  assert.equal(sink.calls.length, 1);
  const [stored] = [...sink.events.values()] as Event[];
  assert.deepEqual(stored!.regarding, { kind: 'Node', name: 'n1' });
  assert.equal(stored!.metadata?.namespace, 'default', 'cluster-scoped subjects get their events in default');
  assert.equal(stored!.related, undefined);
  await broadcaster.shutdown();
});

test('shutdown writes what was accepted (one attempt each), stops retries, and refuses new events', async () => {
  const { clock, recorder, sink, errors, broadcaster } = setup();
  sink.inject({ verb: 'create', error: new Error('reset') });
  recorder.eventf(pod, undefined, 'Normal', 'A', 'A', 'n');
  await clock.step(0);
  recorder.eventf(pod, undefined, 'Normal', 'B', 'A', 'n');
  await broadcaster.shutdown();
  assert.deepEqual(sink.calls.map((c) => c.outcome), ['reset', 'ok']);
  assert.equal(clock.hasWaiters(), false, 'no timers left behind');
  recorder.eventf(pod, undefined, 'Normal', 'C', 'A', 'n');
  await clock.step(0);
  assert.equal(sink.calls.length, 2);
  assert.ok(errors.includes('unable to write event (broadcaster is shut down)'));
  assert.ok(errors.includes('unable to record event: broadcaster is shut down (will not retry!)'));
});

test('watchers receive a copy of every event until stopped', async () => {
  const { clock, recorder, broadcaster } = setup();
  const seen: string[] = [];
  const stop = broadcaster.startEventWatcher((e) => {
    seen.push(e.reason!);
    e.reason = 'mutated';
  });
  const logged: unknown[] = [];
  broadcaster.startLogging({ debug() {}, error() {}, info: (_m, f) => logged.push(f) });
  recorder.eventf(pod, undefined, 'Normal', 'One', 'A', 'n');
  await clock.step(0);
  stop();
  recorder.eventf(pod, undefined, 'Normal', 'Two', 'A', 'n');
  await clock.step(0);
  assert.deepEqual(seen, ['One']);
  assert.equal(logged.length, 2);
  assert.deepEqual(logged[0], { object: 'ns/web-1', kind: 'Pod', apiVersion: 'v1', type: 'Normal', reason: 'One', action: 'A', note: 'n' });
  await broadcaster.shutdown();
});

test('an event refused because its namespace is terminating is logged once at debug level, as one line', async () => {
  const clock = new FakeClock(T0);
  const lines: Array<[string, string, unknown]> = [];
  const logger: Logger = { debug: (m, f) => lines.push(['debug', m, f?.['err']]), info() {}, error: (m, f) => lines.push(['error', m, f?.['err']]) };
  const sink = new FakeEventSink();
  const broadcaster = new EventBroadcaster({ clock, random: () => 0, logger });
  broadcaster.startRecordingToSink(sink);
  const recorder = broadcaster.newRecorder('kubeloom.dev/test', { reportingInstance: 'test-1' });
  const terminating = newStatus(403, 'Forbidden', 'events.events.k8s.io "x" is forbidden: unable to create new content in namespace ns because it is being terminated', { causes: [{ reason: 'NamespaceTerminating', message: 'namespace ns is being terminated', field: 'metadata.namespace' }] });
  sink.inject({ verb: 'create', error: new StatusError(terminating) });
  recorder.eventf(pod, undefined, 'Normal', 'R', 'A', 'n');
  await clock.step(0);
  assert.deepEqual(lines, [['debug', 'server rejected event (will not retry!)', terminating.message]]);
  await broadcaster.shutdown();
});
