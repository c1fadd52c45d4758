/**
 * The CronJob controller (kubernetes/pkg/controller/cronjob/cronjob_controllerv2.go and utils.go), written as
 * kube-controller-manager writes it, on kubeloom's client-go layer: shared informers for CronJobs and
 * Jobs, a delaying queue that wakes each CronJob at its next scheduled time, and one
 * {@link CronJobController.syncCronJob} that tracks its Jobs (status.active, lastSuccessfulTime, the
 * SawCompletedJob event), creates the Job of the most recent missed schedule — named
 * `<cronjob>-<scheduled time in minutes>`, with the `batch.kubernetes.io/cronjob-scheduled-timestamp`
 * annotation — unless suspended, past startingDeadlineSeconds, or held back by concurrencyPolicy (Forbid
 * skips, Replace deletes the running Jobs first), and deletes finished Jobs beyond
 * successfulJobsHistoryLimit and failedJobsHistoryLimit.
 *
 * Left out: the TooManyMissedTimes warning (more than 100 missed schedules are not counted), and the
 * `spec.timeZone` names the runtime's Intl does not know (the Job is not created, as upstream refuses
 * an unknown zone).
 */
import type { CronJob, CronJobStatus, Job } from '../../api/batch/v1.ts';
import type { ObjectReference } from '../../api/core/v1.ts';
import { isAlreadyExists, isNotFound } from '../../apimachinery/errors.ts';
import type { Controller } from '../../controller/controller.ts';
import { enqueueForObject, objectOf } from '../../controller/enqueue.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { EventRecorder } from '../../tools/events/record/event.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, recorderFor, withKind, type ControllerContext } from '../controller-context.ts';
import { canonicalJson, getControllerOf, newControllerRef, pruneZero, timeMs } from '../controller-utils.ts';
import { isJobFinished } from '../job/job-controller.ts';
import { nextScheduleTime, parseCronSchedule, type CronSchedule } from './cron-schedule.ts';

const cjApiVersion = 'batch/v1';
const cjKind = 'CronJob';
/** The scheduled time a CronJob's Job was created for (batch.CronJobScheduledTimestampAnnotation). */
export const cronJobScheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The scheduled times in (`earliestMs`, `nowMs`], the most recent last (at most 101 are looked at). */
export function missedScheduleTimes(s: CronSchedule, earliestMs: number, nowMs: number, timeZone?: string): number[] {
  const out: number[] = [];
  for (let t = nextScheduleTime(s, earliestMs, timeZone, nowMs - earliestMs + 60_000); t !== undefined && t <= nowMs; t = nextScheduleTime(s, t, timeZone, nowMs - t + 60_000)) {
    out.push(t);
    if (out.length > 100) out.shift();
  }
  return out;
}

/** The CronJob controller; see the file comment. */
export class CronJobController {
  /** The queue and its workers. */
  readonly controller: Controller;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #cjLister: Lister<CronJob>;
  readonly #jobLister: Lister<Job>;
  readonly #recorder: EventRecorder;

