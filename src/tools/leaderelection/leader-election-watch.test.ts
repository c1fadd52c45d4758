import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../api/coordination/v1.ts';
import { StatusError, newStatus } from '../../apimachinery/errors.ts';
import type { RequestOptions } from '../../apimachinery/options.ts';
import { FakeClock } from '../../util/clock/clock.ts';
import { noopLogger } from '../events/logger.ts';
import { LeaderElector, type LeaderElectionConfig } from './leader-election.ts';
import { FakeLeaseClient, FakeLeaseStore } from './resourcelock/fake-lease-client.ts';
import { LeaseLock, type LeaseClient } from './resourcelock/lease-lock.ts';

// component-base's values, which core components pass.
const durations = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const T0 = Date.UTC(2024, 0, 1);

interface Candidate {
  id: string;
  client: FakeLeaseClient;
  elector: LeaderElector;
  abort: AbortController;
  run: Promise<void>;
  /** Fake-clock offset from T0 at which onStartedLeading ran. */
  startedAt?: number;
}

function setup() {
  const clock = new FakeClock(T0);
  const store = new FakeLeaseStore();
  const start = (id: string, config: Partial<LeaderElectionConfig> = {}, client: LeaseClient = new FakeLeaseClient({ store })): Candidate => {
    const lock = new LeaseLock({ client, namespace: 'default', name: 'lock', identity: id });
    const candidate = { id, client, abort: new AbortController() } as Candidate;
    candidate.elector = new LeaderElector({
      lock,
      ...durations,
      clock,
      // A poll-only candidate waits 2 000 × (1 + 1.2 × 0.75) = 3 800 ms between attempts.
      random: () => 0.75,
      logger: noopLogger,
      callbacks: {
        onStartedLeading: () => {
          candidate.startedAt = clock.now() - T0;
        },
        onStoppedLeading: () => {},
      },
      ...config,
    });
    candidate.run = candidate.elector.run({ signal: candidate.abort.signal });
    return candidate;
  };
  /** Kills `c` as SIGKILL would: no release, no more renewals. */
  const kill = async (c: Candidate): Promise<void> => {
    c.abort.abort(new Error('killed'));
    await c.run;
  };
  const renewTime = (): number => Date.parse(store.leases.get('lock')!.spec!.renewTime!) - T0;
  return { clock, store, start, kill, renewTime };
}

const gets = (c: Candidate): number => c.client.calls.filter((x) => x.verb === 'get').length;

test('with watchLock a follower takes over exactly one lease duration after the dead leader’s last renewal', async () => {
  const { clock, store, start, kill, renewTime } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b', { watchLock: true });
  await clock.step(0);
  assert.equal(store.watchCount(), 1);
  assert.equal(b.elector.getLeader(), 'a');
  await clock.step(5_000);
  await kill(a);
  assert.equal(renewTime(), 4_000, "a's last renewal");
  // Step 100 ms at a time: b must lead at 19 000 exactly, not on a later retry tick.
  while (b.startedAt === undefined && clock.now() - T0 < 40_000) await clock.step(100);
  assert.equal(b.startedAt, 4_000 + 15_000);
  assert.equal(store.leases.get('lock')!.spec!.holderIdentity, 'b');
  assert.equal(store.watchCount(), 0, 'the watch ends once leading');
  // No more polling than client-go's elector: one GET per jittered retry period (3.8 s), plus the wake-up.
  assert.equal(gets(b), 6, 'GETs at 0, 3.8, 7.6, 11.4, 15.2 and 19.0 s');
  b.abort.abort();
  await b.run;
  assert.equal(clock.hasWaiters(), false);
});

test('without watchLock (client-go) the same failover waits for the jittered retry ticks', async () => {
  const { clock, start, kill } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b');
  await clock.step(0);
  await clock.step(5_000);
  await kill(a);
  while (b.startedAt === undefined && clock.now() - T0 < 40_000) await clock.step(100);
  // b polls at 0, 3.8, 7.6 (sees the 4 000 renewal: expiry 22.6), 11.4, 15.2, 19.0, 22.8.
  assert.equal(b.startedAt, 22_800);
  b.abort.abort();
  await b.run;
});

