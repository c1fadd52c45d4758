/**
 * The Job controller (kubernetes/pkg/controller/job/job_controller.go and pod_failure_policy.go), written
 * as kube-controller-manager writes it, on kubeloom's client-go layer: shared informers for Jobs and
 * Pods, a rate-limited queue, {@link UIDTrackingControllerExpectations}, and one
 * {@link JobController.syncJob} that claims the Job's pods, counts them, decides whether the Job has
 * succeeded (completions reached; for a work queue without completions, a pod succeeded and none is left
 * running) or failed (more failed pods than backoffLimit, activeDeadlineSeconds passed, or a
 * podFailurePolicy FailJob rule), keeps `parallelism` pods running otherwise (slow-start batches, the
 * pod-failure backoff of 10 s doubling up to 6 minutes), suspends, and writes the status.
 *
 * As the modelled upstream (1.31+, JobManagedBy), a finishing Job first gets its interim condition —
 * SuccessCriteriaMet or FailureTarget — its remaining pods are deleted, and only once none is left does
 * it get Complete (with completionTime) or Failed. kube-controller-manager v1.24 sets Complete or Failed
 * at once and leaves no interim condition.
 *
 * Indexed Jobs (completionMode Indexed, indexed_job_utils.go) run one pod per completion index, the index
 * in the pod's `batch.kubernetes.io/job-completion-index` annotation and label, its hostname
 * `<job>-<index>`, its name `<job>-<index>-<random>` and JOB_COMPLETION_INDEX in every container; a failed
 * index runs again (after the backoff), `status.completedIndexes` lists the indexes that succeeded, and
 * the Job completes once all have. The newer fields are served as the 1.32 server does:
 * `backoffLimitPerIndex` (per-index failure counts in the pods' annotations, per-index backoff, an index
 * failed for good in `status.failedIndexes`, the Job failed with FailedIndexes once every index is done, or
 * MaxFailedIndexesExceeded past `maxFailedIndexes`) and `successPolicy` (SuccessCriteriaMet with reason
 * SuccessPolicy, then Complete with the same reason, the lingering pods deleted). kube-controller-manager
 * v1.24 has neither field.
 *
 * Left out: the
 * `batch.kubernetes.io/job-tracking` pod finalizers and uncountedTerminatedPods (pods are counted while
 * they exist, as the legacy tracking did: a finished pod deleted by hand is no longer counted),
 * podReplacementPolicy (replacements are created once a pod is terminating), managedBy other than the
 * default (such Jobs are skipped), and the job's metrics.
 */
import type { Job, JobCondition, JobStatus, PodFailurePolicyRule } from '../../api/batch/v1.ts';
import type { Pod } from '../../api/core/v1.ts';
import { isNotFound } from '../../apimachinery/errors.ts';
import { labelSelectorAsSelector, type LabelSelector } from '../../apimachinery/labels.ts';
import { objectKey } from '../../apimachinery/meta.ts';
import type { Controller } from '../../controller/controller.ts';
import { objectOf } from '../../controller/enqueue.ts';
import { UIDTrackingControllerExpectations } from '../../controller/expectations.ts';
import type { DeletedFinalStateUnknown } from '../../tools/cache/key-functions.ts';
import { splitMetaNamespaceKey } from '../../tools/cache/key-functions.ts';
import type { Lister } from '../../tools/cache/lister.ts';
import type { EventRecorder } from '../../tools/events/record/event.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { newSyncController, recorderFor, withKind, type ControllerContext } from '../controller-context.ts';
import { ControllerRefManager, recheckDeletionTimestamp } from '../controller-ref-manager.ts';
import {
  addCompletionIndexEnvVariables,
  duplicatedIndexPodsForRemoval,
  firstPendingIndexes,
  getCompletionIndex,
  getIndexAbsoluteFailureCount,
  getIndexFailureCount,
  getNewIndexFailureCounts,
  hasBackoffLimitPerIndex,
  isIndexedJob,
  jobCompletionIndexAnnotation,
  jobIndexFailureCountAnnotation,
  jobIndexIgnoredFailureCountAnnotation,
  matchSuccessPolicy,
  OrderedIntervals,
  podGenerateNameWithIndex,
  unknownCompletionIndex,
} from './indexed-job-utils.ts';
import { createPodsWithExpectations, deletePodsWithExpectations, RealPodControl } from '../pod-control.ts';
import {
  canonicalJson,
  comparePodsForDeletion,
  getControllerOf,
  getPodFromTemplate,
  isPodActive,
  isPodReady,
  isPodTerminating,
  newControllerRef,
  nowTime,
  pruneZero,
  timeMs,
} from '../controller-utils.ts';