  constructor(ctx: ControllerContext, options: { workers?: number } = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    this.#recorder = recorderFor(ctx, 'cronjob-controller');
    const cjs = ctx.informerFactory.batchV1().cronJobs();
    const jobs = ctx.informerFactory.batchV1().jobs();
    this.#cjLister = cjs.lister();
    this.#jobLister = jobs.lister();
    this.controller = newSyncController(ctx, {
      name: 'cronjob',
      informers: [cjs.informer(), jobs.informer()],
      // kube-controller-manager's --concurrent-cron-job-syncs default.
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncCronJob(key),
    });
    cjs.informer().addEventHandler(enqueueForObject(this.controller));
    const onJob = (job: Job | undefined): void => {
      const ref = job === undefined ? undefined : getControllerOf(job);
      if (job !== undefined && ref?.kind === cjKind) this.controller.add(`${job.metadata?.namespace ?? ''}/${ref.name}`);
    };
    jobs.informer().addEventHandler({ onAdd: onJob, onUpdate: (_o, j) => onJob(j), onDelete: (obj) => onJob(objectOf(obj)) });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  /** Tracks the CronJob's Jobs, starts the one due, trims history, and wakes at the next time (sync). */
  async syncCronJob(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let cj: CronJob;
    try {
      cj = structuredClone(this.#cjLister.namespace(namespace).get(name));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (cj.metadata?.deletionTimestamp !== undefined) return;
    const subject = withKind(cj, cjApiVersion, cjKind);
    const jobs = this.#jobLister.namespace(namespace).list().filter((j) => getControllerOf(j)?.uid === cj.metadata?.uid);
    const status: CronJobStatus = structuredClone(cj.status ?? {});
    const now = this.#clock.now();

    // Track the Jobs: the running ones are active; finished ones leave with an event (syncCronJob's first part).
    const wasActive = new Set((status.active ?? []).map((r) => r.uid));
    const active: ObjectReference[] = [];
    for (const job of jobs) {
      const ref = { apiVersion: cjApiVersion, kind: 'Job', name: job.metadata?.name ?? '', namespace, uid: job.metadata?.uid ?? '', resourceVersion: job.metadata?.resourceVersion ?? '' };
      if (!isJobFinished(job)) {
        active.push(ref);
        continue;
      }
      if (wasActive.has(job.metadata?.uid)) {
        const cond = job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
        this.#recorder.eventf(subject, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata?.name ?? ''}, condition: ${cond?.type ?? ''}`);
      }
      const done = job.status?.completionTime;
      if (done !== undefined && job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true && (status.lastSuccessfulTime === undefined || timeMs(done) > timeMs(status.lastSuccessfulTime))) {
        status.lastSuccessfulTime = done;
      }
    }
    status.active = active;

    let schedule: CronSchedule | undefined;
    try {
      schedule = parseCronSchedule(cj.spec?.schedule ?? '');
    } catch (err) {
      this.#recorder.eventf(subject, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(cj.spec?.schedule ?? '')} : ${err instanceof Error ? err.message : String(err)}`);
    }
    const timeZone = cj.spec?.timeZone;
    if (schedule !== undefined && cj.spec?.suspend !== true) {
      const earliest = timeMs(status.lastScheduleTime ?? cj.metadata?.creationTimestamp);
      const deadline = cj.spec?.startingDeadlineSeconds;
      const from = Math.max(Number.isNaN(earliest) ? now : earliest, deadline === undefined || deadline === null ? Number.NEGATIVE_INFINITY : now - deadline * 1000);
      const due = missedScheduleTimes(schedule, from, now, timeZone).at(-1);
      if (due !== undefined) await this.#startJob(cj, status, due, jobs);
    }
    await this.#cleanupFinishedJobs(cj, jobs);
    if (canonicalJson(pruneZero(status)) !== canonicalJson(pruneZero(cj.status ?? {}))) await this.#ctx.client.batchV1().cronJobs(namespace).updateStatus({ ...cj, status });
    // Wake at the next scheduled time (nextScheduleTimeDuration: 100 ms after it).
    if (schedule !== undefined) {
      const next = nextScheduleTime(schedule, now, timeZone);
      if (next !== undefined) this.controller.addAfter(key, next - now + 100);
    }
  }

  async #startJob(cj: CronJob, status: CronJobStatus, scheduledMs: number, jobs: Job[]): Promise<void> {
    const ns = cj.metadata?.namespace ?? '';
    const subject = withKind(cj, cjApiVersion, cjKind);
    const jobName = `${cj.metadata?.name ?? ''}-${Math.floor(scheduledMs / 60_000)}`;
    // Already made for this time (or the cache has it).
    if (jobs.some((j) => j.metadata?.name === jobName)) return;
    const running = (status.active ?? []).length > 0;
    const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && running) {
      this.#recorder.eventf(subject, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return;
    }
    const client = this.#ctx.client.batchV1().jobs(ns);
    if (policy === 'Replace') {
      for (const ref of status.active ?? []) {
        try {
          await client.delete(ref.name ?? '', { propagationPolicy: 'Background' });
          this.#recorder.eventf(subject, 'Normal', 'SuccessfulDelete', `Deleted job ${ref.name ?? ''}`);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      status.active = [];
    }
    const template = cj.spec?.jobTemplate;
    const job: Job = {
      metadata: {
        name: jobName,
        labels: { ...template?.metadata?.labels },
        annotations: { ...template?.metadata?.annotations, [cronJobScheduledTimestampAnnotation]: new Date(scheduledMs).toISOString().replace('.000Z', 'Z') },
        ownerReferences: [newControllerRef(cj, cjApiVersion, cjKind)],
      },
      spec: structuredClone(template?.spec ?? { template: {} }),
    };
    if (Object.keys(job.metadata!.labels!).length === 0) delete job.metadata!.labels;
    let created: Job;
    try {
      created = await client.create(job);
      this.#recorder.eventf(subject, 'Normal', 'SuccessfulCreate', `Created job ${jobName}`);
    } catch (err) {
      if (!isAlreadyExists(err)) {
        this.#recorder.eventf(subject, 'Warning', 'FailedCreate', `Error creating job: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      }
      created = await client.get(jobName);
    }
    status.active = [...(status.active ?? []), { apiVersion: cjApiVersion, kind: 'Job', name: jobName, namespace: ns, uid: created.metadata?.uid ?? '', resourceVersion: created.metadata?.resourceVersion ?? '' }];
    status.lastScheduleTime = formatTime(scheduledMs);
  }

  /** Deletes the oldest finished Jobs beyond the history limits (cleanupFinishedJobs). */
  async #cleanupFinishedJobs(cj: CronJob, jobs: Job[]): Promise<void> {
    const subject = withKind(cj, cjApiVersion, cjKind);
    const client = this.#ctx.client.batchV1().jobs(cj.metadata?.namespace ?? '');
    const byStart = (a: Job, b: Job): number => (a.status?.startTime ?? a.metadata?.creationTimestamp ?? '').localeCompare(b.status?.startTime ?? b.metadata?.creationTimestamp ?? '');
    const succeeded = jobs.filter((j) => j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true).sort(byStart);
    const failed = jobs.filter((j) => j.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True') === true).sort(byStart);
    const excess = [...succeeded.slice(0, Math.max(0, succeeded.length - (cj.spec?.successfulJobsHistoryLimit ?? 3))), ...failed.slice(0, Math.max(0, failed.length - (cj.spec?.failedJobsHistoryLimit ?? 1)))];
    for (const job of excess) {
      if (job.metadata?.deletionTimestamp !== undefined) continue;
      try {
        await client.delete(job.metadata?.name ?? '', { propagationPolicy: 'Background' });
        this.#recorder.eventf(subject, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name ?? ''}`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
