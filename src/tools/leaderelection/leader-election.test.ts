import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/clock.ts';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import { noopLogger } from '../events/logger.ts';
import { HealthzAdaptor } from './healthz.ts';
import { LeaderElectionConfigError, LeaderElector, LeadershipLostError, type LeaderElectionConfig } from './leader-election.ts';
import { FakeLeaseClient, FakeLeaseStore } from './resourcelock/fake-lease-client.ts';
import type { ResourceLock } from './resourcelock/interface.ts';
import { LeaseLock } from './resourcelock/lease-lock.ts';

// component-base's values, which core components pass (the library has no defaults).
const durations = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

const T0 = Date.UTC(2024, 0, 1);

function describeReason(reason: unknown): string {
  if (reason instanceof DOMException) return reason.name;
  return (reason as { code?: string }).code ?? String(reason);
}

interface Candidate {
  id: string;
  client: FakeLeaseClient;
  lock: LeaseLock;
  elector: LeaderElector;
  abort: AbortController;
  run: Promise<void>;
  /** The signal onStartedLeading received, once it did. */
  leading?: AbortSignal;
}

function setup(): { clock: FakeClock; store: FakeLeaseStore; log: string[]; start: (id: string, config?: Partial<LeaderElectionConfig>, client?: FakeLeaseClient) => Candidate } {
  const clock = new FakeClock(T0);
  const store = new FakeLeaseStore();
  const log: string[] = [];
  const start = (id: string, config: Partial<LeaderElectionConfig> = {}, client = new FakeLeaseClient({ store })): Candidate => {
    const lock = new LeaseLock({ client, namespace: 'default', name: 'lock', identity: id });
    const candidate = { id, client, lock, abort: new AbortController() } as Candidate;
    candidate.elector = new LeaderElector({
      lock,
      ...durations,
      clock,
      random: () => 0,
      logger: noopLogger,
      callbacks: {
        onStartedLeading: (signal) => {
          candidate.leading = signal;
          log.push(`${id} started`);
          signal.addEventListener('abort', () => log.push(`${id} signal aborted: ${describeReason(signal.reason)}`));
        },
        onStoppedLeading: () => log.push(`${id} stopped`),
        onNewLeader: (leader) => log.push(`${id} sees ${leader || '(none)'}`),
      },
      ...config,
    });
    candidate.run = candidate.elector.run({ signal: candidate.abort.signal });
    return candidate;
  };
  return { clock, store, log, start };
}

function lease(store: FakeLeaseStore) {
  const l = store.leases.get('lock');
  return l === undefined ? undefined : { holder: l.spec?.holderIdentity, transitions: l.spec?.leaseTransitions, seconds: l.spec?.leaseDurationSeconds, rv: l.metadata?.resourceVersion };
}

const calls = (c: Candidate): string[] => c.client.calls.map((x) => `${x.verb}${x.holderIdentity === undefined ? '' : `(${x.holderIdentity || '-'})`} ${x.outcome}`);

test('configuration is validated exactly as upstream NewLeaderElector', () => {
  const lock = new LeaseLock({ client: new FakeLeaseClient(), namespace: 'ns', name: 'n', identity: 'me' });
  const callbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
  const cases: Array<[Partial<LeaderElectionConfig>, string | undefined]> = [
    [{}, undefined],
    // No library defaults: a config without durations is refused, as upstream's zero values are.
    [{ leaseDurationMs: undefined, renewDeadlineMs: undefined, retryPeriodMs: undefined } as never, 'leaseDuration must be greater than renewDeadline'],
    [{ leaseDurationMs: 10_000 }, 'leaseDuration must be greater than renewDeadline'],
    [{ retryPeriodMs: 10_000 / 1.2 }, 'renewDeadline must be greater than retryPeriod*JitterFactor'],
    [{ leaseDurationMs: 0, renewDeadlineMs: -1, retryPeriodMs: -1 }, 'leaseDuration must be greater than zero'],
    [{ leaseDurationMs: 1, renewDeadlineMs: 0, retryPeriodMs: -1 }, 'renewDeadline must be greater than zero'],
    [{ leaseDurationMs: 3, renewDeadlineMs: 2, retryPeriodMs: 0 }, 'retryPeriod must be greater than zero'],
    [{ callbacks: { onStoppedLeading: () => {} } as never }, 'OnStartedLeading callback must not be nil'],
    [{ callbacks: { onStartedLeading: () => {} } as never }, 'OnStoppedLeading callback must not be nil'],
    [{ lock: undefined as never }, 'Lock must not be nil.'],
    [{ lock: new LeaseLock({ client: new FakeLeaseClient(), namespace: 'ns', name: 'n', identity: '' }) }, 'Lock identity is empty'],
  ];
  for (const [override, message] of cases) {
    const build = () => new LeaderElector({ lock, callbacks, ...durations, ...override });
    if (message === undefined) assert.ok(build());
    else assert.throws(build, (err: unknown) => err instanceof LeaderElectionConfigError && err.code === 'ERR_LEADER_ELECTION_CONFIG' && err.message === message, message);
  }
});