const jobApiVersion = 'batch/v1';
const jobKind = 'Job';
/** Upstream DefaultJobPodFailureBackOff: the first replacement of a failed pod waits 10 s. */
export const defaultJobPodFailureBackOffMs = 10_000;
/** Upstream MaxJobPodFailureBackOff: the wait doubles up to 6 minutes. */
export const maxJobPodFailureBackOffMs = 360_000;
// The default managedBy: Jobs managed by anything else are left to it.
const jobControllerName = 'kubernetes.io/job-controller';

/** Condition reasons and messages of the Job controller. */
const Reason = {
  BackoffLimitExceeded: ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
  DeadlineExceeded: ['DeadlineExceeded', 'Job was active longer than specified deadline'],
  CompletionsReached: ['CompletionsReached', 'Reached expected number of succeeded pods'],
  MaxFailedIndexesExceeded: ['MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes'],
  FailedIndexes: ['FailedIndexes', 'Job has failed indexes'],
} as const;
// JobReasonSuccessPolicy: the reason of SuccessCriteriaMet (and Complete) when a success rule matched.
const successPolicyReason = 'SuccessPolicy';

/** Options of {@link JobController}. */
export interface JobControllerOptions {
  /** Concurrent syncs (default 5, kube-controller-manager's --concurrent-job-syncs). */
  workers?: number;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** The condition of a type when True. */
function trueCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** A Job with Complete or Failed True (IsJobFinished). */
export function isJobFinished(job: Job): boolean {
  return trueCondition(job, 'Complete') !== undefined || trueCondition(job, 'Failed') !== undefined;
}

/** Sets a condition, keeping the transition time when its status does not change. */
function setCondition(status: JobStatus, type: string, value: string, reason: string, message: string, now: string): void {
  const conditions = status.conditions ?? [];
  const current = conditions.find((c) => c.type === type);
  if (current !== undefined && current.status === value && current.reason === reason && current.message === message) return;
  const lastTransitionTime = current !== undefined && current.status === value ? (current.lastTransitionTime ?? now) : now;
  const next: JobCondition = { type, status: value, lastProbeTime: now, lastTransitionTime, reason, message };
  status.conditions = current === undefined ? [...conditions, next] : conditions.map((c) => (c.type === type ? next : c));
}

/** The rule a failed pod matched. */
export interface PodFailurePolicyMatch {
  /** The rule's action: FailJob, Ignore, Count (or FailIndex). */
  action: string;
  /** What a FailJob reports in the Failed condition. */
  message: string;
}

/**
 * The first podFailurePolicy rule a failed pod matches, with the message a FailJob gives
 * (matchPodFailurePolicy). Rules on exit codes look at terminated containers with a non-zero code.
 */
export function matchPodFailurePolicy(rules: readonly PodFailurePolicyRule[], pod: Pod): PodFailurePolicyMatch | undefined {
  const podName = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  for (const [index, rule] of rules.entries()) {
    const exit = rule.onExitCodes;
    if (exit !== undefined) {
      const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
      for (const c of statuses) {
        if (exit.containerName !== undefined && exit.containerName !== c.name) continue;
        const code = c.state?.terminated?.exitCode;
        if (code === undefined || code === 0) continue;
        const inValues = exit.values.includes(code);
        if ((exit.operator === 'In' && inValues) || (exit.operator === 'NotIn' && !inValues)) {
          return { action: rule.action, message: `Container ${c.name} for pod ${podName} failed with exit code ${code} matching ${rule.action} rule at index ${index}` };
        }
      }
    }
    for (const pattern of rule.onPodConditions ?? []) {
      const cond = pod.status?.conditions?.find((c) => c.type === pattern.type && c.status === (pattern.status ?? 'True'));
      if (cond !== undefined) return { action: rule.action, message: `Pod ${podName} has condition ${pattern.type} matching ${rule.action} rule at index ${index}` };
    }
  }
  return undefined;
}

/** The Job controller; see the file comment. */
export class JobController {
  /** The queue and its workers. */
  readonly controller: Controller;
  /** Pending creates and deletes per Job key. */
  readonly expectations: UIDTrackingControllerExpectations;
  readonly #ctx: ControllerContext;
  readonly #clock: Clock;
  readonly #jobLister: Lister<Job>;
  readonly #podLister: Lister<Pod>;
  readonly #recorder: EventRecorder;
  readonly #podControl: RealPodControl;