test('with watchLock a released lease is taken at the moment the release is seen', async () => {
  const { clock, store, start } = setup();
  const a = start('a', { releaseOnCancel: true });
  await clock.step(0);
  const b = start('b', { watchLock: true });
  await clock.step(0);
  await clock.step(3_000);
  a.abort.abort();
  await a.run;
  await clock.step(0);
  assert.equal(b.startedAt, 3_000);
  assert.equal(store.leases.get('lock')!.spec!.leaseTransitions, 1);
  b.abort.abort();
  await b.run;
});

test('with watchLock a deleted lock is created again at once', async () => {
  const { clock, store, start, kill } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b', { watchLock: true });
  await clock.step(0);
  await clock.step(1_000);
  await kill(a);
  store.delete('lock');
  await clock.step(0);
  assert.equal(b.startedAt, 1_000);
  assert.equal(store.leases.get('lock')!.spec!.holderIdentity, 'b');
  b.abort.abort();
  await b.run;
});

test('a dropped watch is opened again after a retry period and the expiry still wakes the follower', async () => {
  const { clock, store, start, kill, renewTime } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b', { watchLock: true });
  await clock.step(0);
  await clock.step(1_000);
  store.closeWatches();
  await clock.step(0);
  assert.equal(store.watchCount(), 0);
  // a renews at 2 000 while b's watch is down; the new watch starts with the current record.
  await clock.step(2_000);
  assert.equal(store.watchCount(), 1, 'watching again a retry period after the drop');
  await clock.step(3_000);
  await kill(a);
  assert.equal(renewTime(), 6_000);
  while (b.startedAt === undefined && clock.now() - T0 < 40_000) await clock.step(100);
  assert.equal(b.startedAt, 21_000);
  b.abort.abort();
  await b.run;
});

test('a lock whose client cannot watch falls back to polling, still waking at the observed expiry', async () => {
  const { clock, store, start, kill } = setup();
  const a = start('a');
  await clock.step(0);
  const fake = new FakeLeaseClient({ store });
  const noWatch: LeaseClient = {
    get: (name: string, o?: RequestOptions) => fake.get(name, o),
    create: (l: Lease, o?: RequestOptions) => fake.create(l, o),
    update: (l: Lease, o?: RequestOptions) => fake.update(l, o),
  };
  const b = start('b', { watchLock: true }, noWatch);
  await clock.step(0);
  await clock.step(5_000);
  await kill(a);
  while (b.startedAt === undefined && clock.now() - T0 < 40_000) await clock.step(100);
  // Polls at 0, 3.8, 7.6 (sees the 4 000 renewal): expiry 22.6, woken then instead of at 22.8.
  assert.equal(b.startedAt, 22_600);
  assert.equal(store.watchCount(), 0);
  b.abort.abort();
  await b.run;
});

test('an attempt that fails at the expiry waits a retry period instead of spinning', async () => {
  const { clock, start, kill } = setup();
  const a = start('a');
  await clock.step(0);
  const b = start('b', { watchLock: true });
  await clock.step(0);
  await clock.step(5_000);
  await kill(a);
  await clock.step(13_900);
  // The server fails the GETs around the expiry (19 000).
  const unavailable = new StatusError(newStatus(503, 'ServiceUnavailable', 'down'));
  for (let i = 0; i < 3; i++) b.client.inject({ verb: 'get', error: unavailable });
  const before = gets(b);
  while (b.startedAt === undefined && clock.now() - T0 < 40_000) await clock.step(100);
  // Fails at 19 000, 22 800 and 26 600 (one GET each, no spinning); succeeds at 30 400.
  assert.equal(gets(b) - before, 4);
  assert.equal(b.startedAt, 19_000 + 3 * 3_800);
  b.abort.abort();
  await b.run;
});
