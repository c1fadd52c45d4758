/**
 * The CronJob operator on the embedded API server: the CRD's validation, a Job started for a missed
 * run and owned by its CronJob, the CronJob's status following its Jobs, history limits, suspension.
 * Run with `node --test examples/cronjob/cronjob.test.ts`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from 'kubeloom/api/batch/v1';
import { isInvalid } from 'kubeloom/apimachinery';
import { kinds } from 'kubeloom/client';
import { newManager } from 'kubeloom/manager';
import { eventually, installCrds, startApiServer } from 'kubeloom/testing';
import { cronJobCrd, cronJobs, type CronJob } from './api.ts';
import { scheduledTimeAnnotation, setupCronJobController } from './controller.ts';
import { parseSchedule } from './cron.ts';

const jobs = kinds.batchV1.jobs;
const quiet = { debug() {}, info() {}, error() {} };

function cronJob(name: string, spec: Partial<NonNullable<CronJob['spec']>> = {}): CronJob {
  return {
    apiVersion: 'batch.tutorial.kubebuilder.io/v1',
    kind: 'CronJob',
    metadata: { namespace: 'default', name },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'hello', image: 'busybox', args: ['echo', 'hello'] }] } } } },
      ...spec,
    },
  };
}

test('cron schedules: steps, ranges, lists and shorthands', () => {
  const t = Date.UTC(2026, 0, 1, 10, 7, 30);
  assert.equal(new Date(parseSchedule('*/15 * * * *').next(t)).toISOString(), '2026-01-01T10:15:00.000Z');
  assert.equal(new Date(parseSchedule('0 9-17 * * 1-5').next(t)).toISOString(), '2026-01-01T11:00:00.000Z');
  assert.equal(new Date(parseSchedule('@daily').next(t)).toISOString(), '2026-01-02T00:00:00.000Z');
  assert.throws(() => parseSchedule('61 * * * *'), /bad cron field/);
});

test('the CronJob operator starts the missed run as an owned Job, tracks it in status, and keeps the history limits', async (t) => {
  const server = await startApiServer();
  await installCrds(server, { crds: [cronJobCrd] });
  let now = Date.now();
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: quiet });
  setupCronJobController(mgr, { now: () => now });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
    await server.stop();
  });
  const client = mgr.getClient();

  // The CRD's schema refuses what kubebuilder's validation markers refuse.
  await assert.rejects(client.create(cronJobs, cronJob('bad', { concurrencyPolicy: 'Sometimes' as 'Allow' })), (e) => isInvalid(e));
  await assert.rejects(client.create(cronJobs, cronJob('bad', { startingDeadlineSeconds: -1 })), (e) => isInvalid(e));

  const created = await client.create(cronJobs, cronJob('hello', { successfulJobsHistoryLimit: 1 }));
  // Two minutes later a run was missed: the next reconcile starts it.
  now = Date.parse(created.metadata!.creationTimestamp!) + 120_000;
  const poke = (): Promise<unknown> => client.patch(cronJobs, created, 'application/merge-patch+json', { metadata: { annotations: { poke: String(now) } } });
  await poke();
  const first = await eventually(async () => {
    const list = await client.list(jobs, { namespace: 'default', uncached: true });
    assert.equal(list.length, 1);
    return list[0]!;
  }, { timeoutMs: 5_000 });
  assert.deepEqual(first.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.controller]), [['CronJob', 'hello', true]]);
  assert.ok(first.metadata?.annotations?.[scheduledTimeAnnotation] !== undefined);
  await eventually(async () => assert.deepEqual((await client.get(cronJobs, { namespace: 'default', name: 'hello' })).status?.active?.map((a) => a.name), [first.metadata?.name]), { timeoutMs: 5_000 });

  // The Job finishes (no job controller runs here: its status is written as one would).
  const complete = (job: Job, startTime: string): Job => ({ ...structuredClone(job), status: { startTime, completionTime: startTime, succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] } });
  await client.updateStatus(jobs, complete(first, '2026-01-01T00:00:00Z'));
  await eventually(async () => {
    const cj = await client.get(cronJobs, { namespace: 'default', name: 'hello' });
    assert.deepEqual(cj.status?.active, []);
    assert.equal(cj.status?.lastScheduleTime, first.metadata?.annotations?.[scheduledTimeAnnotation]);
  }, { timeoutMs: 5_000 });

  // The next run; once it succeeds too, the history limit of 1 deletes the older Job.
  now += 60_000;
  await poke();
  const second = await eventually(async () => {
    const list = await client.list(jobs, { namespace: 'default', uncached: true });
    const other = list.find((j) => j.metadata?.name !== first.metadata?.name);
    assert.ok(other !== undefined);
    return other;
  }, { timeoutMs: 5_000 });
  await client.updateStatus(jobs, complete(second, '2026-01-01T00:01:00Z'));
  await eventually(async () => assert.deepEqual((await client.list(jobs, { namespace: 'default', uncached: true })).map((j) => j.metadata?.name), [second.metadata?.name]), { timeoutMs: 5_000 });

  // Suspended: no new Job even though runs are missed.
  await client.patch(cronJobs, created, 'application/merge-patch+json', { spec: { suspend: true } });
  now += 300_000;
  await poke();
  const events = await eventually(async () => {
    const list = await client.list(kinds.eventsV1.events, { namespace: 'default', uncached: true });
    assert.ok(list.length >= 2);
    return list;
  }, { timeoutMs: 5_000 });
  assert.ok(events.every((e) => e.reason === 'SuccessfulCreate' && e.reportingController === 'cronjob'));
  assert.equal((await client.list(jobs, { namespace: 'default', uncached: true })).length, 1);
});