  constructor(ctx: ControllerContext, options: JobControllerOptions = {}) {
    this.#ctx = ctx;
    this.#clock = ctx.clock;
    this.#recorder = recorderFor(ctx, 'job-controller');
    this.#podControl = new RealPodControl(ctx.client, this.#recorder);
    this.expectations = new UIDTrackingControllerExpectations({ clock: ctx.clock });
    const jobInformer = ctx.informerFactory.batchV1().jobs();
    const podInformer = ctx.informerFactory.coreV1().pods();
    this.#jobLister = jobInformer.lister();
    this.#podLister = podInformer.lister();
    this.controller = newSyncController(ctx, {
      name: 'job',
      informers: [jobInformer.informer(), podInformer.informer()],
      workers: options.workers ?? 5,
      reconcile: (key) => this.syncJob(key),
    });
    jobInformer.informer().addEventHandler({
      onAdd: (job) => this.controller.add(objectKey(job)),
      onUpdate: (_old, job) => this.controller.add(objectKey(job)),
      onDelete: (obj) => {
        const job = objectOf(obj);
        const key = job !== undefined ? objectKey(job) : (obj as DeletedFinalStateUnknown<Job>).key;
        this.expectations.deleteExpectations(key);
        this.controller.add(key);
      },
    });
    podInformer.informer().addEventHandler({
      onAdd: (pod) => this.#podChanged(pod, 'add'),
      onUpdate: (old, pod) => {
        if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
        if (pod.metadata?.deletionTimestamp !== undefined && old.metadata?.deletionTimestamp === undefined) this.#podChanged(pod, 'delete');
        else this.#podChanged(pod, 'update');
      },
      onDelete: (obj) => {
        const pod = objectOf(obj);
        if (pod !== undefined) this.#podChanged(pod, 'delete');
      },
    });
  }

  /** Runs the workers until `signal` aborts (after the caches synced). */
  run(options: { signal: AbortSignal }): Promise<void> {
    return this.controller.run(options);
  }

  #resolve(namespace: string, ref: { kind: string; name: string; uid: string }): Job | undefined {
    if (ref.kind !== jobKind) return undefined;
    try {
      const job = this.#jobLister.namespace(namespace).get(ref.name);
      return job.metadata?.uid === ref.uid ? job : undefined;
    } catch {
      return undefined;
    }
  }

