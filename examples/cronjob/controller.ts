/**
 * The CronJob controller of the kubebuilder book's tutorial, written with kubeloom's manager and builder:
 * it lists the Jobs it owns through a field index, updates the CronJob's status (active Jobs, last
 * schedule time), deletes finished Jobs beyond the history limits, and, unless suspended, starts the Job
 * of the most recent missed run (honouring the starting deadline and the concurrency policy), then asks to
 * be reconciled again at the next scheduled time.
 *
 * Webhooks: the tutorial also defaults and validates CronJobs with admission webhooks; they are in
 * webhook.ts (`setupCronJobWebhookWithManager`), set up next to this controller by main.ts as
 * kubebuilder's cmd/main.go does, so the controller also runs without them. It applies the same
 * defaults itself (`withDefaults`) for CronJobs created while the webhooks were off.
 */
import type { Job } from 'kubeloom/api/batch/v1';
import type { ObjectReference } from 'kubeloom/api/core/v1';
import { controllerManagedBy } from 'kubeloom/builder';
import { controllerOf, kinds, setControllerReference, type Client } from 'kubeloom/client';
import type { Manager, ManagedController } from 'kubeloom/manager';
import { TerminalError, type Result } from 'kubeloom/reconcile';
import { isNotFound, isAlreadyExists } from 'kubeloom/apimachinery';
import { cronJobs, type CronJob, type CronJobSpec } from './api.ts';
import { parseSchedule } from './cron.ts';

/** The annotation recording when a Job was scheduled to run (the tutorial's scheduledTimeAnnotation). */
export const scheduledTimeAnnotation = 'batch.tutorial.kubebuilder.io/scheduled-at';
/** The field index of Jobs by the name of their controlling CronJob (the tutorial's jobOwnerKey). */
export const jobOwnerKey = '.metadata.controller';

const jobs = kinds.batchV1.jobs;

/** What the tutorial's defaulting webhook sets. */
export function withDefaults(spec: CronJobSpec): Required<Pick<CronJobSpec, 'concurrencyPolicy' | 'suspend' | 'successfulJobsHistoryLimit' | 'failedJobsHistoryLimit'>> & CronJobSpec {
  return { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, ...spec };
}

function finishedType(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  return undefined;
}

