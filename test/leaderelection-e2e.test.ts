// Leader election against either backend (test/support/backend.ts) over HTTP, on the real clock with
// short durations.
// Assertions wait for conditions with a bounded deadline; nothing depends on how fast the machine is,
// except that the leader must be able to renew within its renew deadline.
import assert from 'node:assert/strict';
import type { Event as CoreEvent } from '../src/api/core/v1.ts';
import type { Clientset } from '../src/kubernetes/index.ts';
import { LeaderElector, LeaseLock, LeadershipLostError } from '../src/tools/leaderelection/index.ts';
import { newCoreEventSink, noopLogger, record } from '../src/tools/events/index.ts';
import { Capability, e2eTest } from './support/backend.ts';

const leaseDurationMs = 3000;
const renewDeadlineMs = 2000;
const retryPeriodMs = 300;

/** Polls `condition` every 20 ms until it holds; fails after `timeoutMs`. */
async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Interval {
  id: string;
  start: number;
  end?: number;
  reason?: unknown;
}

/** Several candidates for one Lease, with a log of who led when. */
class Election {
  readonly intervals: Interval[] = [];
  readonly candidates = new Map<string, { elector: LeaderElector; abort: AbortController; run: Promise<void> }>();
  readonly #cs: Clientset;
  readonly #namespace: string;
  readonly #name: string;

  constructor(cs: Clientset, namespace: string, name: string) {
    this.#cs = cs;
    this.#namespace = namespace;
    this.#name = name;
  }

  start(id: string, options: { releaseOnCancel?: boolean; eventRecorder?: record.EventRecorder } = {}): void {
    const lock = new LeaseLock({
      client: this.#cs.coordinationV1().leases(this.#namespace),
      namespace: this.#namespace,
      name: this.#name,
      identity: id,
      ...(options.eventRecorder ? { eventRecorder: { eventf: (o, t, r, m) => options.eventRecorder!.eventf(o, t, r, m) } } : {}),
    });
    const elector = new LeaderElector({
      lock,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      releaseOnCancel: options.releaseOnCancel ?? false,
      logger: noopLogger,
      callbacks: {
        onStartedLeading: (signal) => {
          const interval: Interval = { id, start: Date.now() };
          this.intervals.push(interval);
          signal.addEventListener('abort', () => {
            interval.end = Date.now();
            interval.reason = signal.reason;
          });
        },
        onStoppedLeading: () => {},
      },
    });
    const abort = new AbortController();
    this.candidates.set(id, { elector, abort, run: elector.run({ signal: abort.signal }) });
  }

  /** Who is leading now according to the callbacks (started and not yet aborted). */
  leaders(): string[] {
    return this.intervals.filter((i) => i.end === undefined).map((i) => i.id);
  }

  async stop(id: string): Promise<void> {
    const c = this.candidates.get(id)!;
    c.abort.abort();
    await c.run;
  }

  async stopAll(): Promise<void> {
    for (const id of this.candidates.keys()) await this.stop(id);
  }

  /** No two leadership intervals overlap. */
  assertNeverTwoLeaders(): void {
    const sorted = [...this.intervals].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      assert.ok(prev.end !== undefined && prev.end <= sorted[i]!.start, `${prev.id} and ${sorted[i]!.id} led at the same time`);
    }
  }
}

async function holder(cs: Clientset, namespace: string, name: string): Promise<{ holder: string; transitions: number }> {
  const lease = await cs.coordinationV1().leases(namespace).get(name);
  return { holder: lease.spec?.holderIdentity ?? '', transitions: lease.spec?.leaseTransitions ?? 0 };
}

e2eTest('three electors compete: exactly one leads; when it stops renewing another takes over after the lease duration', async ({ cs, namespace: ns }) => {
  const election = new Election(cs, ns, 'compete');
  for (const id of ['a', 'b', 'c']) election.start(id);
  await waitFor('a leader', () => election.leaders().length === 1);
  const first = election.leaders()[0]!;
  assert.equal((await holder(cs, ns, 'compete')).holder, first);
  // The others keep failing to acquire while the leader renews.
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(election.leaders(), [first]);
  }
  for (const [id, c] of election.candidates) assert.equal(c.elector.getLeader(), first, `${id} follows ${first}`);

  // The leader stops renewing without releasing (as if it crashed).
  const stoppedAt = Date.now();
  await election.stop(first);
  await waitFor('a new leader', () => election.leaders().length === 1, leaseDurationMs + 5000);
  const second = election.leaders()[0]!;
  assert.notEqual(second, first);
  const waited = Date.now() - stoppedAt;
  // Followers time the lease from their own last observation of a change, at most one jittered retry
  // period (2.2 × 300 ms) after the last renewal.
  assert.ok(waited >= leaseDurationMs - 2.2 * retryPeriodMs, `took over after ${waited} ms`);
  assert.deepEqual(await holder(cs, ns, 'compete'), { holder: second, transitions: 1 });

  await election.stopAll();
  election.assertNeverTwoLeaders();
});