  #podChanged(pod: Pod, what: 'add' | 'update' | 'delete'): void {
    const ref = getControllerOf(pod);
    if (ref === undefined) return;
    const job = this.#resolve(pod.metadata?.namespace ?? '', ref);
    if (job === undefined) return;
    const key = objectKey(job);
    if (what === 'add' && pod.metadata?.deletionTimestamp === undefined) this.expectations.creationObserved(key);
    if (what === 'delete' || (what === 'add' && pod.metadata?.deletionTimestamp !== undefined)) this.expectations.deletionObservedOf(key, objectKey(pod));
    this.controller.add(key);
  }

  /** Brings the Job `key` one step towards its end (syncJob). Exposed for tests. */
  async syncJob(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    let job: Job;
    try {
      job = structuredClone(this.#jobLister.namespace(namespace).get(name));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.expectations.deleteExpectations(key);
      return;
    }
    if (isJobFinished(job)) return;
    if ((job.spec?.managedBy ?? jobControllerName) !== jobControllerName) return;
    let selector: LabelSelector;
    try {
      selector = labelSelectorAsSelector(job.spec?.selector);
    } catch {
      return;
    }
    const satisfied = this.expectations.satisfiedExpectations(key);
    const pods = await this.#claimPods(job, selector);
    const active = pods.filter(isPodActive);
    const terminating = pods.filter(isPodTerminating).length;
    let succeeded = pods.filter((p) => p.status?.phase === 'Succeeded').length;
    const failedPods = pods.filter((p) => p.status?.phase === 'Failed');
    const completions = job.spec?.completions ?? undefined;
    // Indexed Jobs count indexes, not pods: those recorded before and those whose pod succeeded since.
    const indexed = isIndexedJob(job) && completions !== undefined ? { completions, ...this.#indexes(job, pods, completions) } : undefined;
    if (indexed !== undefined) succeeded = indexed.succeeded.total();
    const status: JobStatus = structuredClone(job.status ?? {});
    const now = nowTime(this.#clock);
    const suspended = job.spec?.suspend === true;
    if (status.startTime === undefined && !suspended) status.startTime = now;

    // Why the Job fails, if it does (an interim FailureTarget decided earlier stands).
    let failure: readonly [string, string] | undefined;
    const target = trueCondition(job, 'FailureTarget');
    if (target !== undefined) failure = [target.reason ?? '', target.message ?? ''];
    let failed = 0;
    const rules = job.spec?.podFailurePolicy?.rules ?? [];
    for (const pod of failedPods) {
      const match = rules.length > 0 ? matchPodFailurePolicy(rules, pod) : undefined;
      if (match?.action === 'Ignore') continue;
      failed++;
      if (match?.action === 'FailJob') failure ??= ['PodFailurePolicy', match.message];
    }
    if (failure === undefined && failed > (job.spec?.backoffLimit ?? 6)) failure = Reason.BackoffLimitExceeded;
    const maxFailedIndexes = job.spec?.maxFailedIndexes ?? undefined;
    if (failure === undefined && indexed?.failed !== undefined) {
      const failedIndexes = indexed.failed.total();
      if (maxFailedIndexes !== undefined && failedIndexes > maxFailedIndexes) failure = Reason.MaxFailedIndexesExceeded;
      else if (failedIndexes > 0 && failedIndexes + indexed.succeeded.total() >= indexed.completions) failure = Reason.FailedIndexes;
    }
    const deadline = job.spec?.activeDeadlineSeconds;
    if (failure === undefined && deadline !== undefined && status.startTime !== undefined && !suspended) {
      const left = timeMs(status.startTime) + deadline * 1000 - this.#clock.now();
      if (left <= 0) failure = Reason.DeadlineExceeded;
      else this.controller.addAfter(key, left);
    }
    // Why the Job succeeds, if it does: a SuccessCriteriaMet decided earlier, a success rule, completions.
    let success: readonly [string, string] | undefined;
    const met = trueCondition(job, 'SuccessCriteriaMet');
    if (failure === undefined) {
      const rule = indexed === undefined ? undefined : matchSuccessPolicy(job.spec?.successPolicy, indexed.completions, indexed.succeeded);
      if (met !== undefined) success = [met.reason ?? '', met.message ?? ''];
      else if (rule !== undefined) success = [successPolicyReason, rule];
      else if (completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0) success = Reason.CompletionsReached;
    }

    let manageError: unknown;
    if (failure !== undefined || success !== undefined) {
      const why = failure ?? success ?? Reason.CompletionsReached;
      setCondition(status, failure !== undefined ? 'FailureTarget' : 'SuccessCriteriaMet', 'True', why[0], why[1], now);
      try {
        await this.#deletePods(job, active, active.length);
      } catch (err) {
        manageError = err;
      }
      if (active.length === 0 && terminating === 0) {
        const subject = withKind(job, jobApiVersion, jobKind);
        if (failure !== undefined) {
          setCondition(status, 'Failed', 'True', failure[0], failure[1], now);
          this.#recorder.eventf(subject, 'Warning', failure[0], failure[1]);
        } else {
          setCondition(status, 'Complete', 'True', why[0], why[1], now);
          status.completionTime = now;
          this.#recorder.eventf(subject, 'Normal', 'Completed', 'Job completed');
        }
      }
    } else if (suspended) {
      try {
        await this.#deletePods(job, active, active.length);
      } catch (err) {
        manageError = err;
      }
      if (status.conditions?.find((c) => c.type === 'Suspended')?.status !== 'True') {
        setCondition(status, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now);
        this.#recorder.eventf(withKind(job, jobApiVersion, jobKind), 'Normal', 'Suspended', 'Job suspended');
      }
    } else {
      if (status.conditions?.find((c) => c.type === 'Suspended')?.status === 'True') {
        setCondition(status, 'Suspended', 'False', 'JobResumed', 'Job resumed', now);
        status.startTime = now;
        this.#recorder.eventf(withKind(job, jobApiVersion, jobKind), 'Normal', 'Resumed', 'Job resumed');
      }
      if (satisfied) {
        try {
          await this.#manageJob(job, active, succeeded, failedPods, indexed);
        } catch (err) {
          manageError = err;
        }
      }
    }
    status.active = active.length;
    status.ready = active.filter(isPodReady).length;
    status.succeeded = succeeded;
    status.failed = failed;
    status.terminating = terminating;
    status.uncountedTerminatedPods = {};
    if (indexed !== undefined) {
      status.completedIndexes = indexed.succeeded.toString();
      if (indexed.failed !== undefined) status.failedIndexes = indexed.failed.toString();
    }
    if (canonicalJson(pruneZero(status)) !== canonicalJson(pruneZero(job.status ?? {}))) {
      await this.#ctx.client.batchV1().jobs(namespace).updateStatus({ ...job, status });
    }
    if (manageError !== undefined) throw asError(manageError);
  }

  async #claimPods(job: Job, selector: LabelSelector): Promise<Pod[]> {
    const ns = job.metadata?.namespace ?? '';
    const jobs = this.#ctx.client.batchV1().jobs(ns);
    const manager = new ControllerRefManager<Pod>({
      controller: job,
      apiVersion: jobApiVersion,
      kind: jobKind,
      selector,
      client: this.#ctx.client.coreV1().pods(ns),
      canAdopt: recheckDeletionTimestamp(() => jobs.get(job.metadata?.name ?? ''), job, jobKind),
    });
    return manager.claim(this.#podLister.namespace(ns).list());
  }

  /**
   * An Indexed Job's succeeded indexes (calculateSucceededIndexes) and, with backoffLimitPerIndex, its
   * failed ones (calculateFailedIndexes): those in the status and those of the pods finished since.
   */
  #indexes(job: Job, pods: readonly Pod[], completions: number): IndexedState {
    const valid = (p: Pod): number | undefined => {
      const ix = getCompletionIndex(p);
      return ix !== unknownCompletionIndex && ix < completions ? ix : undefined;
    };
    const newSucceeded = new Set<number>();
    for (const p of pods) {
      const ix = valid(p);
      if (ix !== undefined && p.status?.phase === 'Succeeded') newSucceeded.add(ix);
    }
    const succeeded = OrderedIntervals.parse(job.status?.completedIndexes, completions).withOrderedIndexes([...newSucceeded].sort((a, b) => a - b));
    if (!hasBackoffLimitPerIndex(job)) return { succeeded };
    const limit = job.spec?.backoffLimitPerIndex ?? 0;
    const rules = job.spec?.podFailurePolicy?.rules ?? [];
    const newFailed = new Set<number>();
    for (const p of pods) {
      const ix = valid(p);
      if (ix === undefined || p.status?.phase !== 'Failed') continue;
      // isIndexFailed: a FailIndex rule fails the index at once; a counted failure once the index used up its limit.
      const action = rules.length > 0 ? (matchPodFailurePolicy(rules, p)?.action ?? 'Count') : 'Count';
      if (action === 'FailIndex' || (action !== 'Ignore' && getIndexFailureCount(p) >= limit)) newFailed.add(ix);
    }
    const failed = OrderedIntervals.parse(job.status?.failedIndexes, completions).withOrderedIndexes([...newFailed].sort((a, b) => a - b));
    return { succeeded, failed };
  }

  /** Creates or deletes pods so that `parallelism` run, no more than the completions left (manageJob). */
  async #manageJob(job: Job, activePods: Pod[], succeeded: number, failedPods: Pod[], indexed: (IndexedState & { completions: number }) | undefined): Promise<void> {
    const key = objectKey(job);
    const parallelism = job.spec?.parallelism ?? 1;
    const completions = job.spec?.completions;
    const now = this.#clock.now();
    const toDeleteFirst = (a: Pod, b: Pod): number => comparePodsForDeletion(a, b, 0, 0, now);
    let active = activePods;
    let want: number;
    if (completions === undefined || completions === null) want = succeeded > 0 ? active.length : parallelism;
    else want = Math.max(0, Math.min(parallelism, completions - succeeded - (indexed?.failed?.total() ?? 0)));
    if (indexed !== undefined) {
      // activePodsForRemoval: pods without a valid index or duplicating one go first, then the surplus.
      const { remove, keep } = duplicatedIndexPodsForRemoval(active, indexed.completions, toDeleteFirst);
      const surplus = keep.length - want;
      const toDelete = surplus > 0 ? [...remove, ...[...keep].sort(toDeleteFirst).slice(0, surplus)] : remove;
      if (toDelete.length > 0) {
        await this.#deletePods(job, toDelete, toDelete.length);
        return;
      }
      active = keep;
    } else if (active.length > want) {
      await this.#deletePods(job, active, active.length - want);
      return;
    }
    // A terminating pod is replaced at once (podReplacementPolicy TerminatingOrFailed, the default
    // without a podFailurePolicy; Failed would wait for it to be gone).
    const diff = want - active.length;
    if (diff <= 0) return;
    const ref = newControllerRef(job, jobApiVersion, jobKind);
    const jobName = job.metadata?.name ?? '';
    if (indexed !== undefined) {
      const done = indexed.failed === undefined ? indexed.succeeded : indexed.succeeded.merge(indexed.failed);
      let indexes = firstPendingIndexes(active, done, diff, indexed.completions);
      const lastFailed = indexed.failed === undefined ? undefined : lastFailedPodPerIndex(failedPods, indexed.completions);
      if (lastFailed !== undefined) {
        // Per-index backoff (getPodCreationInfoForIndependentIndexes): an index waits after its own failures.
        let soonest = Number.POSITIVE_INFINITY;
        indexes = indexes.filter((ix) => {
          const pod = lastFailed.get(ix);
          if (pod === undefined) return true;
          const wait = timeMs(finishedAt(pod)) + backoffDelay(getIndexAbsoluteFailureCount(pod) + 1) - now;
          if (!(wait > 0)) return true;
          soonest = Math.min(soonest, wait);
          return false;
        });
        if (Number.isFinite(soonest)) this.controller.addAfter(key, soonest);
      } else if (this.#backoffWait(key, failedPods)) return;
      if (indexes.length === 0) return;
      const template = structuredClone(job.spec?.template ?? {});
      addCompletionIndexEnvVariables(template);
      const rules = job.spec?.podFailurePolicy?.rules ?? [];
      const pending = [...indexes];
      await createPodsWithExpectations({
        podControl: this.#podControl,
        expectations: this.expectations,
        key,
        count: indexes.length,
        namespace: job.metadata?.namespace ?? '',
        object: withKind(job, jobApiVersion, jobKind),
        newPod: () => {
          const ix = pending.shift() ?? 0;
          const pod = getPodFromTemplate(template, jobName, ref);
          const meta = pod.metadata!;
          meta.generateName = podGenerateNameWithIndex(jobName, ix);
          meta.annotations = { ...meta.annotations, [jobCompletionIndexAnnotation]: String(ix) };
          // PodIndexLabel (beta, on by default since 1.28): the index as a label too.
          meta.labels = { ...meta.labels, [jobCompletionIndexAnnotation]: String(ix) };
          if (lastFailed !== undefined) {
            const replaced = lastFailed.get(ix);
            const counts = getNewIndexFailureCounts(replaced, replaced === undefined || rules.length === 0 || matchPodFailurePolicy(rules, replaced)?.action !== 'Ignore');
            meta.annotations[jobIndexFailureCountAnnotation] = String(counts.failures);
            if (counts.ignored > 0) meta.annotations[jobIndexIgnoredFailureCountAnnotation] = String(counts.ignored);
          }
          pod.spec = { ...pod.spec!, hostname: `${jobName}-${ix}` };
          return pod;
        },
      });
      return;
    }
    if (this.#backoffWait(key, failedPods)) return;
    await createPodsWithExpectations({
      podControl: this.#podControl,
      expectations: this.expectations,
      key,
      count: diff,
      namespace: job.metadata?.namespace ?? '',
      object: withKind(job, jobApiVersion, jobKind),
      newPod: () => getPodFromTemplate(job.spec?.template, jobName, ref),
    });
  }

  /** The Job-wide pod-failure backoff: 10 s after the first failure, doubling, at most 6 minutes; true while it runs. */
  #backoffWait(key: string, failedPods: readonly Pod[]): boolean {
    if (failedPods.length === 0) return false;
    const lastFailure = Math.max(...failedPods.map((p) => timeMs(finishedAt(p))).filter((t) => !Number.isNaN(t)));
    const wait = Number.isFinite(lastFailure) ? lastFailure + backoffDelay(failedPods.length) - this.#clock.now() : 0;
    if (wait <= 0) return false;
    this.controller.addAfter(key, wait);
    return true;
  }

  /** Deletes `count` of the active pods, those to go first first. */
  async #deletePods(job: Job, active: Pod[], count: number): Promise<void> {
    if (count <= 0) return;
    const now = this.#clock.now();
    await deletePodsWithExpectations({
      podControl: this.#podControl,
      expectations: this.expectations,
      key: objectKey(job),
      pods: [...active].sort((a, b) => comparePodsForDeletion(a, b, 0, 0, now)).slice(0, count),
      namespace: job.metadata?.namespace ?? '',
      object: withKind(job, jobApiVersion, jobKind),
    });
  }
}