test('the first candidate creates the Lease, leads, and renews every retry period through the fast path', async () => {
  const { clock, store, log, start } = setup();
  const a = start('a');
  await clock.step(0);
  // Acquired, then the renew loop renews at once (wait.Until runs immediately).
  assert.deepEqual(calls(a), ['get NotFound', 'create(a) ok', 'update(a) ok']);
  assert.equal(a.elector.isLeader(), true);
  assert.equal(a.elector.getLeader(), 'a');
  assert.deepEqual(log, ['a sees a', 'a started']);
  const created = store.leases.get('lock')!;
  assert.deepEqual(created.spec, {
    holderIdentity: 'a',
    leaseDurationSeconds: 15,
    leaseTransitions: 0,
    acquireTime: '2024-01-01T00:00:00.000000Z',
    renewTime: '2024-01-01T00:00:00.000000Z',
  });

  await clock.step(2000);
  await clock.step(2000);
  assert.deepEqual(calls(a), ['get NotFound', 'create(a) ok', 'update(a) ok', 'update(a) ok', 'update(a) ok']);
  const renewed = store.leases.get('lock')!.spec!;
  assert.equal(renewed.renewTime, '2024-01-01T00:00:04.000000Z');
  assert.equal(renewed.acquireTime, '2024-01-01T00:00:00.000000Z', 'acquireTime is kept across renewals');

  a.abort.abort(new Error('shutdown'));
  await a.run;
  assert.deepEqual(log, ['a sees a', 'a started', 'a signal aborted: Error: shutdown', 'a stopped']);
  assert.equal(lease(store)!.holder, 'a', 'without releaseOnCancel the lease stays held');
  assert.equal(clock.hasWaiters(), false, 'no timers left behind');
});

test("a candidate never takes an unexpired lease; it takes over a lease duration after the holder's last renewal", async () => {
  const { clock, store, log, start } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b');
  await clock.step(0);
  assert.deepEqual(calls(b), ['get ok']);
  assert.equal(b.elector.isLeader(), false);
  assert.equal(b.elector.getLeader(), 'a');

  // a keeps renewing: b observes each change and never acquires.
  for (let i = 0; i < 10; i++) await clock.step(2000);
  assert.equal(lease(store)!.holder, 'a');
  assert.ok(calls(b).every((c) => c === 'get ok'));

  // a dies without releasing (stops renewing). b sees the last change at t=20s and takes over once
  // 15 s passed without a change.
  a.abort.abort();
  await a.run;
  const stoppedAt = clock.now();
  while (lease(store)!.holder === 'a') await clock.step(2000);
  const takeover = clock.now() - stoppedAt;
  assert.ok(takeover >= 15_000 && takeover <= 17_000, `took over after ${takeover} ms`);
  assert.deepEqual(lease(store), { holder: 'b', transitions: 1, seconds: 15, rv: lease(store)!.rv });
  assert.equal(b.elector.isLeader(), true);
  assert.deepEqual(log.filter((l) => l.startsWith('b')), ['b sees a', 'b sees b', 'b started']);
  b.abort.abort();
  await b.run;
});

test('optimistic concurrency: when two candidates race for an expired lease exactly one wins', async () => {
  const { clock, store, start } = setup();
  const a = start('a');
  await clock.step(0);
  a.abort.abort();
  await a.run;
  // b and c wait out a's lease in lockstep; b's takeover write is held back until c has written too,
  // so both update from the same resourceVersion.
  let releaseB!: () => void;
  const bClient = new FakeLeaseClient({ store });
  bClient.inject({ verb: 'update', until: new Promise<void>((resolve) => (releaseB = resolve)) });
  const b = start('b', {}, bClient);
  const c = start('c');
  while (!bClient.calls.some((x) => x.verb === 'update')) await clock.step(2000);
  assert.equal(lease(store)!.holder, 'c');
  releaseB();
  await clock.step(0);
  assert.deepEqual(calls(b).slice(-1), ['update(b) Conflict']);
  assert.deepEqual(calls(c).slice(-3), ['get ok', 'update(c) ok', 'update(c) ok']);
  assert.deepEqual([b, c].filter((x) => x.elector.isLeader()).map((x) => x.id), ['c']);
  assert.equal(lease(store)!.transitions, 1);
  // Many more rounds: still a single leader, and b follows c.
  for (let i = 0; i < 20; i++) {
    await clock.step(2000);
    assert.deepEqual([b, c].filter((x) => x.elector.isLeader()).map((x) => x.id), ['c']);
  }
  assert.equal(b.elector.getLeader(), 'c');
  b.abort.abort();
  c.abort.abort();
  await Promise.all([b.run, c.run]);
});

