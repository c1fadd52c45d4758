// Event recorders against either backend (test/support/backend.ts) over HTTP: events.k8s.io/v1
// series and core/v1 counting and aggregation, written through the typed clientset. Real clock,
// bounded waits.
import assert from 'node:assert/strict';
import type { Event as CoreEvent, Pod } from '../src/api/core/v1.ts';
import type { Event } from '../src/api/events/v1.ts';
import type { Clientset } from '../src/kubernetes/index.ts';
import type { ApiServerFaults } from '../src/testing/index.ts';
import { EventBroadcaster, newCoreEventSink, newEventSink, noopLogger, record } from '../src/tools/events/index.ts';
import { Capability, e2eTest, type E2eEnv } from './support/backend.ts';

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The test's namespace with a pod to report about. */
async function withPod(env: E2eEnv, fn: (cs: Clientset, ns: string, pod: Pod) => Promise<void>): Promise<void> {
  const pod = await env.cs.coreV1().pods(env.namespace).create({ metadata: { name: 'web-1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  await fn(env.cs, env.namespace, pod);
}

e2eTest('events.k8s.io/v1: identical events form one Event whose series count reaches the server', async (env) => {
  await withPod(env, async (cs, ns, pod) => {
    // A short finish time so the final count is written during the test (upstream: 6 minutes), and short
    // retries: the first patch may race the create (as upstream's goroutines do) and then be retried.
    const broadcaster = new EventBroadcaster({ logger: noopLogger, seriesFinishMs: 1000, retrySleepMs: 50 });
    broadcaster.startRecordingToSink(newEventSink((ns) => cs.eventsV1().events(ns)));
    const recorder = broadcaster.newRecorder('kubeloom.dev/test', { reportingInstance: 'test-1' });
    const list = async (): Promise<Event[]> => (await cs.eventsV1().events(ns).list()).items;

    for (let i = 0; i < 5; i++) recorder.eventf(pod, undefined, 'Warning', 'BackOff', 'Restart', 'back-off restarting container');
    await waitFor('the finished series of 5', async () => (await list())[0]?.series?.count === 5);
    const events = await list();
    assert.equal(events.length, 1, 'repeats never create new objects');
    const [event] = events;
    assert.deepEqual(event!.regarding, { kind: 'Pod', apiVersion: 'v1', name: 'web-1', namespace: ns, uid: pod.metadata!.uid, resourceVersion: pod.metadata!.resourceVersion });
    assert.equal(event!.reportingController, 'kubeloom.dev/test');
    assert.equal(event!.reportingInstance, 'test-1');
    assert.equal(event!.note, 'back-off restarting container');

    // A different reason is a different event.
    recorder.eventf(pod, undefined, 'Normal', 'Pulled', 'Pull', 'image pulled');
    await waitFor('two events', async () => (await list()).length === 2);
    await broadcaster.shutdown();
  });
});

e2eTest('core/v1: repeats are counted with strategic merge patches and similar events are aggregated', async (env) => {
  await withPod(env, async (cs, ns, pod) => {
    const broadcaster = new record.EventBroadcaster({ logger: noopLogger });
    broadcaster.startRecordingToSink(newCoreEventSink((ns) => cs.coreV1().events(ns)));
    const recorder = broadcaster.newRecorder({ component: 'test-controller', host: 'h' });
    const list = async (): Promise<CoreEvent[]> => (await cs.coreV1().events(ns).list()).items;

    for (let i = 0; i < 3; i++) recorder.event(pod, 'Warning', 'BackOff', 'Back-off restarting failed container');
    await waitFor('count 3', async () => (await list())[0]?.count === 3);
    const [counted] = await list();
    assert.equal((await list()).length, 1);
    assert.equal(counted!.message, 'Back-off restarting failed container');
    assert.equal(counted!.source?.component, 'test-controller');

    // Ten distinct messages with one reason: the tenth and later become one aggregate event.
    for (let i = 1; i <= 11; i++) recorder.event(pod, 'Warning', 'FailedMount', `volume v${i} not found`);
    await waitFor('the aggregate with count 2', async () => (await list()).some((e) => e.message === '(combined from similar events): volume v11 not found' && e.count === 2));
    const mounts = (await list()).filter((e) => e.reason === 'FailedMount');
    assert.equal(mounts.length, 10, '9 individual events and 1 aggregate');
    await broadcaster.shutdown();
  });
});

e2eTest('an event the server refuses is dropped, not retried; a transient failure of the connection is retried', { needs: [Capability.Faults] }, async (env) => {
  const faults: ApiServerFaults = env.faults;
  await withPod(env, async (cs, ns, pod) => {
    const broadcaster = new EventBroadcaster({ logger: noopLogger, retrySleepMs: 50 });
    const inner = newEventSink((ns) => cs.eventsV1().events(ns));
    const outcomes: string[] = [];
    const note = async (reason: string | undefined, write: Promise<Event>): Promise<Event> => {
      try {
        const written = await write;
        outcomes.push(`${reason} ok`);
        return written;
      } catch (err) {
        outcomes.push(`${reason} ${(err as { code?: string }).code ?? 'error'}`);
        throw err;
      }
    };
    broadcaster.startRecordingToSink({
      create: (e, o) => note(e.reason, inner.create(e, o)),
      update: (e, o) => note(e.reason, inner.update(e, o)),
      patch: (e, p, o) => note(e.reason, inner.patch(e, p, o)),
    });
    const recorder = broadcaster.newRecorder('kubeloom.dev/test');
    const list = async (): Promise<Event[]> => (await cs.eventsV1().events(ns).list()).items;

    faults.failNext({ verb: 'create', resource: 'events', status: 422, message: 'invalid event' });
    recorder.eventf(pod, undefined, 'Normal', 'Refused', 'Test', 'refused by the server');
    recorder.eventf(pod, undefined, 'Normal', 'Accepted', 'Test', 'accepted');
    await waitFor('the accepted event', async () => (await list()).length === 1);
    await waitFor('nothing pending', () => broadcaster.pending() === 0);
    assert.deepEqual((await list()).map((e) => e.reason), ['Accepted']);
    assert.deepEqual(outcomes.sort(), ['Accepted ok', 'Refused ERR_KUBE_STATUS']);

    // The listener goes away and comes back: the write fails at the connection level and is retried.
    const restarting = faults.restart();
    recorder.eventf(pod, undefined, 'Normal', 'AcrossRestart', 'Test', 'written after the restart');
    await restarting;
    await waitFor('the event written after the restart', async () => (await list()).some((e) => e.reason === 'AcrossRestart'));
    const across = outcomes.filter((o) => o.startsWith('AcrossRestart'));
    assert.ok(across.length >= 2 && across.at(-1) === 'AcrossRestart ok', `attempts: ${across.join(', ')}`);
    await broadcaster.shutdown();
  });
});
