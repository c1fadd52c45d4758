import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../util/clock/clock.ts';
import { SimCluster } from './cluster.ts';
import { newEnv } from './env.ts';
import { LeaderTracker } from './leaders.ts';
import { defaultPerturbationRates } from './perturbations.ts';
import { Scheduler } from './scheduler.ts';

function setup(): { tracker: LeaderTracker; env: ReturnType<typeof newEnv>; clock: FakeClock } {
  const clock = new FakeClock();
  const sched = new Scheduler(clock, 1, undefined, 0);
  const env = newEnv(sched, new SimCluster(sched, 10, 1), defaultPerturbationRates, { maxWatchDelayMs: 0, maxRequestDelayMs: 0, restartDelayMs: 0, watchRetryMs: 0, maxPauseMs: 0 });
  return { tracker: new LeaderTracker(env), env, clock };
}

test('leaderOverlap: a leader that never paused reconciling after another acquired its Lease fails the run', async () => {
  const { tracker, env, clock } = setup();
  tracker.acquired('a', 'default/l');
  tracker.acquired('a', 'default/l'); // the elector's line and the Manager's
  tracker.reconciled('a', 'c', 'default/x');
  assert.equal(env.failure, undefined);
  await clock.step(16_000);
  tracker.acquired('b', 'default/l');
  tracker.reconciled('b', 'c', 'default/x');
  assert.equal(env.failure, undefined);
  tracker.reconciled('a', 'c', 'default/x');
  const failure = env.failure as { invariant: string; message: string } | undefined;
  assert.equal(failure?.invariant, 'leaderOverlap');
  assert.match(failure.message, /a reconciled default\/x \(c\) as leader of default\/l, which b acquired 16000ms after it, without a pause/);
});

test('leaderOverlap: the same after a pause of that leader is a split brain the contract allows', () => {
  const { tracker, env, clock } = setup();
  tracker.acquired('a', 'default/l');
  tracker.paused('a', clock.now(), clock.now() + 20_000);
  tracker.acquired('b', 'default/l');
  tracker.reconciled('a', 'c', 'default/x');
  assert.equal(env.failure, undefined);
  assert.equal(tracker.splitBrains, 1);
  assert.ok(env.sched.trace.some((l) => l.includes('SPLIT BRAIN a reconciled default/x')));
});

test('leaderOverlap: a crashed leader holds nothing; its restart must acquire again', () => {
  const { tracker, env } = setup();
  tracker.acquired('a', 'default/l');
  tracker.crashed('a');
  tracker.acquired('b', 'default/l');
  tracker.reconciled('a', 'c', 'default/x');
  assert.equal(env.failure, undefined);
});

test('leaderOverlap: a resumed leader may act for maxStaleLeaderMs after its pause ended, not longer', async () => {
  const { tracker, env, clock } = setup();
  tracker.acquired('a', 'default/l');
  tracker.paused('a', clock.now(), clock.now() + 20_000);
  await clock.step(16_000);
  tracker.acquired('b', 'default/l');
  await clock.step(4_000 + 3_000);
  tracker.reconciled('a', 'c', 'default/x');
  assert.equal(env.failure, undefined);
  assert.ok(env.sched.trace.some((l) => l.includes('SPLIT BRAIN a reconciled default/x (c) as leader of default/l, which b acquired 16000ms after it; 7000ms after b took over, 3000ms after a resumed (allowed up to 15000ms after it resumed')), env.sched.trace.join('\n'));
  await clock.step(12_001);
  tracker.reconciled('a', 'c', 'default/y');
  const failure = env.failure as { invariant: string; message: string } | undefined;
  assert.equal(failure?.invariant, 'leaderOverlap');
  assert.match(failure.message, /19001ms after b took over, 15001ms after a resumed, past the 15000ms a resumed leader may act/);
});

test('leaderOverlap: a process that never held the Lease reconciling what its holder reconciles fails the run', () => {
  const { tracker, env } = setup();
  tracker.acquired('a', 'default/l');
  tracker.reconciled('a', 'c', 'default/x');
  tracker.reconciled('b', 'c', 'default/other');
  assert.equal(env.failure, undefined);
  tracker.reconciled('b', 'c', 'default/x');
  const failure = env.failure as { invariant: string; message: string } | undefined;
  assert.equal(failure?.invariant, 'leaderOverlap');
  assert.match(failure.message, /b reconciled default\/x \(c\) without holding default\/l, which a holds and reconciles it under/);
});
