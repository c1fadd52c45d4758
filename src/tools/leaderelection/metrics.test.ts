import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { FakeClock } from '../../util/clock/clock.ts';
import { noopLogger } from '../events/logger.ts';
import { LeaderElector } from './leader-election.ts';
import type { LeaderMetricsProvider } from './metrics.ts';
import { newPrometheusLeaderMetricsProvider } from './prometheus-metrics.ts';
import { FakeLeaseClient } from './resourcelock/fake-lease-client.ts';
import { LeaseLock } from './resourcelock/lease-lock.ts';

function elector(clock: FakeClock, client: FakeLeaseClient, metricsProvider: LeaderMetricsProvider): LeaderElector {
  return new LeaderElector({
    leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000,
    lock: new LeaseLock({ client, namespace: 'default', name: 'lock', identity: 'a' }),
    name: 'demo',
    clock,
    logger: noopLogger,
    metricsProvider,
    callbacks: { onStartedLeading() {}, onStoppedLeading() {} },
  });
}

test('metrics: off at construction, on when acquired, slow-path renewals counted, off when stopped', async () => {
  const clock = new FakeClock(0);
  const client = new FakeLeaseClient();
  const calls: string[] = [];
  const provider: LeaderMetricsProvider = {
    newLeaderMetric: () => ({ on: (n) => calls.push(`on ${n}`), off: (n) => calls.push(`off ${n}`), slowpathExercised: (n) => calls.push(`slowpath ${n}`) }),
  };
  const e = elector(clock, client, provider);
  assert.deepEqual(calls, ['off demo']);
  const ac = new AbortController();
  const run = e.run({ signal: ac.signal });
  await clock.step(0);
  assert.deepEqual(calls, ['off demo', 'on demo']);
  // A stale resourceVersion makes the optimistic renewal fail: the slow path renews.
  const l = client.store.leases.get('lock')!;
  client.store.leases.set('lock', { ...l, metadata: { ...l.metadata, resourceVersion: client.store.nextResourceVersion() } });
  await clock.step(2000);
  assert.deepEqual(calls, ['off demo', 'on demo', 'slowpath demo']);
  ac.abort();
  await run;
  assert.deepEqual(calls, ['off demo', 'on demo', 'slowpath demo', 'off demo']);
});

test('the prom-client provider exposes leader_election_master_status and leader_election_slowpath_total by name', async () => {
  const registry = new Registry();
  const clock = new FakeClock(0);
  const provider = newPrometheusLeaderMetricsProvider(registry);
  assert.doesNotThrow(() => newPrometheusLeaderMetricsProvider(registry), 'a second provider on the same registry reuses the metrics');
  const e = elector(clock, new FakeLeaseClient(), provider);
  const ac = new AbortController();
  const run = e.run({ signal: ac.signal });
  await clock.step(0);
  const text = await registry.metrics();
  assert.match(text, /^leader_election_master_status\{name="demo"\} 1$/m);
  ac.abort();
  await run;
  assert.match(await registry.metrics(), /^leader_election_master_status\{name="demo"\} 0$/m);
  assert.match(await registry.metrics(), /^# TYPE leader_election_slowpath_total counter$/m);
});
