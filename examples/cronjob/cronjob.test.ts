/**
 * The CronJob operator on the embedded API server: the CRD's validation, a Job started for a missed
 * run and owned by its CronJob, the CronJob's status following its Jobs, history limits, suspension;
 * and its defaulting and validating webhooks, called by the API server (development mode: a local CA,
 * the webhook configurations written by setupDevWebhooks).
 * Run with `node --conditions=kubeloom-source --test examples/cronjob/cronjob.test.ts`; with
 * KUBELOOM_TEST_KUBECONFIG set it runs against that cluster instead, in a namespace of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job } from 'kubeloom/api/batch/v1';
import { isInvalid, statusOf } from 'kubeloom/apimachinery';
import { kinds } from 'kubeloom/client';
import { loadKubeConfigFile, restConfigFrom } from 'kubeloom/clientcmd';
import { newManager } from 'kubeloom/manager';
import { newClientset } from 'kubeloom/kubernetes';
import type { RestConfig } from 'kubeloom/rest';
import { eventually, installCrds, startApiServer } from 'kubeloom/testing';
import { ensureServingCertificates, setupDevWebhooks, WebhookServer } from 'kubeloom/webhook';
import { cronJobCrd, cronJobs, type CronJob } from './api.ts';
import { scheduledTimeAnnotation, setupCronJobController } from './controller.ts';
import { parseSchedule } from './cron.ts';
import { setupCronJobWebhookWithManager } from './webhook.ts';

const jobs = kinds.batchV1.jobs;
const quiet = { debug() {}, info() {}, error() {} };

let ns = 'default';

/** The embedded server, or the cluster of KUBELOOM_TEST_KUBECONFIG (then in a new namespace). */
async function backend(t: import('node:test').TestContext): Promise<RestConfig> {
  const file = process.env['KUBELOOM_TEST_KUBECONFIG'];
  if (file === undefined || file === '') {
    const server = await startApiServer();
    t.after(() => server.stop());
    await installCrds(server, { crds: [cronJobCrd] });
    return { host: server.url, qps: -1 };
  }
  const config = { ...(await restConfigFrom(await loadKubeConfigFile(file))), qps: -1 };
  ns = `manager-cronjob-${Math.random().toString(36).slice(2, 8)}`;
  const setup = newManager(config, { logger: quiet }).getAPIReader();
  await setup.create(kinds.coreV1.namespaces, { metadata: { name: ns } });
  t.after(() => setup.delete(kinds.coreV1.namespaces, { name: ns }).catch(() => undefined));
  await installCrds(config, { crds: [cronJobCrd] });
  return config;
}

function cronJob(name: string, spec: Partial<NonNullable<CronJob['spec']>> = {}): CronJob {
  return {
    apiVersion: 'batch.tutorial.kubebuilder.io/v1',
    kind: 'CronJob',
    metadata: { namespace: ns, name },
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
  const config = await backend(t);
  let now = Date.now();
  const mgr = newManager(config, { logger: quiet, cache: { defaultNamespaces: [ns] } });
  setupCronJobController(mgr, { now: () => now });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
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
    const list = await client.list(jobs, { namespace: ns, uncached: true });
    assert.equal(list.length, 1);
    return list[0]!;
  }, { timeoutMs: 5_000 });
  assert.deepEqual(first.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.controller]), [['CronJob', 'hello', true]]);
  assert.ok(first.metadata?.annotations?.[scheduledTimeAnnotation] !== undefined);
  await eventually(async () => assert.deepEqual((await client.get(cronJobs, { namespace: ns, name: 'hello' })).status?.active?.map((a) => a.name), [first.metadata?.name]), { timeoutMs: 5_000 });

  // The Job finishes (no job controller runs here: its status is written as one would).
  const complete = (job: Job, startTime: string): Job => ({ ...structuredClone(job), status: { startTime, completionTime: startTime, succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] } });
  await client.updateStatus(jobs, complete(first, '2026-01-01T00:00:00Z'));
  await eventually(async () => {
    const cj = await client.get(cronJobs, { namespace: ns, name: 'hello' });
    assert.deepEqual(cj.status?.active, []);
    assert.equal(cj.status?.lastScheduleTime, first.metadata?.annotations?.[scheduledTimeAnnotation]);
  }, { timeoutMs: 5_000 });

  // The next run; once it succeeds too, the history limit of 1 deletes the older Job.
  now += 60_000;
  await poke();
  const second = await eventually(async () => {
    const list = await client.list(jobs, { namespace: ns, uncached: true });
    const other = list.find((j) => j.metadata?.name !== first.metadata?.name);
    assert.ok(other !== undefined);
    return other;
  }, { timeoutMs: 5_000 });
  await client.updateStatus(jobs, complete(second, '2026-01-01T00:01:00Z'));
  await eventually(async () => assert.deepEqual((await client.list(jobs, { namespace: ns, uncached: true })).map((j) => j.metadata?.name), [second.metadata?.name]), { timeoutMs: 5_000 });

  // Suspended: no new Job even though runs are missed.
  await client.patch(cronJobs, created, 'application/merge-patch+json', { spec: { suspend: true } });
  now += 300_000;
  await poke();
  const events = await eventually(async () => {
    const list = await client.list(kinds.eventsV1.events, { namespace: ns, uncached: true });
    assert.ok(list.length >= 2);
    return list;
  }, { timeoutMs: 5_000 });
  assert.ok(events.every((e) => e.reason === 'SuccessfulCreate' && e.reportingController === 'cronjob'));
  assert.equal((await client.list(jobs, { namespace: ns, uncached: true })).length, 1);
});