/** The indexes an Indexed Job has finished: succeeded, and failed for good with backoffLimitPerIndex. */
interface IndexedState {
  succeeded: OrderedIntervals;
  failed?: OrderedIntervals;
}

/** The backoff after the `failures`-th failure: 10 s doubling, at most 6 minutes. */
function backoffDelay(failures: number): number {
  return Math.min(defaultJobPodFailureBackOffMs * 2 ** Math.max(0, failures - 1), maxJobPodFailureBackOffMs);
}

/**
 * Per index, the failed pod a replacement continues from (getPodsWithDelayedDeletionPerIndex): the one
 * with the highest failure count, the later finished on a tie.
 */
function lastFailedPodPerIndex(failedPods: readonly Pod[], completions: number): Map<number, Pod> {
  const out = new Map<number, Pod>();
  for (const p of failedPods) {
    const ix = getCompletionIndex(p);
    if (ix === unknownCompletionIndex || ix >= completions) continue;
    const prev = out.get(ix);
    if (prev === undefined || (getIndexAbsoluteFailureCount(prev) <= getIndexAbsoluteFailureCount(p) && timeMs(finishedAt(p)) >= timeMs(finishedAt(prev)))) out.set(ix, p);
  }
  return out;
}

/** When a failed pod's last container finished (its failure time for the backoff). */
function finishedAt(pod: Pod): string | undefined {
  const times = (pod.status?.containerStatuses ?? []).map((c) => c.state?.terminated?.finishedAt).filter((t): t is string => t !== undefined);
  return times.sort().at(-1) ?? pod.metadata?.deletionTimestamp ?? pod.metadata?.creationTimestamp;
}

