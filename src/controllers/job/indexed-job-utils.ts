/**
 * Indexed Jobs' helpers (kubernetes/pkg/controller/job/indexed_job_utils.go and success_policy.go): the
 * completion index a pod carries, the ordered intervals that `status.completedIndexes` and
 * `status.failedIndexes` are written in ("1,3-5,7"), the first indexes still pending, the pods left over
 * when an index runs twice, the per-index failure count of `backoffLimitPerIndex`, the pod a replacement
 * is built from, and the `successPolicy` rules.
 *
 * Kept as upstream: an interval string is parsed leniently (a corrupt part is skipped, indexes at or past
 * `completions` are dropped or clipped), two consecutive indexes print as "3,4" and three or more as
 * "3-5"; the JOB_COMPLETION_INDEX variable reads the pod's label (the PodIndexLabel gate, on since 1.28;
 * kube-controller-manager v1.24 reads the annotation and sets no label), and pods are named
 * `<job>-<index>-<random>` (as v1.24 names them too: test/workloads/differential/features.ts).
 */
import type { Job, SuccessPolicy } from '../../api/batch/v1.ts';
import type { Container, Pod, PodTemplateSpec } from '../../api/core/v1.ts';

/** The pod annotation (and label) holding an Indexed Job pod's completion index. */
export const jobCompletionIndexAnnotation = 'batch.kubernetes.io/job-completion-index';
/** The pod annotation counting the failures of the pod's index so far (backoffLimitPerIndex). */
export const jobIndexFailureCountAnnotation = 'batch.kubernetes.io/job-index-failure-count';
/** The pod annotation counting the failures of the index that a podFailurePolicy Ignore rule left out. */
export const jobIndexIgnoredFailureCountAnnotation = 'batch.kubernetes.io/job-index-ignored-failure-count';
/** The environment variable through which a container learns its completion index. */
export const completionIndexEnvName = 'JOB_COMPLETION_INDEX';
/** What {@link getCompletionIndex} returns for a pod without a valid index. */
export const unknownCompletionIndex = -1;
// names.MaxGeneratedNameLength: 63 minus the 5 random characters.
const maxGeneratedNameLength = 58;
// MaxInt32, the bound of the failure-count annotations.
const maxInt32 = 2_147_483_647;

/** A Job whose spec.completionMode is Indexed (isIndexedJob). */
export function isIndexedJob(job: Job): boolean {
  return job.spec?.completionMode === 'Indexed';
}

/** An Indexed Job with spec.backoffLimitPerIndex (hasBackoffLimitPerIndex; the gate is on since 1.29). */
export function hasBackoffLimitPerIndex(job: Job): boolean {
  return isIndexedJob(job) && job.spec?.backoffLimitPerIndex !== undefined && job.spec.backoffLimitPerIndex !== null;
}

/** One run of consecutive indexes, both ends included. */
export interface Interval {
  /** The first index of the run. */
  first: number;
  /** The last index of the run (equal to `first` for a single index). */
  last: number;
}

/**
 * Indexes as sorted, disjoint, non-adjacent intervals (orderedIntervals): the form of
 * `status.completedIndexes`, `status.failedIndexes` and a success rule's `succeededIndexes`.
 */
export class OrderedIntervals {
  /** The intervals, in increasing order; two never touch (3-4 and 5-6 are one interval 3-6). */
  readonly intervals: readonly Interval[];

  /** Intervals already sorted, disjoint and non-adjacent (use {@link OrderedIntervals.parse} for text). */
  constructor(intervals: readonly Interval[] = []) {
    this.intervals = intervals;
  }

  /**
   * Parses "1,3-5,7" (parseIndexesFromString): parts that are not numbers are skipped, parsing stops at
   * the first index at or past `completions`, and an interval reaching past it is clipped.
   */
  static parse(text: string | undefined, completions: number): OrderedIntervals {
    if (text === undefined || text === '') return new OrderedIntervals();
    const out: Interval[] = [];
    for (const part of text.split(',')) {
      const limits = part.split('-');
      const first = atoi(limits[0] ?? '');
      if (first === undefined) continue;
      if (first >= completions) break;
      let last = first;
      if (limits.length > 1) {
        const parsed = atoi(limits[1] ?? '');
        if (parsed === undefined) continue;
        last = Math.min(parsed, completions - 1);
      }
      const prev = out.at(-1);
      if (prev !== undefined && prev.last === first - 1) prev.last = last;
      else out.push({ first, last });
    }
    return new OrderedIntervals(out);
  }