test('the CronJob webhooks default unset fields and refuse long names and bad schedules, called by the API server', async (t) => {
  const config = await backend(t);
  const certDir = await mkdtemp(path.join(tmpdir(), 'cronjob-webhooks-'));
  t.after(() => rm(certDir, { recursive: true, force: true }));
  // Port 0: the certificates are made before the server starts, the configurations written after.
  await ensureServingCertificates({ certDir, hosts: ['127.0.0.1'] });
  const webhookServer = new WebhookServer({ host: '127.0.0.1', port: 0, certDir, logger: quiet });
  const mgr = newManager(config, { logger: quiet, webhookServer });
  const webhooks = setupCronJobWebhookWithManager(mgr);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await webhookServer.whenStarted();
  // Scoped to this test's namespace: a real cluster is shared.
  const scope = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
  const dev = await setupDevWebhooks({
    clientset: newClientset(config),
    server: webhookServer,
    mutating: [{ name: `cronjob-mutating-${ns}`, webhooks: [webhooks.mutatingWebhook(scope)] }],
    validating: [{ name: `cronjob-validating-${ns}`, webhooks: [webhooks.validatingWebhook(scope)] }],
  });
  t.after(() => dev.teardown().catch(() => undefined));
  const client = mgr.getAPIReader();

  // A real API server picks up new webhook configurations asynchronously: wait until a dry run is defaulted.
  await eventually(async () => assert.equal((await client.create(cronJobs, cronJob('probe'), { dryRun: ['All'] })).spec?.concurrencyPolicy, 'Allow'), { timeoutMs: 10_000 });
  const created = await client.create(cronJobs, cronJob('defaults'));
  const { concurrencyPolicy, suspend, successfulJobsHistoryLimit, failedJobsHistoryLimit } = created.spec!;
  assert.deepEqual({ concurrencyPolicy, suspend, successfulJobsHistoryLimit, failedJobsHistoryLimit }, { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  const kept = await client.create(cronJobs, cronJob('kept', { concurrencyPolicy: 'Forbid', suspend: true, successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 5 }));
  assert.deepEqual([kept.spec?.concurrencyPolicy, kept.spec?.suspend, kept.spec?.successfulJobsHistoryLimit, kept.spec?.failedJobsHistoryLimit], ['Forbid', true, 0, 5]);

  // 52 characters pass, 53 do not (a Job's name adds 11 to the CronJob's).
  await client.create(cronJobs, cronJob('a'.repeat(52)), { dryRun: ['All'] });
  const long = 'a'.repeat(53);
  const refused = (fields: string[], message: RegExp) => (err: unknown) => {
    assert.ok(isInvalid(err), String(err));
    assert.match((err as Error).message, message);
    assert.deepEqual(statusOf(err)?.details?.causes?.map((c) => c.field), fields);
    return true;
  };
  await assert.rejects(client.create(cronJobs, cronJob(long)), refused(['metadata.name'], new RegExp(`CronJob.batch.tutorial.kubebuilder.io "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 52 characters`)));
  await assert.rejects(client.create(cronJobs, cronJob('bad-schedule', { schedule: '*/5 * * *' })), refused(['spec.schedule'], /spec\.schedule: Invalid value: "\*\/5 \* \* \*": expected 5 cron fields/));
  await assert.rejects(client.create(cronJobs, cronJob(long, { schedule: '61 * * * *' })), refused(['metadata.name', 'spec.schedule'], /is invalid: \[metadata\.name: .*, spec\.schedule: Invalid value: "61 \* \* \* \*": bad cron field "61"\]/));
  // Updates are validated too.
  await assert.rejects(client.patch(cronJobs, created, 'application/merge-patch+json', { spec: { schedule: 'every minute' } }), refused(['spec.schedule'], /spec\.schedule/));
});