test('two candidates creating the lock at once: the loser gets AlreadyExists and does not lead', async () => {
  const { clock, start } = setup();
  const a = start('a');
  const b = start('b');
  await clock.step(0);
  assert.deepEqual(calls(a), ['get NotFound', 'create(a) ok', 'update(a) ok']);
  assert.deepEqual(calls(b), ['get NotFound', 'create(b) AlreadyExists']);
  assert.equal(b.elector.isLeader(), false);
  await clock.step(2000);
  assert.equal(b.elector.getLeader(), 'a');
  a.abort.abort();
  b.abort.abort();
  await Promise.all([a.run, b.run]);
});

test('a leader whose renewals keep failing gives up after the renew deadline and aborts the work signal first', async () => {
  const { clock, log, start } = setup();
  const client = new FakeLeaseClient({ store: new FakeLeaseStore() });
  const a = start('a', {}, client);
  await clock.step(0);
  assert.equal(a.elector.isLeader(), true);
  const unavailable = new StatusError(newStatus(503, 'ServiceUnavailable', 'unavailable'));
  for (let i = 0; i < 20; i++) {
    client.inject({ verb: 'update', error: unavailable });
    client.inject({ verb: 'get', error: unavailable });
  }
  const lostAt = T0 + 2000 + 10_000;
  await clock.step(2000); // renewal round starts at t=2s, deadline at t=12s
  await clock.step(lostAt - clock.now() - 1);
  assert.equal(a.leading!.aborted, false);
  await clock.step(1);
  await a.run;
  assert.ok(a.leading!.reason instanceof LeadershipLostError);
  // Attempts at 2, 4, 6, 8, 10 s (each: optimistic update, then get), none at the deadline itself.
  assert.deepEqual(calls(a).slice(3), Array.from({ length: 5 }, () => ['update(a) ServiceUnavailable', 'get ServiceUnavailable']).flat());
  assert.deepEqual(log, ['a sees a', 'a started', 'a signal aborted: ERR_LEADERSHIP_LOST', 'a stopped']);
  assert.equal(clock.hasWaiters(), false, 'no timers left behind');
});

test('a renewal hanging past the renew deadline is aborted and leadership is lost', async () => {
  const { clock, start } = setup();
  const a = start('a');
  await clock.step(0);
  a.client.inject({ verb: 'update', hang: true });
  a.client.inject({ verb: 'get', hang: true });
  await clock.step(2000);
  await clock.step(10_000);
  await a.run;
  assert.deepEqual(calls(a).slice(3), ['update(a) aborted', 'get aborted']);
  assert.ok(a.leading!.reason instanceof LeadershipLostError);
});

test('a conflicting optimistic renewal falls back to reading the lease and renews on the slow path', async () => {
  const { clock, store, start } = setup();
  const a = start('a');
  await clock.step(0);
  // Someone touched the Lease (e.g. a label change): a's cached resourceVersion is stale.
  const l = store.leases.get('lock')!;
  store.leases.set('lock', { ...l, metadata: { ...l.metadata, resourceVersion: store.nextResourceVersion() } });
  await clock.step(2000);
  assert.deepEqual(calls(a).slice(3), ['update(a) Conflict', 'get ok', 'update(a) ok']);
  assert.equal(a.elector.isLeader(), true);
  a.abort.abort();
  await a.run;
});

test('releaseOnCancel clears the holder so the next candidate takes over at once', async () => {
  const { clock, store, log, start } = setup();
  const a = start('a', { releaseOnCancel: true });
  await clock.step(0);
  const b = start('b');
  await clock.step(0);
  a.abort.abort();
  await a.run;
  assert.deepEqual(calls(a).slice(-2), ['get ok', 'update(-) ok']);
  const released = store.leases.get('lock')!.spec!;
  assert.equal(released.holderIdentity, '');
  assert.equal(released.leaseDurationSeconds, 1);
  assert.equal(released.leaseTransitions, 0);
  assert.equal(a.elector.isLeader(), false);
  // b's next attempt (one jittered retry period after its first) acquires.
  await clock.step(2000);
  assert.equal(lease(store)!.holder, 'b');
  assert.equal(lease(store)!.transitions, 1);
  assert.deepEqual(log.filter((x) => x.startsWith('a')), ['a sees a', 'a started', 'a signal aborted: AbortError', 'a stopped']);
  assert.deepEqual(log.filter((x) => x.startsWith('b')), ['b sees a', 'b sees b', 'b started']);
  b.abort.abort();
  await b.run;
});

