// The CronJob operator of examples/cronjob (the kubebuilder tutorial's controller, `setupCronJobController`
// unchanged) in a Manager under the simulator, next to a simulated Job runner (a `SimControllerSpec` process
// of its own, perturbed like any controller) that completes each Job after the run time named in its
// template's `sim.kubeloom.dev/runtime-seconds` annotation. Three CronJobs run every minute for five and
// three quarter virtual minutes, then are suspended: Allow (30 s Jobs), Forbid (90 s Jobs, so every other
// slot finds one still running, and a 10 s starting deadline) and Replace (90 s Jobs).
// The example's imports are `kubeloom/...`: run under `node --conditions=kubeloom-source` (cronjob.test.ts
// re-runs itself that way).
import type { Job } from '../../src/api/batch/v1.ts';
import { isNotFound } from '../../src/apimachinery/errors.ts';
import { kinds } from '../../src/client/kinds.ts';
import { newManager } from '../../src/manager/manager.ts';
import type { ReconcileFunc } from '../../src/reconcile/reconcile.ts';
import { RestClient } from '../../src/rest/client.ts';
import { controlledBy, type ClusterView, type Invariant, type SimClient, type Simulation } from '../../src/sim/index.ts';
import { cronJobs, type ConcurrencyPolicy, type CronJob } from '../../examples/cronjob/api.ts';
import { scheduledTimeAnnotation, setupCronJobController } from '../../examples/cronjob/controller.ts';

const jobs = kinds.batchV1.jobs;
const runtimeAnnotation = 'sim.kubeloom.dev/runtime-seconds';
const suspendedAtAnnotation = 'sim.kubeloom.dev/suspended-at';
const minuteMs = 60_000;

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function finished(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** The Job runner: a Job runs from when the runner first sees it for its run time, then completes. */
const runJob: ReconcileFunc<SimClient> = async (req, { client }) => {
  let job: Job;
  try {
    job = await client.get(jobs, req);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (job.metadata?.deletionTimestamp !== undefined || finished(job)) return undefined;
  const now = Date.now();
  if (job.status?.startTime === undefined) {
    await client.patchStatus(jobs, req, { status: { startTime: rfc3339(now), active: 1 } });
    return undefined;
  }
  const endsAt = Date.parse(job.status.startTime) + Number(job.metadata?.annotations?.[runtimeAnnotation] ?? '10') * 1000;
  if (now < endsAt) return { requeueAfterMs: endsAt - now };
  await client.patchStatus(jobs, req, { status: { active: 0, succeeded: 1, completionTime: rfc3339(now), conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: rfc3339(now) }] } });
  return undefined;
};