e2eTest('releaseOnCancel clears holderIdentity so the next elector takes over at once', async ({ cs, namespace: ns }) => {
  const election = new Election(cs, ns, 'release');
  election.start('a', { releaseOnCancel: true });
  await waitFor('a leads', () => election.leaders()[0] === 'a');
  election.start('b', { releaseOnCancel: true });
  await waitFor('b sees a', () => election.candidates.get('b')!.elector.getLeader() === 'a');
  const releasedAt = Date.now();
  await election.stop('a');
  const lease = await cs.coordinationV1().leases(ns).get('release');
  assert.equal(lease.spec?.leaseDurationSeconds, 1);
  await waitFor('b leads', () => election.leaders()[0] === 'b', leaseDurationMs);
  // Well before a lease duration: b's next attempt (within 2.2 retry periods) finds the lock free.
  assert.ok(Date.now() - releasedAt < leaseDurationMs, 'taken over before the lease would have expired');
  assert.deepEqual(await holder(cs, ns, 'release'), { holder: 'b', transitions: 1 });
  await election.stop('b');
  assert.equal((await holder(cs, ns, 'release')).holder, '');
  election.assertNeverTwoLeaders();
});

e2eTest('a leader rides out a few failed renewals, and loses leadership (then regains it) when the server fails longer', { needs: [Capability.Faults] }, async ({ cs, namespace: ns, faults }) => {
  const election = new Election(cs, ns, 'faults');
  election.start('a');
  await waitFor('a leads', () => election.leaders()[0] === 'a');
  election.start('b');
  await waitFor('b follows', () => election.candidates.get('b')!.elector.getLeader() === 'a');

  // Three failed updates: the leader retries within its renew deadline and keeps leading.
  faults.failNext({ verb: 'update', resource: 'leases', count: 3, status: 500 });
  await new Promise((resolve) => setTimeout(resolve, renewDeadlineMs + 500));
  assert.deepEqual(election.leaders(), ['a']);
  assert.equal(election.intervals.length, 1);

  // Every update fails for longer than the renew deadline: a gives up; nobody can take the lease.
  faults.failNext({ verb: 'update', resource: 'leases', count: 1_000_000, status: 500 });
  await waitFor('a to lose leadership', () => election.leaders().length === 0, renewDeadlineMs + 3000);
  assert.ok(election.intervals[0]!.reason instanceof LeadershipLostError);
  await election.candidates.get('a')!.run;
  await new Promise((resolve) => setTimeout(resolve, leaseDurationMs + 500));
  assert.deepEqual(election.leaders(), []);
  assert.equal((await holder(cs, ns, 'faults')).holder, 'a', 'the lease still names a: no write got through');

  // The server recovers: b takes over the expired lease.
  faults.reset();
  await waitFor('b leads', () => election.leaders()[0] === 'b', leaseDurationMs + 3000);
  assert.deepEqual(await holder(cs, ns, 'faults'), { holder: 'b', transitions: 1 });
  await election.stopAll();
  election.assertNeverTwoLeaders();
});

e2eTest('leadership changes are reported as core/v1 events about the Lease', async ({ cs, namespace: ns }) => {
  const broadcaster = new record.EventBroadcaster({ logger: noopLogger });
  broadcaster.startRecordingToSink(newCoreEventSink((ns) => cs.coreV1().events(ns)));
  const recorder = broadcaster.newRecorder({ component: 'leader-test', host: 'h' });
  const election = new Election(cs, ns, 'reported');
  election.start('a', { eventRecorder: recorder });
  await waitFor('a leads', () => election.leaders()[0] === 'a');
  await election.stop('a');
  await broadcaster.shutdown();
  const events = (await cs.coreV1().events(ns).list()).items as CoreEvent[];
  assert.deepEqual(
    events.map((e) => [e.involvedObject.kind, e.involvedObject.name, e.reason, e.message]).sort(),
    [
      ['Lease', 'reported', 'LeaderElection', 'a became leader'],
      ['Lease', 'reported', 'LeaderElection', 'a stopped leading'],
    ],
  );
});