test('a cancelled candidate that never led stops without touching the lease; onStoppedLeading is still called', async () => {
  const { clock, log, start } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b', { releaseOnCancel: true });
  await clock.step(0);
  b.abort.abort();
  await b.run;
  assert.deepEqual(calls(b), ['get ok']);
  assert.deepEqual(log.filter((x) => x.startsWith('b')), ['b sees a', 'b stopped']);
  a.abort.abort();
  await a.run;
});

test('acquire retries are jittered by up to 1.2 × retryPeriod with the injected random source', async () => {
  const { clock, start } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b', { random: () => 0.5 });
  await clock.step(0);
  assert.equal(clock.nextTimerIn(), 2000, 'a renews in one retry period');
  await clock.step(2000);
  // b waits 2000 + 0.5 × 1.2 × 2000 = 3200 ms between attempts.
  assert.equal(b.client.calls.length, 1);
  await clock.step(1199);
  assert.equal(b.client.calls.length, 1);
  await clock.step(1);
  assert.equal(b.client.calls.length, 2);
  a.abort.abort();
  b.abort.abort();
  await Promise.all([a.run, b.run]);
});

test('run cannot be entered twice at once', async () => {
  const { clock, start } = setup();
  const a = start('a');
  await assert.rejects(a.elector.run(), { code: 'ERR_ALREADY_RUNNING' });
  a.abort.abort();
  await clock.step(0);
  await a.run;
});

test('the health check fails only for a leader stuck past leaseDuration + tolerance', async () => {
  const clock = new FakeClock(T0);
  const client = new FakeLeaseClient();
  const inner = new LeaseLock({ client, namespace: 'default', name: 'lock', identity: 'a' });
  let stuck = false;
  // A lock whose update never settles once stuck, even when aborted: the election loop is wedged.
  const lock: ResourceLock = {
    get: (o) => inner.get(o),
    create: (r, o) => inner.create(r, o),
    update: (r, o) => (stuck ? new Promise<void>(() => {}) : inner.update(r, o)),
    recordEvent: () => {},
    identity: () => 'a',
    describe: () => 'default/lock',
  };
  const watchDog = new HealthzAdaptor({ maxTolerableExpiredLeaseMs: 5000 });
  assert.equal(watchDog.name(), 'leaderElection');
  assert.equal(watchDog.check(), undefined, 'no elector attached yet');
  const elector = new LeaderElector({ lock, ...durations, clock, random: () => 0, logger: noopLogger, watchDog, name: 'demo', callbacks: { onStartedLeading() {}, onStoppedLeading() {} } });
  const ac = new AbortController();
  void elector.run({ signal: ac.signal });
  await clock.step(0);
  assert.equal(elector.isLeader(), true);
  await clock.step(2000); // renewed at t=2s
  stuck = true;
  await clock.step(2000); // the renewal at t=4s never returns
  await clock.setTime(T0 + 2000 + 15_000 + 5000);
  assert.equal(watchDog.check(), undefined, 'exactly at the limit is still healthy');
  await clock.step(1);
  const err = watchDog.check();
  assert.equal(err?.code, 'ERR_LEADER_ELECTION_UNHEALTHY');
  assert.equal(err?.message, 'failed election to renew leadership on lease demo');
  ac.abort();
});

test('a rejecting onStartedLeading callback is logged, not thrown into the loop', async () => {
  const clock = new FakeClock(T0);
  const errors: string[] = [];
  const lock = new LeaseLock({ client: new FakeLeaseClient(), namespace: 'default', name: 'lock', identity: 'a' });
  const elector = new LeaderElector({
    ...durations,
    lock,
    clock,
    logger: { ...noopLogger, error: (m) => errors.push(m) },
    callbacks: { onStartedLeading: () => Promise.reject(new Error('boom')), onStoppedLeading() {} },
  });
  const ac = new AbortController();
  const run = elector.run({ signal: ac.signal });
  await clock.step(0);
  assert.deepEqual(errors, ['onStartedLeading callback failed']);
  assert.equal(elector.isLeader(), true);
  ac.abort();
  await run;
});