function cronJob(name: string, concurrencyPolicy: ConcurrencyPolicy, runtimeSeconds: number, startingDeadlineSeconds?: number): CronJob {
  return {
    metadata: { name, namespace: 'default' },
    spec: {
      schedule: '* * * * *',
      concurrencyPolicy,
      ...(startingDeadlineSeconds === undefined ? {} : { startingDeadlineSeconds }),
      successfulJobsHistoryLimit: 2,
      failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { annotations: { [runtimeAnnotation]: String(runtimeSeconds) } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox' }] } } } },
    },
  };
}

// The Jobs each CronJob ever had, per schedule slot: the always-invariants see every write, so a Job is
// recorded before the history limit can delete it. Kept per run (the view is the run's).
const seen = new WeakMap<ClusterView, Map<string, Map<number, string>>>();

function slotsOf(view: ClusterView, cj: CronJob): Map<number, string> {
  let perCron = seen.get(view);
  if (perCron === undefined) seen.set(view, (perCron = new Map()));
  const key = cj.metadata!.uid!;
  let slots = perCron.get(key);
  if (slots === undefined) perCron.set(key, (slots = new Map()));
  return slots;
}

/** Always: no two Jobs (distinct uids) for one CronJob's schedule slot. */
const noDuplicateRun: Invariant = {
  name: 'noDuplicateRun',
  check(view) {
    for (const cj of view.list(cronJobs)) {
      const slots = slotsOf(view, cj);
      for (const job of controlledBy(view, jobs, cj)) {
        const at = job.metadata?.annotations?.[scheduledTimeAnnotation];
        if (at === undefined) return `Job ${job.metadata?.name} of CronJob ${cj.metadata?.name} has no ${scheduledTimeAnnotation}`;
        const t = Date.parse(at);
        const uid = slots.get(t);
        if (uid === undefined) slots.set(t, job.metadata!.uid!);
        else if (uid !== job.metadata!.uid) return `CronJob ${cj.metadata?.name}: a second Job ${job.metadata?.name} (uid ${job.metadata?.uid}) for the run at ${at} (the first was uid ${uid})`;
      }
    }
    return undefined;
  },
};

/** Always: under Forbid and Replace, at most one unfinished, not deleted Job. */
const concurrencyPolicyHonoured: Invariant = {
  name: 'concurrencyPolicyHonoured',
  check(view) {
    for (const cj of view.list(cronJobs)) {
      const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
      if (policy === 'Allow') continue;
      const running = controlledBy(view, jobs, cj).filter((j) => !finished(j) && j.metadata?.deletionTimestamp === undefined);
      if (running.length > 1) return `CronJob ${cj.metadata?.name} (${policy}): ${running.length} Jobs running at once: ${running.map((j) => j.metadata?.name).join(', ')}`;
    }
    return undefined;
  },
};

// The slots strictly after the CronJob's creation up to its suspension (schedule: every minute).
function expectedSlots(cj: CronJob): number[] {
  const from = Date.parse(cj.metadata!.creationTimestamp!);
  const to = Date.parse(cj.metadata!.annotations![suspendedAtAnnotation]!);
  const out: number[] = [];
  for (let t = Math.floor(from / minuteMs) * minuteMs + minuteMs; t <= to; t += minuteMs) out.push(t);
  return out;
}

/**
 * Eventually: Allow ran every slot once; Replace ran every slot; Forbid (90 s Jobs, a 10 s starting
 * deadline) ran every other slot: the slot a Job was still running at is skipped, and not run late once
 * it finished, since its deadline passed (without a deadline the tutorial, as upstream, starts the
 * skipped run late, when the running Job finished). Every Job finished, the history
 * within its limits, the status's active list empty and its lastScheduleTime the last run.
 */
const everyRunOnce: Invariant = {
  name: 'everyRunOnce',
  check(view) {
    for (const cj of view.list(cronJobs)) {
      const name = cj.metadata?.name;
      const ran = [...slotsOf(view, cj).keys()].sort((a, b) => a - b);
      const want = expectedSlots(cj);
      const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
      const missing = want.filter((t) => !ran.includes(t));
      const extra = ran.filter((t) => !want.includes(t));
      if (extra.length > 0) return `CronJob ${name}: runs outside its schedule window: ${extra.map(rfc3339).join(', ')}`;
      if (policy !== 'Forbid' && missing.length > 0) return `CronJob ${name} (${policy}): missed runs ${missing.map(rfc3339).join(', ')} (ran ${ran.map(rfc3339).join(', ')})`;
      if (policy === 'Forbid') {
        for (let i = 1; i < ran.length; i++) {
          const gap = ran[i]! - ran[i - 1]!;
          if (gap < 2 * minuteMs) return `CronJob ${name} (Forbid): runs at ${rfc3339(ran[i - 1]!)} and ${rfc3339(ran[i]!)} overlap (90 s Jobs)`;
          if (gap > 2 * minuteMs) return `CronJob ${name} (Forbid): no run between ${rfc3339(ran[i - 1]!)} and ${rfc3339(ran[i]!)} although the first ended after 90 s`;
        }
        if (ran[0] !== want[0]) return `CronJob ${name} (Forbid): first run at ${ran[0] === undefined ? 'never' : rfc3339(ran[0])}, want ${rfc3339(want[0]!)}`;
      }
      const children = controlledBy(view, jobs, cj);
      const unfinished = children.filter((j) => !finished(j) && j.metadata?.deletionTimestamp === undefined);
      if (unfinished.length > 0) return `CronJob ${name}: Job ${unfinished[0]!.metadata?.name} never finished`;
      const kept = children.filter((j) => j.metadata?.deletionTimestamp === undefined).length;
      if (kept > (cj.spec?.successfulJobsHistoryLimit ?? 3)) return `CronJob ${name}: ${kept} finished Jobs kept, history limit ${cj.spec?.successfulJobsHistoryLimit}`;
      if ((cj.status?.active ?? []).length > 0) return `CronJob ${name}: status.active still lists ${cj.status!.active!.map((r) => r.name).join(', ')}`;
      const last = ran.at(-1);
      if (last !== undefined && cj.status?.lastScheduleTime !== rfc3339(last)) return `CronJob ${name}: lastScheduleTime ${cj.status?.lastScheduleTime}, want ${rfc3339(last)}`;
    }
    return undefined;
  },
};

/** The CronJob operator (Allow, Forbid, Replace) over five and three quarter minutes of its every-minute schedule. */
export const cronJobSchedule: Simulation = {
  name: 'CronJob example: every-minute runs under Allow, Forbid and Replace',
  kinds: [cronJobs],
  processes: [{ name: 'jobrunner', controllers: [{ name: 'jobrunner', for: jobs, reconcile: runJob }] }],
  start(h) {
    const mgr = newManager(new RestClient(h.restConfig, h.restClientOptions('manager')), { clock: h.clock, logger: h.logger });
    setupCronJobController(mgr, { now: () => h.clock.now() });
    void mgr.start(h.signal).catch(() => undefined);
  },
  async scenario({ client, sleep, settle }) {
    for (const cj of [cronJob('allow', 'Allow', 30), cronJob('forbid', 'Forbid', 90, 10), cronJob('replace', 'Replace', 90)]) await client.create(cronJobs, cj);
    await sleep(5.75 * minuteMs);
    const at = rfc3339(Date.now());
    for (const name of ['allow', 'forbid', 'replace']) {
      await client.patch(cronJobs, { namespace: 'default', name }, { metadata: { annotations: { [suspendedAtAnnotation]: at } }, spec: { suspend: true } });
    }
    // The last runs finish (up to 90 s) and the history is cleaned up.
    await sleep(2 * minuteMs);
    await settle();
  },
  invariants: [noDuplicateRun, concurrencyPolicyHonoured],
  eventually: [everyRunOnce],
};
