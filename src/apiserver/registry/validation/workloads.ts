/**
 * Validation of workloads: apps/v1 (Deployment, ReplicaSet, StatefulSet, DaemonSet) from
 * `pkg/apis/apps/validation/validation.go` and batch/v1 (Job, CronJob) from
 * `pkg/apis/batch/validation/validation.go`: selectors matching templates, replica counts, restart
 * policies, update strategies, cron schedules, and what an update may not change.
 */
import { isObject, str } from '../../object-meta.ts';
import { forbiddenField, goQuote, goStringMap, GoValue, invalidValue, notSupported, path, required, type FieldError, type FieldPath } from './field.ts';
import { validateLabels } from './object-meta.ts';
import { validatePodTemplateSpec } from './core.ts';

type Obj = Record<string, unknown>;

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function nonNegative(v: unknown, fld: FieldPath): FieldError[] {
  return typeof v === 'number' && v < 0 ? [invalidValue(fld, v, 'must be greater than or equal to 0')] : [];
}

/** %#v of a metav1.LabelSelector. */
export function goLabelSelector(s: unknown): GoValue {
  const sel = isObject(s) ? s : {};
  const labels = isObject(sel.matchLabels) ? goStringMap(sel.matchLabels).text : 'map[string]string(nil)';
  const exprs = list(sel.matchExpressions);
  const renderedExprs =
    exprs.length === 0 && !Array.isArray(sel.matchExpressions)
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${exprs
          .map((e) => {
            const values = Array.isArray(e.values) ? `[]string{${e.values.map((v) => goQuote(String(v))).join(', ')}}` : '[]string(nil)';
            return `v1.LabelSelectorRequirement{Key:${goQuote(str(e.key))}, Operator:${goQuote(str(e.operator))}, Values:${values}}`;
          })
          .join(', ')}}`;
  return new GoValue(`v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${renderedExprs}}`);
}

/** Whether a label set satisfies a LabelSelector (matchLabels and matchExpressions). */
export function selectorMatches(selector: Obj, labels: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(isObject(selector.matchLabels) ? selector.matchLabels : {})) if (labels[k] !== v) return false;
  for (const e of list(selector.matchExpressions)) {
    const key = String(e.key);
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(String(labels[key]))) return false;
        break;
      case 'NotIn':
        if (has && values.includes(String(labels[key]))) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** ValidateLabelSelector. */
export function validateLabelSelector(s: Obj, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  list(s.matchExpressions).forEach((e, i) => {
    const ef = fld.child('matchExpressions').index(i);
    const values = Array.isArray(e.values) ? e.values : [];
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (values.length === 0) out.push(required(ef.child('values'), 'must be specified when `operator` is \'In\' or \'NotIn\''));
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length > 0) out.push(forbiddenField(ef.child('values'), 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
    } else out.push(invalidValue(ef.child('operator'), e.operator ?? '', 'not a valid selector operator'));
  });
  out.push(...validateLabels(isObject(s.matchLabels) ? (s.matchLabels as Record<string, string>) : undefined, fld.child('matchLabels')));
  return out;
}

/** The selector/template checks every controller spec shares. */
function validateSelectorAndTemplate(spec: Obj, fld: FieldPath, what: string, restartPolicies: readonly string[] | undefined): FieldError[] {
  const out: FieldError[] = [];
  const selector = spec.selector;
  const template = isObject(spec.template) ? spec.template : undefined;
  const templateLabels = template !== undefined && isObject(template.metadata) && isObject(template.metadata.labels) ? (template.metadata.labels as Record<string, string>) : {};
  if (!isObject(selector)) out.push(required(fld.child('selector')));
  else {
    out.push(...validateLabelSelector(selector, fld.child('selector')));
    const empty = Object.keys(isObject(selector.matchLabels) ? selector.matchLabels : {}).length === 0 && list(selector.matchExpressions).length === 0;
    if (empty) out.push(invalidValue(fld.child('selector'), goLabelSelector(selector), `empty selector is invalid for ${what}`));
  }
  if (template === undefined) {
    out.push(required(fld.child('template')));
    return out;
  }
  if (!isObject(selector) || !selectorMatches(selector, templateLabels)) out.push(invalidValue(fld.child('template', 'metadata', 'labels'), goStringMap(templateLabels), '`selector` does not match template `labels`'));
  out.push(...validatePodTemplateSpec(template, fld.child('template')));
  const restart = isObject(template.spec) ? template.spec.restartPolicy : undefined;
  if (restartPolicies !== undefined && typeof restart === 'string' && restart !== '' && !restartPolicies.includes(restart)) out.push(notSupported(fld.child('template', 'spec', 'restartPolicy'), restart, restartPolicies));
  return out;
}

function intOrPercent(v: unknown): { value: number; percent: boolean } | undefined {
  if (typeof v === 'number') return { value: v, percent: false };
  if (typeof v === 'string') {
    const m = /^(\d+)%$/.exec(v);
    if (m !== null) return { value: Number(m[1]), percent: true };
  }
  return undefined;
}

function validateIntOrPercent(v: unknown, fld: FieldPath): FieldError[] {
  if (v === undefined || v === null) return [];
  const p = intOrPercent(v);
  if (p === undefined) return [invalidValue(fld, v, 'a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')')];
  if (p.value < 0) return [invalidValue(fld, v, 'must be greater than or equal to 0')];
  if (p.percent && p.value > 100) return [invalidValue(fld, v, 'must not be greater than 100%')];
  return [];
}

/** ValidateDeployment (spec). */
export function validateDeployment(d: Obj): FieldError[] {
  const spec = isObject(d.spec) ? d.spec : {};
  const fld = path('spec');
  const out: FieldError[] = [...nonNegative(spec.replicas, fld.child('replicas'))];
  out.push(...validateSelectorAndTemplate(spec, fld, 'deployment', ['Always']));
  const strategy = isObject(spec.strategy) ? spec.strategy : {};
  if (strategy.type !== 'Recreate' && strategy.type !== 'RollingUpdate') out.push(notSupported(fld.child('strategy', 'type'), strategy.type ?? '', ['Recreate', 'RollingUpdate']));
  if (strategy.type === 'Recreate' && strategy.rollingUpdate !== undefined) out.push(forbiddenField(fld.child('strategy', 'rollingUpdate'), 'may not be specified when strategy `type` is \'Recreate\''));
  if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) {
    const ru = strategy.rollingUpdate;
    const rf = fld.child('strategy', 'rollingUpdate');
    out.push(...validateIntOrPercent(ru.maxUnavailable, rf.child('maxUnavailable')));
    out.push(...validateIntOrPercent(ru.maxSurge, rf.child('maxSurge')));
    const u = intOrPercent(ru.maxUnavailable);
    const s = intOrPercent(ru.maxSurge);
    if (u?.value === 0 && s?.value === 0) out.push(invalidValue(rf.child('maxUnavailable'), ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  }
  out.push(...nonNegative(spec.revisionHistoryLimit, fld.child('revisionHistoryLimit')));
  out.push(...nonNegative(spec.minReadySeconds, fld.child('minReadySeconds')));
  if (typeof spec.progressDeadlineSeconds === 'number' && typeof spec.minReadySeconds === 'number' && spec.progressDeadlineSeconds <= spec.minReadySeconds) {
    out.push(invalidValue(fld.child('progressDeadlineSeconds'), spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return out;
}

function immutableSelector(obj: Obj, old: Obj): FieldError[] {
  const sel = isObject(obj.spec) ? obj.spec.selector : undefined;
  const oldSel = isObject(old.spec) ? old.spec.selector : undefined;
  return JSON.stringify(sel ?? null) === JSON.stringify(oldSel ?? null) ? [] : [invalidValue(path('spec', 'selector'), goLabelSelector(sel), 'field is immutable')];
}

/** ValidateDeploymentUpdate: apps/v1 selectors are immutable. */
export function validateDeploymentUpdate(d: Obj, old: Obj): FieldError[] {
  return [...validateDeployment(d), ...immutableSelector(d, old)];
}

/** ValidateReplicaSet. */
export function validateReplicaSet(rs: Obj): FieldError[] {
  const spec = isObject(rs.spec) ? rs.spec : {};
  const fld = path('spec');
  return [...nonNegative(spec.replicas, fld.child('replicas')), ...nonNegative(spec.minReadySeconds, fld.child('minReadySeconds')), ...validateSelectorAndTemplate(spec, fld, 'deployment', ['Always'])];
}

/** ValidateReplicaSetUpdate. */
export function validateReplicaSetUpdate(rs: Obj, old: Obj): FieldError[] {
  return [...validateReplicaSet(rs), ...immutableSelector(rs, old)];
}

/** ValidateStatefulSet. */
export function validateStatefulSet(s: Obj): FieldError[] {
  const spec = isObject(s.spec) ? s.spec : {};
  const fld = path('spec');
  const out: FieldError[] = [...nonNegative(spec.replicas, fld.child('replicas'))];
  const policy = spec.podManagementPolicy;
  if (policy !== 'OrderedReady' && policy !== 'Parallel') out.push(invalidValue(fld.child('podManagementPolicy'), policy ?? '', 'must be \'OrderedReady\' or \'Parallel\''));
  out.push(...validateSelectorAndTemplate(spec, fld, 'statefulset', ['Always']));
  return out;
}

// The fields of a StatefulSet's spec an update may change (apps validation, v1.32).
const statefulSetMutable = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

/** ValidateStatefulSetUpdate: only some spec fields may change. */
export function validateStatefulSetUpdate(s: Obj, old: Obj): FieldError[] {
  const out = validateStatefulSet(s);
  const strip = (o: Obj): Obj => {
    const spec = { ...(isObject(o.spec) ? o.spec : {}) };
    for (const k of statefulSetMutable) delete spec[k];
    return spec;
  };
  if (JSON.stringify(strip(s)) !== JSON.stringify(strip(old))) {
    out.push(forbiddenField(path('spec'), "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return out;
}

/** ValidateDaemonSet. */
export function validateDaemonSet(ds: Obj): FieldError[] {
  const spec = isObject(ds.spec) ? ds.spec : {};
  const fld = path('spec');
  const out = validateSelectorAndTemplate(spec, fld, 'daemonset', ['Always']);
  const strategy = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
  if (strategy.type !== 'OnDelete' && strategy.type !== 'RollingUpdate') out.push(notSupported(fld.child('updateStrategy', 'type'), strategy.type ?? '', ['OnDelete', 'RollingUpdate']));
  if (strategy.type === 'RollingUpdate' && isObject(strategy.rollingUpdate)) {
    // ValidateRollingUpdateDaemonSet: exactly one of maxUnavailable and maxSurge is non-zero.
    const ru = strategy.rollingUpdate;
    const rf = fld.child('updateStrategy', 'rollingUpdate');
    out.push(...validateIntOrPercent(ru.maxUnavailable, rf.child('maxUnavailable')));
    out.push(...validateIntOrPercent(ru.maxSurge, rf.child('maxSurge')));
    const hasUnavailable = (intOrPercent(ru.maxUnavailable)?.value ?? 0) !== 0;
    const hasSurge = (intOrPercent(ru.maxSurge)?.value ?? 0) !== 0;
    if (hasUnavailable && hasSurge) out.push(invalidValue(rf.child('maxSurge'), ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
    else if (!hasUnavailable && !hasSurge) out.push(required(rf.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
  }
  return out;
}

/** ValidateDaemonSetUpdate. */
export function validateDaemonSetUpdate(ds: Obj, old: Obj): FieldError[] {
  return [...validateDaemonSet(ds), ...immutableSelector(ds, old)];
}

/** ValidateJobSpec (for Jobs and the job templates of CronJobs). */
function validateJobSpec(spec: Obj, fld: FieldPath, generatedSelector: boolean): FieldError[] {
  const out: FieldError[] = [];
  out.push(...nonNegative(spec.parallelism, fld.child('parallelism')));
  out.push(...nonNegative(spec.completions, fld.child('completions')));
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds <= 0) out.push(invalidValue(fld.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, 'must be greater than or equal to 0'));
  out.push(...nonNegative(spec.backoffLimit, fld.child('backoffLimit')));
  out.push(...nonNegative(spec.ttlSecondsAfterFinished, fld.child('ttlSecondsAfterFinished')));
  const mode = spec.completionMode;
  out.push(...nonNegative(spec.backoffLimitPerIndex, fld.child('backoffLimitPerIndex')));
  const perIndex = spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null;
  if (spec.maxFailedIndexes !== undefined && spec.maxFailedIndexes !== null) {
    out.push(...nonNegative(spec.maxFailedIndexes, fld.child('maxFailedIndexes')));
    if (!perIndex) out.push(required(fld.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') out.push(notSupported(fld.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed') {
    // Upstream maxParallelismForIndexedJob and maxFailedIndexesForIndexedJob.
    if (spec.completions === undefined || spec.completions === null) out.push(required(fld.child('completions'), 'when completion mode is Indexed'));
    if (typeof spec.parallelism === 'number' && spec.parallelism > 100_000) out.push(invalidValue(fld.child('parallelism'), spec.parallelism, 'must be less than or equal to 100000 when completion mode is Indexed'));
    if (typeof spec.completions === 'number' && typeof spec.maxFailedIndexes === 'number' && spec.maxFailedIndexes > spec.completions) out.push(invalidValue(fld.child('maxFailedIndexes'), spec.maxFailedIndexes, 'must be less than or equal to completions'));
    if (typeof spec.maxFailedIndexes === 'number' && spec.maxFailedIndexes > 100_000) out.push(invalidValue(fld.child('maxFailedIndexes'), spec.maxFailedIndexes, 'must be less than or equal to 100000'));
  } else {
    if (perIndex) out.push(invalidValue(fld.child('backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (isObject(spec.successPolicy)) out.push(invalidValue(fld.child('successPolicy'), new GoValue('batch.SuccessPolicy{…}'), 'requires indexed completion mode'));
  }
  const template = isObject(spec.template) ? spec.template : undefined;
  if (template === undefined) out.push(required(fld.child('template')));
  else {
    if (generatedSelector && isObject(spec.selector)) {
      const labels = isObject(template.metadata) && isObject(template.metadata.labels) ? (template.metadata.labels as Record<string, string>) : {};
      if (!selectorMatches(spec.selector, labels)) out.push(invalidValue(fld.child('template', 'metadata', 'labels'), goStringMap(labels), '`selector` does not match template `labels`'));
    }
    out.push(...validatePodTemplateSpec(template, fld.child('template')));
    const restart = isObject(template.spec) ? template.spec.restartPolicy : undefined;
    if (restart !== 'OnFailure' && restart !== 'Never') out.push(required(fld.child('template', 'spec', 'restartPolicy'), 'valid values: "OnFailure", "Never"'));
  }
  return out;
}

/** ValidateJob. */
export function validateJob(job: Obj): FieldError[] {
  const spec = isObject(job.spec) ? job.spec : {};
  return validateJobSpec(spec, path('spec'), true);
}

/** ValidateJobUpdate: the template, selector, completions, completion mode, backoffLimitPerIndex and successPolicy are immutable. */
export function validateJobUpdate(job: Obj, old: Obj): FieldError[] {
  const out = validateJob(job);
  const spec = isObject(job.spec) ? job.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  const same = (k: string): boolean => JSON.stringify(spec[k] ?? null) === JSON.stringify(oldSpec[k] ?? null);
  if (!same('selector')) out.push(invalidValue(path('spec', 'selector'), goLabelSelector(spec.selector), 'field is immutable'));
  if (!same('template')) out.push(invalidValue(path('spec', 'template'), new GoValue('core.PodTemplateSpec{…}'), 'field is immutable'));
  if (!same('completions')) out.push(invalidValue(path('spec', 'completions'), spec.completions ?? null, 'field is immutable'));
  if (!same('completionMode')) out.push(invalidValue(path('spec', 'completionMode'), spec.completionMode ?? '', 'field is immutable'));
  if (!same('backoffLimitPerIndex')) out.push(invalidValue(path('spec', 'backoffLimitPerIndex'), spec.backoffLimitPerIndex ?? null, 'field is immutable'));
  if (!same('successPolicy')) out.push(invalidValue(path('spec', 'successPolicy'), new GoValue('batch.SuccessPolicy{…}'), 'field is immutable'));
  return out;
}

// robfig/cron's standard parser: five fields with these bounds.
const cronFields: ReadonlyArray<{ min: number; max: number; names?: readonly string[] }> = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

const cronDescriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** The error robfig/cron's standard parser gives for a schedule, or undefined when it parses. */
export function cronScheduleError(schedule: string): string | undefined {
  let s = schedule.trim();
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) s = s.slice(s.indexOf(' ') + 1).trim();
  if (s.startsWith('@')) {
    if (cronDescriptors.has(s)) return undefined;
    if (s.startsWith('@every ')) return /^@every (\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s) ? undefined : `failed to parse duration ${s}`;
    return `unrecognized descriptor: ${s}`;
  }
  const fields = s.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  for (let i = 0; i < 5; i++) {
    const spec = cronFields[i]!;
    for (const part of fields[i]!.split(',')) {
      const [range, step] = part.split('/');
      if (step !== undefined && !/^\d+$/.test(step)) return `failed to parse int from ${step}: strconv.Atoi: parsing ${goQuote(step)}: invalid syntax`;
      if (range === '*' || range === '?') continue;
      const bounds = range!.split('-');
      const nums: number[] = [];
      for (const b of bounds) {
        const named = spec.names?.indexOf(b.toLowerCase()) ?? -1;
        if (named >= 0) nums.push(named + spec.min);
        else if (/^\d+$/.test(b)) nums.push(Number(b));
        else return `failed to parse int from ${b}: strconv.Atoi: parsing ${goQuote(b)}: invalid syntax`;
      }
      if (nums.length > 2) return `too many hyphens: ${part}`;
      const [lo, hi = lo] = nums as [number, number?];
      if (lo < spec.min) return `beginning of range (${lo}) below minimum (${spec.min}): ${part}`;
      if (hi! > spec.max) return `end of range (${hi}) above maximum (${spec.max}): ${part}`;
      if (lo > hi!) return `beginning of range (${lo}) beyond end of range (${hi}): ${part}`;
    }
  }
  return undefined;
}

/** ValidateCronJob. */
export function validateCronJob(cj: Obj): FieldError[] {
  const spec = isObject(cj.spec) ? cj.spec : {};
  const fld = path('spec');
  const out: FieldError[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule === '') out.push(required(fld.child('schedule')));
  else {
    const err = cronScheduleError(schedule);
    if (err !== undefined) out.push(invalidValue(fld.child('schedule'), schedule, err));
  }
  const policy = spec.concurrencyPolicy;
  if (policy !== 'Allow' && policy !== 'Forbid' && policy !== 'Replace') out.push(notSupported(fld.child('concurrencyPolicy'), policy ?? '', ['Allow', 'Forbid', 'Replace']));
  out.push(...nonNegative(spec.startingDeadlineSeconds, fld.child('startingDeadlineSeconds')));
  out.push(...nonNegative(spec.successfulJobsHistoryLimit, fld.child('successfulJobsHistoryLimit')));
  out.push(...nonNegative(spec.failedJobsHistoryLimit, fld.child('failedJobsHistoryLimit')));
  const jobTemplate = isObject(spec.jobTemplate) ? spec.jobTemplate : {};
  out.push(...validateJobSpec(isObject(jobTemplate.spec) ? jobTemplate.spec : {}, fld.child('jobTemplate', 'spec'), false));
  return out;
}
