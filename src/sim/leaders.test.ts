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
