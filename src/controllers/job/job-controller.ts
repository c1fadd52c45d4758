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
 * Left out: Indexed completion mode (and backoffLimitPerIndex, successPolicy), the
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
} as const;

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
    const succeeded = pods.filter((p) => p.status?.phase === 'Succeeded').length;
    const failedPods = pods.filter((p) => p.status?.phase === 'Failed');
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
    const deadline = job.spec?.activeDeadlineSeconds;
    if (failure === undefined && deadline !== undefined && status.startTime !== undefined && !suspended) {
      const left = timeMs(status.startTime) + deadline * 1000 - this.#clock.now();
      if (left <= 0) failure = Reason.DeadlineExceeded;
      else this.controller.addAfter(key, left);
    }
    const completions = job.spec?.completions;
    const success =
      failure === undefined && (trueCondition(job, 'SuccessCriteriaMet') !== undefined || (completions !== undefined && completions !== null ? succeeded >= completions : succeeded > 0 && active.length === 0));

    let manageError: unknown;
    if (failure !== undefined || success) {
      setCondition(status, failure !== undefined ? 'FailureTarget' : 'SuccessCriteriaMet', 'True', (failure ?? Reason.CompletionsReached)[0], (failure ?? Reason.CompletionsReached)[1], now);
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
          setCondition(status, 'Complete', 'True', Reason.CompletionsReached[0], Reason.CompletionsReached[1], now);
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
          await this.#manageJob(job, active, succeeded, failedPods);
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

  /** Creates or deletes pods so that `parallelism` run, no more than the completions left (manageJob). */
  async #manageJob(job: Job, active: Pod[], succeeded: number, failedPods: Pod[]): Promise<void> {
    const key = objectKey(job);
    const parallelism = job.spec?.parallelism ?? 1;
    const completions = job.spec?.completions;
    let want: number;
    if (completions === undefined || completions === null) want = succeeded > 0 ? active.length : parallelism;
    else want = Math.max(0, Math.min(parallelism, completions - succeeded));
    if (active.length > want) {
      await this.#deletePods(job, active, active.length - want);
      return;
    }
    // A terminating pod is replaced at once (podReplacementPolicy TerminatingOrFailed, the default
    // without a podFailurePolicy; Failed would wait for it to be gone).
    const diff = want - active.length;
    if (diff <= 0) return;
    // The pod-failure backoff: 10 s after the first failure, doubling, at most 6 minutes.
    if (failedPods.length > 0) {
      const lastFailure = Math.max(...failedPods.map((p) => timeMs(finishedAt(p))).filter((t) => !Number.isNaN(t)));
      const delay = Math.min(defaultJobPodFailureBackOffMs * 2 ** (failedPods.length - 1), maxJobPodFailureBackOffMs);
      const wait = Number.isFinite(lastFailure) ? lastFailure + delay - this.#clock.now() : 0;
      if (wait > 0) {
        this.controller.addAfter(key, wait);
        return;
      }
    }
    const ref = newControllerRef(job, jobApiVersion, jobKind);
    await createPodsWithExpectations({
      podControl: this.#podControl,
      expectations: this.expectations,
      key,
      count: diff,
      namespace: job.metadata?.namespace ?? '',
      object: withKind(job, jobApiVersion, jobKind),
      newPod: () => getPodFromTemplate(job.spec?.template, job.metadata?.name ?? '', ref),
    });
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

/** When a failed pod's last container finished (its failure time for the backoff). */
function finishedAt(pod: Pod): string | undefined {
  const times = (pod.status?.containerStatuses ?? []).map((c) => c.state?.terminated?.finishedAt).filter((t): t is string => t !== undefined);
  return times.sort().at(-1) ?? pod.metadata?.deletionTimestamp ?? pod.metadata?.creationTimestamp;
}