  /** These intervals with `indexes` (in increasing order) added (withOrderedIndexes). */
  withOrderedIndexes(indexes: readonly number[]): OrderedIntervals {
    return this.merge(new OrderedIntervals(indexes.map((i) => ({ first: i, last: i }))));
  }

  /** The union of these intervals and `other` (merge). */
  merge(other: OrderedIntervals): OrderedIntervals {
    const out: Interval[] = [];
    const add = (iv: Interval): void => {
      const prev = out.at(-1);
      if (prev === undefined || iv.first > prev.last + 1) out.push({ ...iv });
      else if (prev.last < iv.last) prev.last = iv.last;
    };
    let i = 0;
    let j = 0;
    const a = this.intervals;
    const b = other.intervals;
    while (i < a.length && j < b.length) {
      if (a[i]!.first < b[j]!.first) add(a[i++]!);
      else add(b[j++]!);
    }
    while (i < a.length) add(a[i++]!);
    while (j < b.length) add(b[j++]!);
    return new OrderedIntervals(out);
  }

  /** How many indexes the intervals hold (total). */
  total(): number {
    return this.intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  /** Whether `index` is in one of the intervals (has). */
  has(index: number): boolean {
    let lo = 0;
    let hi = this.intervals.length;
    while (hi > lo) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.intervals[mid]!.last >= index) hi = mid;
      else lo = mid + 1;
    }
    return hi < this.intervals.length && this.intervals[hi]!.first <= index;
  }

  /** The status text: "1,3-5,7"; two consecutive indexes print as "3,4". */
  toString(): string {
    return this.intervals.map((iv) => (iv.last === iv.first ? `${iv.first}` : `${iv.first}${iv.last === iv.first + 1 ? ',' : '-'}${iv.last}`)).join(',');
  }
}

/** strconv.Atoi: a whole decimal number (with an optional sign), else undefined. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A pod's completion index from its annotation, or {@link unknownCompletionIndex} (getCompletionIndex). */
export function getCompletionIndex(pod: Pod): number {
  const v = pod.metadata?.annotations?.[jobCompletionIndexAnnotation];
  if (v === undefined) return unknownCompletionIndex;
  const i = atoi(v);
  return i === undefined || i < 0 ? unknownCompletionIndex : i;
}

/** The completion indexes of `pods` (getIndexes). */
export function getIndexes(pods: readonly Pod[]): Set<number> {
  const out = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (ix !== unknownCompletionIndex) out.add(ix);
  }
  return out;
}

const sortedList = (s: Set<number>): number[] => [...s].sort((a, b) => a - b);

/**
 * The first `count` indexes below `completions` that neither an active pod runs nor `done` (succeeded,
 * and failed for good under backoffLimitPerIndex) holds (firstPendingIndexes).
 */
export function firstPendingIndexes(active: readonly Pod[], done: OrderedIntervals, count: number, completions: number): number[] {
  if (count <= 0) return [];
  const nonPending = done.withOrderedIndexes(sortedList(getIndexes(active)));
  const out: number[] = [];
  let candidate = 0;
  for (const iv of nonPending.intervals) {
    for (; candidate < completions && out.length < count && candidate < iv.first; candidate++) out.push(candidate);
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && out.length < count; candidate++) out.push(candidate);
  return out;
}

/**
 * Splits active pods into those to delete — without a valid index, with an index at or past
 * `completions`, or running an index another pod runs too — and those to keep, one per index
 * (appendDuplicatedIndexPodsForRemoval). Of the pods sharing an index, the one kept is the one
 * `toDeleteFirst` orders last among them (upstream: the most active, by controller.ActivePods).
 */
export function duplicatedIndexPodsForRemoval(pods: readonly Pod[], completions: number, toDeleteFirst: (a: Pod, b: Pod) => number): { remove: Pod[]; keep: Pod[] } {
  const remove: Pod[] = [];
  const keep: Pod[] = [];
  const byIndex = new Map<number, Pod[]>();
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (ix === unknownCompletionIndex || ix >= completions) remove.push(p);
    else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
  }
  for (const ix of [...byIndex.keys()].sort((a, b) => a - b)) {
    const same = [...byIndex.get(ix)!].sort(toDeleteFirst);
    remove.push(...same.slice(0, -1));
    keep.push(same.at(-1)!);
  }
  return { remove, keep };
}

