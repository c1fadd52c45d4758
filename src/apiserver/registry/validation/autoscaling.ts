/**
 * Validation of HorizontalPodAutoscalers, as `pkg/apis/autoscaling/validation/validation.go` checks the
 * internal object (whose shape is autoscaling/v2's, so v1 objects are converted before they are
 * checked): minReplicas and maxReplicas, the scale target reference, the metrics and the behavior;
 * status updates check the replica counts. HPAScaleToZero is off (v1.32's default), so minReplicas
 * must be at least 1 unless the stored object already has 0.
 */
import { isObject } from '../../object-meta.ts';
import { hpaV1ToV2 } from '../autoscaling/conversion.ts';
import { isValidPathSegmentName, isDNS1123Label } from './names.ts';
import { forbiddenField, GoValue, invalidValue, notSupported, path, required, type FieldError, type FieldPath } from './field.ts';

type Obj = Record<string, unknown>;

const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;
const metricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

function obj(v: unknown): Obj | undefined {
  return isObject(v) ? v : undefined;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The internal form: v1 objects as v2. */
function internal(hpa: Obj): Obj {
  return hpa.apiVersion === 'autoscaling/v1' ? hpaV1ToV2(hpa) : hpa;
}

/** The sign of a resource.Quantity in its string or number form. */
function quantitySign(q: unknown): number {
  const n = typeof q === 'number' ? q : Number.parseFloat(quantityText(q).replace(/^([+-]?[0-9.]+(?:[eE][+-]?\d+)?).*$/, '$1'));
  return Number.isNaN(n) || n === 0 ? 0 : Math.sign(n);
}

function quantityText(q: unknown): string {
  return typeof q === 'string' || typeof q === 'number' ? String(q) : JSON.stringify(q);
}

/** ValidateCrossVersionObjectReference. */
function validateReference(ref: unknown, fld: FieldPath): FieldError[] {
  const r = obj(ref) ?? {};
  const out: FieldError[] = [];
  for (const key of ['kind', 'name']) {
    const v = text(r[key]);
    if (v === '') out.push(required(fld.child(key), ''));
    else for (const msg of isValidPathSegmentName(v)) out.push(invalidValue(fld.child(key), v, msg));
  }
  return out;
}

function validateMetricTarget(t: Obj, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  const type = text(t.type);
  if (type === '') out.push(required(fld.child('type'), 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') out.push(invalidValue(fld.child('type'), type, 'must be either Utilization, Value, or AverageValue'));
  if (t.value !== undefined && t.value !== null && quantitySign(t.value) !== 1) out.push(invalidValue(fld.child('value'), new GoValue(quantityText(t.value)), 'must be positive'));
  if (t.averageValue !== undefined && t.averageValue !== null && quantitySign(t.averageValue) !== 1) out.push(invalidValue(fld.child('averageValue'), new GoValue(quantityText(t.averageValue)), 'must be positive'));
  if (typeof t.averageUtilization === 'number' && t.averageUtilization < 1) out.push(invalidValue(fld.child('averageUtilization'), t.averageUtilization, 'must be greater than 0'));
  return out;
}

function validateMetricIdentifier(id: unknown, fld: FieldPath): FieldError[] {
  const name = text(obj(id)?.name);
  if (name === '') return [required(fld.child('name'), 'must specify a metric name')];
  return isValidPathSegmentName(name).map((msg) => invalidValue(fld.child('name'), name, msg));
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

function validateSource(kind: string, src: Obj, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  const target = obj(src.target) ?? {};
  const tf = fld.child('target');
  if (kind === 'object') out.push(...validateReference(src.describedObject, fld.child('describedObject')));
  if (kind === 'object' || kind === 'external' || kind === 'pods') out.push(...validateMetricIdentifier(src.metric, fld.child('metric')));
  if (kind === 'containerResource' || kind === 'resource') {
    if (text(src.name) === '') out.push(required(fld.child('name'), 'must specify a resource name'));
  }
  if (kind === 'containerResource') {
    const container = text(src.container);
    if (container === '') out.push(required(fld.child('container'), 'must specify a container'));
    else for (const msg of isDNS1123Label(container)) out.push(invalidValue(fld.child('container'), container, msg));
  }
  out.push(...validateMetricTarget(target, tf));
  if (kind === 'object' && !present(target.value) && !present(target.averageValue)) out.push(required(tf.child('averageValue'), 'must set either a target value or averageValue'));
  if (kind === 'external') {
    if (!present(target.value) && !present(target.averageValue)) out.push(required(tf.child('averageValue'), 'must set either a target value for metric or a per-pod target'));
    if (present(target.value) && present(target.averageValue)) out.push(forbiddenField(tf.child('value'), 'may not set both a target value for metric and a per-pod target'));
  }
  if (kind === 'pods' && !present(target.averageValue)) out.push(required(tf.child('averageValue'), 'must specify a positive target averageValue'));
  if (kind === 'resource' || kind === 'containerResource') {
    if (!present(target.averageUtilization) && !present(target.averageValue)) out.push(required(tf.child('averageUtilization'), 'must set either a target raw value or a target utilization'));
    if (present(target.averageUtilization) && present(target.averageValue)) out.push(forbiddenField(tf.child('averageValue'), 'may not set both a target raw value and a target utilization'));
  }
  return out;
}

// The source fields in the order validateMetricSpec visits them, and the field each type expects.
const sourceFields = ['object', 'external', 'pods', 'resource', 'containerResource'];
const expectedField: Readonly<Record<string, string>> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

function validateMetricSpec(m: Obj, fld: FieldPath): FieldError[] {
  const out: FieldError[] = [];
  const type = text(m.type);
  if (type === '') out.push(required(fld.child('type'), 'must specify a metric source type'));
  if (!metricSourceTypes.includes(type)) out.push(notSupported(fld.child('type'), type, metricSourceTypes));
  const given = sourceFields.filter((f) => isObject(m[f]));
  if (given.length > 0) out.push(...validateSource(given[0]!, m[given[0]!] as Obj, fld.child(given[0]!)));
  const expected = expectedField[type];
  if (expected === undefined) out.push(notSupported(fld.child('type'), type, metricSourceTypes));
  else if (!isObject(m[expected])) out.push(required(fld.child(expected), 'must populate information for the given metric source'));
  if (given.length !== 1) for (const f of given.filter((x) => x !== expected)) out.push(forbiddenField(fld.child(f), 'must populate the given metric source only'));
  return out;
}

function validateScalingRules(rules: unknown, fld: FieldPath): FieldError[] {
  const r = obj(rules);
  if (r === undefined) return [];
  const out: FieldError[] = [];
  const window = r.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0) out.push(invalidValue(fld.child('stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > maxStabilizationWindowSeconds) out.push(invalidValue(fld.child('stabilizationWindowSeconds'), window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  if (present(r.selectPolicy) && !['Disabled', 'Max', 'Min'].includes(text(r.selectPolicy))) out.push(notSupported(fld.child('selectPolicy'), r.selectPolicy, ['Disabled', 'Max', 'Min']));
  const policies = Array.isArray(r.policies) ? r.policies : [];
  const pf = fld.child('policies');
  if (policies.length === 0) out.push(required(pf, 'must specify at least one Policy'));
  policies.forEach((p: unknown, i) => {
    const policy = obj(p) ?? {};
    const f = pf.index(i);
    const type = text(policy.type);
    if (type !== 'Pods' && type !== 'Percent') out.push(notSupported(f.child('type'), type, ['Percent', 'Pods']));
    const value = typeof policy.value === 'number' ? policy.value : 0;
    const period = typeof policy.periodSeconds === 'number' ? policy.periodSeconds : 0;
    if (value <= 0) out.push(invalidValue(f.child('value'), value, 'must be greater than zero'));
    if (period <= 0) out.push(invalidValue(f.child('periodSeconds'), period, 'must be greater than zero'));
    if (period > maxPeriodSeconds) out.push(invalidValue(f.child('periodSeconds'), period, `must be less than or equal to ${maxPeriodSeconds}`));
  });
  return out;
}

function validateSpec(spec: Obj, minReplicasLowerBound: number): FieldError[] {
  const fld = path('spec');
  const out: FieldError[] = [];
  const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : undefined;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (min !== undefined && min < minReplicasLowerBound) out.push(invalidValue(fld.child('minReplicas'), min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) out.push(invalidValue(fld.child('maxReplicas'), max, 'must be greater than 0'));
  if (min !== undefined && max < min) out.push(invalidValue(fld.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  out.push(...validateReference(spec.scaleTargetRef, fld.child('scaleTargetRef')));
  const metrics = Array.isArray(spec.metrics) ? spec.metrics : [];
  metrics.forEach((m: unknown, i) => out.push(...validateMetricSpec(obj(m) ?? {}, fld.child('metrics').index(i))));
  if (min === 0 && !metrics.some((m: unknown) => obj(m)?.type === 'Object' || obj(m)?.type === 'External')) {
    out.push(forbiddenField(fld.child('metrics'), 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  const behavior = obj(spec.behavior);
  if (behavior !== undefined) out.push(...validateScalingRules(behavior.scaleUp, fld.child('behavior', 'scaleUp')), ...validateScalingRules(behavior.scaleDown, fld.child('behavior', 'scaleDown')));
  return out;
}

/** ValidateHorizontalPodAutoscaler (metadata is validated by the caller). */
export function validateHorizontalPodAutoscaler(hpa: Obj): FieldError[] {
  return validateSpec(obj(internal(hpa).spec) ?? {}, 1);
}

/** ValidateHorizontalPodAutoscalerUpdate: minReplicas 0 stays allowed for an object that has it. */
export function validateHorizontalPodAutoscalerUpdate(hpa: Obj, old: Obj): FieldError[] {
  const oldMin = obj(internal(old).spec)?.minReplicas;
  return validateSpec(obj(internal(hpa).spec) ?? {}, oldMin === 0 ? 0 : 1);
}

/** ValidateHorizontalPodAutoscalerStatusUpdate: replica counts are not negative. */
export function validateHorizontalPodAutoscalerStatusUpdate(hpa: Obj): FieldError[] {
  const status = obj(hpa.status) ?? {};
  const out: FieldError[] = [];
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    const v = status[key];
    if (typeof v === 'number' && v < 0) out.push(invalidValue(path('status', key), v, 'must be greater than or equal to 0'));
  }
  return out;
}