function scheduledTime(job: Job): number | undefined {
  const raw = job.metadata?.annotations?.[scheduledTimeAnnotation];
  return raw === undefined ? undefined : Date.parse(raw);
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The most recent missed run (if any) and the next run (the tutorial's getNextSchedule). */
function nextSchedule(cronJob: CronJob, now: number): { missed: number | undefined; next: number } {
  const schedule = parseSchedule(cronJob.spec!.schedule);
  const last = cronJob.status?.lastScheduleTime ?? cronJob.metadata?.creationTimestamp;
  let earliest = last !== undefined ? Date.parse(last) : now;
  const deadline = cronJob.spec?.startingDeadlineSeconds;
  if (deadline !== undefined) earliest = Math.max(earliest, now - deadline * 1000);
  if (earliest > now) return { missed: undefined, next: schedule.next(now) };
  let missed: number | undefined;
  let starts = 0;
  for (let t = schedule.next(earliest); t <= now; t = schedule.next(t)) {
    missed = t;
    // As the tutorial: too many missed start times means a clock skew or a wrong schedule.
    if (++starts > 100) throw new TerminalError('too many missed start times (> 100): set or decrease .spec.startingDeadlineSeconds or check clock skew');
  }
  return { missed, next: schedule.next(now) };
}

/** Options of {@link setupCronJobController}. */
export interface CronJobControllerOptions {
  /** The time the schedule is evaluated at (ms since the epoch). Default: the real time. */
  now?: () => number;
}

/**
 * Registers the Job index and the CronJob controller (`for` CronJobs, `owns` Jobs) with the manager.
 *
 * @example
 * const mgr = newManager(config, { leaderElection: { id: 'cronjob-operator' } });
 * setupCronJobController(mgr);
 * await mgr.start(setupSignalHandler());
 */
export function setupCronJobController(mgr: Manager, options: CronJobControllerOptions = {}): ManagedController<Client> {
  const now = options.now ?? (() => Date.now());
  mgr.indexField(jobs, jobOwnerKey, (job) => {
    const owner = controllerOf(job);
    return owner !== undefined && owner.apiVersion === 'batch.tutorial.kubebuilder.io/v1' && owner.kind === 'CronJob' ? [owner.name] : [];
  });
  // Webhooks: setupCronJobWebhookWithManager (webhook.ts), called by main.ts unless ENABLE_WEBHOOKS=false.
  return controllerManagedBy(mgr)
    .for(cronJobs)
    .owns(jobs)
    .complete(async ({ namespace, name }, { client, logger, recorder }): Promise<Result> => {
      // 1: load the CronJob by name.
      let cronJob: CronJob;
      try {
        cronJob = await client.get(cronJobs, { namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
      const spec = withDefaults(cronJob.spec!);

      // 2: list all active jobs, and update the status.
      const children = await client.list(jobs, { namespace, fieldSelector: `${jobOwnerKey}=${name}` });
      const active: Job[] = [];
      const successful: Job[] = [];
      const failed: Job[] = [];
      let mostRecent: number | undefined;
      for (const job of children) {
        const finished = finishedType(job);
        if (finished === 'Complete') successful.push(job);
        else if (finished === 'Failed') failed.push(job);
        else active.push(job);
        const t = scheduledTime(job);
        if (t !== undefined && (mostRecent === undefined || t > mostRecent)) mostRecent = t;
      }
      const status = {
        ...(mostRecent !== undefined ? { lastScheduleTime: rfc3339(mostRecent) } : cronJob.status?.lastScheduleTime !== undefined ? { lastScheduleTime: cronJob.status.lastScheduleTime } : {}),
        active: active.map((j): ObjectReference => ({ apiVersion: 'batch/v1', kind: 'Job', namespace, name: j.metadata?.name ?? '', uid: j.metadata?.uid ?? '' })),
      };
      if (JSON.stringify(status) !== JSON.stringify({ active: [], ...cronJob.status })) {
        cronJob = await client.updateStatus(cronJobs, { ...structuredClone(cronJob), status });
      }
      logger.debug('job count', { active: active.length, successful: successful.length, failed: failed.length });

      // 3: clean up old jobs according to the history limits.
      const byTime = (a: Job, b: Job): number => (a.status?.startTime ?? '').localeCompare(b.status?.startTime ?? '');
      for (const [list, limit] of [
        [failed.sort(byTime), spec.failedJobsHistoryLimit],
        [successful.sort(byTime), spec.successfulJobsHistoryLimit],
      ] as const) {
        for (const job of list.slice(0, Math.max(0, list.length - limit))) {
          await client.delete(jobs, job, { propagationPolicy: 'Background' }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
        }
      }

      // 4: check if we're suspended.
      if (spec.suspend) return undefined;

      // 5: get the next scheduled run.
      const current = now();
      const { missed, next } = nextSchedule(cronJob, current);
      const requeue = { requeueAfterMs: Math.max(1, next - current) };

      // 6: run a new job if it's on schedule, not past the deadline, and not blocked by the concurrency policy.
      if (missed === undefined) return requeue;
      const deadline = spec.startingDeadlineSeconds;
      if (deadline !== undefined && missed + deadline * 1000 < current) return requeue;
      if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) return requeue;
      if (spec.concurrencyPolicy === 'Replace') {
        for (const job of active) await client.delete(jobs, job, { propagationPolicy: 'Background' }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      }

      // 7: construct a job from the template, owned by the CronJob.
      const template = structuredClone(spec.jobTemplate);
      const job: Job = {
        metadata: {
          namespace,
          name: `${name}-${Math.floor(missed / 1000)}`,
          labels: { ...template.metadata?.labels },
          annotations: { ...template.metadata?.annotations, [scheduledTimeAnnotation]: rfc3339(missed) },
        },
        spec: template.spec!,
      };
      setControllerReference(cronJobs, cronJob, job);
      try {
        await client.create(jobs, job);
        recorder.eventf(cronJob, undefined, 'Normal', 'SuccessfulCreate', 'Create', `Created job ${job.metadata!.name}`);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      return requeue;
    });
}