/** A non-negative int32 annotation of a pod, 0 when missing or invalid (parseInt32). */
function int32Annotation(pod: Pod, key: string): number {
  const v = pod.metadata?.annotations?.[key];
  const n = v === undefined ? undefined : atoi(v);
  return n === undefined || n < 0 || n > maxInt32 ? 0 : n;
}

/** The failures of a pod's index before it (the job-index-failure-count annotation, getIndexFailureCount). */
export function getIndexFailureCount(pod: Pod): number {
  return int32Annotation(pod, jobIndexFailureCountAnnotation);
}

/** Failures counted and ignored before the pod (getIndexAbsoluteFailureCount). */
export function getIndexAbsoluteFailureCount(pod: Pod): number {
  return getIndexFailureCount(pod) + int32Annotation(pod, jobIndexIgnoredFailureCountAnnotation);
}

/**
 * The failure counts a replacement of `replaced` starts with (getNewIndexFailureCounts): the failed
 * pod's counts with its own failure added, to the ignored count when a podFailurePolicy rule said
 * Ignore. `countsFailure` says whether the failure counts (true without a podFailurePolicy).
 */
export function getNewIndexFailureCounts(replaced: Pod | undefined, countsFailure: boolean): { failures: number; ignored: number } {
  if (replaced === undefined) return { failures: 0, ignored: 0 };
  const failures = getIndexFailureCount(replaced);
  const ignored = int32Annotation(replaced, jobIndexIgnoredFailureCountAnnotation);
  return countsFailure ? { failures: failures + 1, ignored } : { failures, ignored: ignored + 1 };
}

/** `pod-name-prefix` for an index: `<job>-<index>-`, the job name cut to fit (podGenerateNameWithIndex). */
export function podGenerateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = `${jobName}${suffix}`;
  return prefix.length > maxGeneratedNameLength ? `${prefix.slice(0, maxGeneratedNameLength - suffix.length)}${suffix}` : prefix;
}

/** Adds JOB_COMPLETION_INDEX from the pod's index label to every container without it (addCompletionIndexEnvVariables). */
export function addCompletionIndexEnvVariables(template: PodTemplateSpec): void {
  const spec = template.spec;
  if (spec === undefined) return;
  const add = (c: Container): void => {
    if (c.env?.some((v) => v.name === completionIndexEnvName) === true) return;
    c.env = [...(c.env ?? []), { name: completionIndexEnvName, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${jobCompletionIndexAnnotation}']` } } }];
  };
  for (const c of spec.initContainers ?? []) add(c);
  for (const c of spec.containers) add(c);
}

/**
 * The first success rule `succeeded` meets, as the SuccessCriteriaMet condition's message "Matched rules
 * at index N" (matchSuccessPolicy); undefined when none does or nothing succeeded yet.
 */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined, completions: number, succeeded: OrderedIntervals): string | undefined {
  if (policy === undefined || succeeded.intervals.length === 0) return undefined;
  for (const [index, rule] of policy.rules.entries()) {
    if (rule.succeededIndexes !== undefined) {
      const required = OrderedIntervals.parse(rule.succeededIndexes, completions);
      if (required.intervals.length === 0) continue;
      if (matchSucceededIndexesRule(required, succeeded, rule.succeededCount)) return `Matched rules at index ${index}`;
    } else if (rule.succeededCount !== undefined && succeeded.total() >= rule.succeededCount) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}

/** Whether `succeeded` covers all of `required`, or at least `count` of them (matchSucceededIndexesRule). */
function matchSucceededIndexesRule(required: OrderedIntervals, succeeded: OrderedIntervals, count: number | undefined): boolean {
  let contains = 0;
  let s = 0;
  let r = 0;
  const rs = required.intervals;
  const ss = succeeded.intervals;
  while (r < rs.length && s < ss.length) {
    const overlap = Math.min(rs[r]!.last, ss[s]!.last) - Math.max(rs[r]!.first, ss[s]!.first) + 1;
    if (overlap > 0) contains += overlap;
    if (ss[s]!.last < rs[r]!.last) s++;
    else if (ss[s]!.last > rs[r]!.last) r++;
    else {
      s++;
      r++;
    }
  }
  return contains === required.total() || (count !== undefined && contains >= count);
}
