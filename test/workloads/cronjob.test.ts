/**
 * The CronJob controller (src/controllers/cronjob) on a server whose clock the test drives: a Job per
 * scheduled minute, named after it, tracked in status.active until it completes, then history trimmed;
 * concurrencyPolicy Forbid and suspend.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CronJob } from '../../src/api/batch/v1.ts';
import { PatchType } from '../../src/apimachinery/options.ts';
import { FakeClock } from '../../src/util/clock/clock.ts';
import { startCluster, waitForItems, waitForObject } from './support.ts';

const cronJob = (name: string, spec: Partial<NonNullable<CronJob['spec']>> = {}): CronJob => ({
  metadata: { name },
  spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } }, ...spec },
});

test('a CronJob starts a Job each scheduled minute, tracks it until it completes, and keeps successfulJobsHistoryLimit of them', async (t) => {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:30Z'));
  const { client } = await startCluster(t, {}, { clock });
  const cronJobs = client.batchV1().cronJobs('default');
  await cronJobs.create(cronJob('tick', { successfulJobsHistoryLimit: 1 }));
  await waitForObject(cronJobs, 'tick', (c) => c !== undefined);
  for (const [i, minute] of [29_453_761, 29_453_762].entries()) {
    await clock.step(60_000);
    const name = `tick-${minute}`;
    const job = await waitForObject(client.batchV1().jobs('default'), name, (j) => j?.status?.conditions?.some((c) => c.type === 'Complete') === true);
    assert.equal(job?.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], `2026-01-01T00:0${i + 1}:00Z`);
    assert.equal(job?.metadata?.ownerReferences?.[0]?.kind, 'CronJob');
    const cj = await waitForObject(cronJobs, 'tick', (c) => c?.status?.lastSuccessfulTime !== undefined && (c.status.active ?? []).length === 0 && c.status.lastScheduleTime === `2026-01-01T00:0${i + 1}:00Z`);
    assert.ok(cj !== undefined);
  }
  // The older Job went: one successful Job kept.
  const jobs = await waitForItems(client.batchV1().jobs('default'), (items) => items.length === 1);
  assert.equal(jobs[0]?.metadata?.name, 'tick-29453762');
  const events = await waitForItems(client.coreV1().events('default'), (items) => items.some((e) => e.reason === 'SawCompletedJob'));
  assert.ok(events.some((e) => e.reason === 'SuccessfulCreate' && e.message === 'Created job tick-29453761'));
});

test('concurrencyPolicy Forbid skips a run while the previous Job is active; a suspended CronJob starts nothing', async (t) => {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:30Z'));
  // Jobs' pods keep running: the first Job stays active.
  const { client } = await startCluster(t, { kubelet: { podOutcome: () => ({ phase: 'Running' }) } }, { clock });
  const cronJobs = client.batchV1().cronJobs('default');
  await cronJobs.create(cronJob('busy', { concurrencyPolicy: 'Forbid' }));
  // A witness that runs every minute: once its Job of a minute exists, the other CronJob had its turn too.
  await cronJobs.create(cronJob('witness'));
  await waitForObject(cronJobs, 'busy', (c) => c !== undefined);
  await waitForObject(cronJobs, 'witness', (c) => c !== undefined);
  await clock.step(60_000);
  await waitForObject(cronJobs, 'busy', (c) => (c?.status?.active ?? []).length === 1);
  await clock.step(60_000);
  await waitForItems(client.coreV1().events('default'), (items) => items.some((e) => e.reason === 'JobAlreadyActive'));
  const busyJobs = async (): Promise<number> => (await client.batchV1().jobs('default').list()).items.filter((j) => j.metadata?.name?.startsWith('busy-') === true).length;
  assert.equal(await busyJobs(), 1);
  await cronJobs.patch('busy', PatchType.Merge, { spec: { suspend: true, concurrencyPolicy: 'Allow' } });
  await waitForObject(cronJobs, 'busy', (c) => c?.spec?.suspend === true);
  await clock.step(60_000);
  await waitForObject(client.batchV1().jobs('default'), 'witness-29453763', (j) => j !== undefined);
  const cj = await cronJobs.get('busy');
  assert.equal(cj.status?.lastScheduleTime, '2026-01-01T00:01:00Z', 'nothing scheduled while suspended');
  assert.equal(await busyJobs(), 1);
});
