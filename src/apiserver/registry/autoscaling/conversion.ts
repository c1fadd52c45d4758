/**
 * Conversion of HorizontalPodAutoscalers between autoscaling/v1 and autoscaling/v2 (the storage
 * version), as `pkg/apis/autoscaling/v1/conversion.go` converts through the internal type (whose
 * shape is v2's):
 * - v1 `spec.targetCPUUtilizationPercentage` is v2's Resource metric for cpu with a Utilization
 *   target; a v1 object without one gets the default 80% metric;
 * - v1 `status.currentCPUUtilizationPercentage` is v2's current Resource metric for cpu;
 * - what v1 cannot express travels in annotations: every other metric of the spec
 *   (`autoscaling.alpha.kubernetes.io/metrics`, as autoscaling/v1 MetricSpecs), every current metric of the
 *   status (`.../current-metrics`, as v1 MetricStatuses), the behavior
 *   (`autoscaling.alpha.kubernetes.io/behavior`, the internal struct encoded without JSON tags, so with Go
 *   field names) and the status conditions (`autoscaling.alpha.kubernetes.io/conditions`). Converting back
 *   to v2 reads them and drops every round-trip annotation, so a v1 read-modify-write keeps v2's metrics.
 */
import { isObject } from '../../object-meta.ts';

type Obj = Record<string, unknown>;

/** autoscaling.DefaultCPUUtilization. */
export const defaultCpuUtilization = 80;

const metricsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
const currentMetricsAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
const behaviorAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
const roundTripAnnotations = [metricsAnnotation, currentMetricsAnnotation, conditionsAnnotation, behaviorAnnotation];

function objects(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** The object's annotations without the round-trip ones (DropRoundTripHorizontalPodAutoscalerAnnotations). */
function dropRoundTrip(meta: Obj): void {
  if (!isObject(meta.annotations)) return;
  const kept = Object.fromEntries(Object.entries(meta.annotations).filter(([k]) => !roundTripAnnotations.includes(k)));
  if (Object.keys(kept).length === Object.keys(meta.annotations).length) return;
  meta.annotations = kept;
}

function setAnnotation(meta: Obj, key: string, value: string): void {
  meta.annotations = { ...(isObject(meta.annotations) ? meta.annotations : {}), [key]: value };
}

// The internal HorizontalPodAutoscalerBehavior has no JSON tags: the annotation spells Go field names.
const goFieldNames: Readonly<Record<string, string>> = {
  scaleUp: 'ScaleUp',
  scaleDown: 'ScaleDown',
  stabilizationWindowSeconds: 'StabilizationWindowSeconds',
  selectPolicy: 'SelectPolicy',
  policies: 'Policies',
  type: 'Type',
  value: 'Value',
  periodSeconds: 'PeriodSeconds',
};
const jsonFieldNames: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(goFieldNames).map(([k, v]) => [v, k]));

function rules(v: unknown, names: Readonly<Record<string, string>>, goForm: boolean): unknown {
  if (!isObject(v)) return goForm ? null : undefined;
  const out: Obj = {};
  // encoding/json writes every field of the internal struct, nil pointers as null.
  const fields = goForm ? ['stabilizationWindowSeconds', 'selectPolicy', 'policies'] : Object.keys(v);
  for (const f of fields) {
    const value = v[f];
    const key = names[f] ?? f;
    if (f === 'policies' || f === 'Policies') {
      out[key] = Array.isArray(value) ? objects(value).map((p) => Object.fromEntries((goForm ? ['type', 'value', 'periodSeconds'] : Object.keys(p)).map((k) => [names[k] ?? k, p[k] ?? (goForm ? (k === 'type' ? '' : 0) : undefined)]))) : null;
    } else if (value === undefined || value === null) {
      if (goForm) out[key] = null;
    } else out[key] = value;
  }
  return out;
}

function behaviorToAnnotation(b: Obj): string {
  return JSON.stringify({ ScaleUp: rules(b.scaleUp, goFieldNames, true), ScaleDown: rules(b.scaleDown, goFieldNames, true) });
}

function behaviorFromAnnotation(text: string): Obj | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const out: Obj = {};
  for (const [goName, jsonName] of [['ScaleUp', 'scaleUp'], ['ScaleDown', 'scaleDown']] as const) {
    const r = parsed[goName];
    if (!isObject(r)) continue;
    const converted: Obj = {};
    for (const [k, v] of Object.entries(r)) {
      const name = jsonFieldNames[k];
      if (name === undefined || v === null || v === undefined) continue;
      converted[name] = name === 'policies' ? objects(v).map((p) => Object.fromEntries(Object.entries(p).map(([pk, pv]) => [jsonFieldNames[pk] ?? pk, pv]))) : v;
    }
    out[jsonName] = converted;
  }
  // An empty behavior (both rules nil) is no behavior.
  return Object.keys(out).length === 0 ? undefined : out;
}

// What a v1 MetricSpec writes: encoding/json of k8s.io/api/autoscaling/v1's structs, fields in declaration
// order, `omitempty` pointers left out, non-pointer Quantities as "0" when unset.
function put(out: Obj, key: string, value: unknown): void {
  if (value !== undefined && value !== null) out[key] = value;
}

function crossVersionRef(v: unknown): Obj {
  const r: Obj = isObject(v) ? v : {};
  const out: Obj = { kind: r.kind ?? '', name: r.name ?? '' };
  if (typeof r.apiVersion === 'string' && r.apiVersion !== '') out.apiVersion = r.apiVersion;
  return out;
}

/** Convert_autoscaling_MetricSpec_To_v1_MetricSpec, for a v2 metric (the internal shape). */
function metricSpecToV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  const target = (src: Obj): Obj => (isObject(src.target) ? src.target : {});
  const metric = (src: Obj): Obj => (isObject(src.metric) ? src.metric : {});
  if (isObject(m.object)) {
    const o = m.object;
    const v1: Obj = { target: crossVersionRef(o.describedObject), metricName: metric(o).name ?? '', targetValue: target(o).value ?? '0' };
    put(v1, 'selector', metric(o).selector);
    put(v1, 'averageValue', target(o).averageValue);
    out.object = v1;
  }
  if (isObject(m.pods)) {
    const p = m.pods;
    const v1: Obj = { metricName: metric(p).name ?? '', targetAverageValue: target(p).averageValue ?? '0' };
    put(v1, 'selector', metric(p).selector);
    out.pods = v1;
  }
  if (isObject(m.resource)) {
    const r = m.resource;
    const v1: Obj = { name: r.name ?? '' };
    put(v1, 'targetAverageUtilization', target(r).averageUtilization);
    put(v1, 'targetAverageValue', target(r).averageValue);
    out.resource = v1;
  }
  if (isObject(m.containerResource)) {
    const r = m.containerResource;
    const v1: Obj = { name: r.name ?? '' };
    put(v1, 'targetAverageUtilization', target(r).averageUtilization);
    put(v1, 'targetAverageValue', target(r).averageValue);
    v1.container = r.container ?? '';
    out.containerResource = v1;
  }
  if (isObject(m.external)) {
    const e = m.external;
    const v1: Obj = { metricName: metric(e).name ?? '' };
    put(v1, 'metricSelector', metric(e).selector);
    put(v1, 'targetValue', target(e).value);
    put(v1, 'targetAverageValue', target(e).averageValue);
    out.external = v1;
  }
  return out;
}

function metricIdentifier(name: unknown, selector: unknown): Obj {
  const out: Obj = { name: name ?? '' };
  put(out, 'selector', selector);
  return out;
}

function metricTarget(type: string, value: unknown, averageValue: unknown, averageUtilization: unknown): Obj {
  const out: Obj = { type };
  put(out, 'value', value);
  put(out, 'averageValue', averageValue);
  put(out, 'averageUtilization', averageUtilization);
  return out;
}

/** Convert_v1_MetricSpec_To_autoscaling_MetricSpec, giving a v2 metric. */
function metricSpecFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObject(m.object)) {
    const o = m.object;
    const targetValue = o.targetValue ?? '0';
    out.object = {
      describedObject: crossVersionRef(o.target),
      target: metricTarget(o.averageValue === undefined || o.averageValue === null ? 'Value' : 'AverageValue', targetValue, o.averageValue, undefined),
      metric: metricIdentifier(o.metricName, o.selector),
    };
  }
  if (isObject(m.pods)) {
    const p = m.pods;
    out.pods = { metric: metricIdentifier(p.metricName, p.selector), target: metricTarget('AverageValue', undefined, p.targetAverageValue ?? '0', undefined) };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObject(r)) continue;
    const utilization = r.targetAverageUtilization;
    const converted: Obj = { name: r.name ?? '', target: metricTarget(utilization === undefined || utilization === null ? 'AverageValue' : 'Utilization', undefined, r.targetAverageValue, utilization) };
    if (key === 'containerResource') converted.container = r.container ?? '';
    out[key] = converted;
  }
  if (isObject(m.external)) {
    const e = m.external;
    const value = e.targetValue;
    out.external = { metric: metricIdentifier(e.metricName, e.metricSelector), target: metricTarget(value === undefined || value === null ? 'AverageValue' : 'Value', value, e.targetAverageValue, undefined) };
  }
  return out;
}

/** Convert_autoscaling_MetricStatus_To_v1_MetricStatus, for a v2 current metric. */
function metricStatusToV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  const current = (src: Obj): Obj => (isObject(src.current) ? src.current : {});
  const metric = (src: Obj): Obj => (isObject(src.metric) ? src.metric : {});
  if (isObject(m.object)) {
    const o = m.object;
    const v1: Obj = { target: crossVersionRef(o.describedObject), metricName: metric(o).name ?? '', currentValue: current(o).value ?? '0' };
    put(v1, 'selector', metric(o).selector);
    put(v1, 'averageValue', current(o).averageValue);
    out.object = v1;
  }
  if (isObject(m.pods)) {
    const p = m.pods;
    const v1: Obj = { metricName: metric(p).name ?? '', currentAverageValue: current(p).averageValue ?? '0' };
    put(v1, 'selector', metric(p).selector);
    out.pods = v1;
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObject(r)) continue;
    const v1: Obj = { name: r.name ?? '' };
    put(v1, 'currentAverageUtilization', current(r).averageUtilization);
    v1.currentAverageValue = current(r).averageValue ?? '0';
    if (key === 'containerResource') v1.container = r.container ?? '';
    out[key] = v1;
  }
  if (isObject(m.external)) {
    const e = m.external;
    const v1: Obj = { metricName: metric(e).name ?? '' };
    put(v1, 'metricSelector', metric(e).selector);
    v1.currentValue = current(e).value ?? '0';
    put(v1, 'currentAverageValue', current(e).averageValue);
    out.external = v1;
  }
  return out;
}

function metricValueStatus(value: unknown, averageValue: unknown, averageUtilization: unknown): Obj {
  const out: Obj = {};
  put(out, 'value', value);
  put(out, 'averageValue', averageValue);
  put(out, 'averageUtilization', averageUtilization);
  return out;
}

/** Convert_v1_MetricStatus_To_autoscaling_MetricStatus, giving a v2 current metric. */
function metricStatusFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObject(m.object)) {
    const o = m.object;
    out.object = { metric: metricIdentifier(o.metricName, o.selector), current: metricValueStatus(o.currentValue ?? '0', o.averageValue, undefined), describedObject: crossVersionRef(o.target) };
  }
  if (isObject(m.pods)) {
    const p = m.pods;
    out.pods = { metric: metricIdentifier(p.metricName, p.selector), current: metricValueStatus(undefined, p.currentAverageValue ?? '0', undefined) };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const r = m[key];
    if (!isObject(r)) continue;
    const converted: Obj = { name: r.name ?? '', current: metricValueStatus(undefined, r.currentAverageValue ?? '0', r.currentAverageUtilization) };
    if (key === 'containerResource') converted.container = r.container ?? '';
    out[key] = converted;
  }
  if (isObject(m.external)) {
    const e = m.external;
    out.external = { metric: metricIdentifier(e.metricName, e.metricSelector), current: metricValueStatus(e.currentValue ?? '0', e.currentAverageValue, undefined) };
  }
  return out;
}

function isCpuUtilization(m: Obj): boolean {
  return m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu' && isObject(m.resource.target) && typeof m.resource.target.averageUtilization === 'number';
}

/** An autoscaling/v1 HorizontalPodAutoscaler as autoscaling/v2 (a new object; the input is not changed). */
export function hpaV1ToV2(obj: Obj): Obj {
  const out = structuredClone(obj);
  out.apiVersion = 'autoscaling/v2';
  const meta: Obj = isObject(out.metadata) ? out.metadata : {};
  const annotations: Obj = isObject(meta.annotations) ? meta.annotations : {};
  const spec: Obj = isObject(out.spec) ? out.spec : {};
  const next: Obj = {};
  if (spec.scaleTargetRef !== undefined) next.scaleTargetRef = spec.scaleTargetRef;
  if (spec.minReplicas !== undefined) next.minReplicas = spec.minReplicas;
  if (spec.maxReplicas !== undefined) next.maxReplicas = spec.maxReplicas;
  // The other metrics first (from the annotation), then v1's own cpu target; with neither, the 80% default.
  const metrics: Obj[] = [];
  if (typeof annotations[metricsAnnotation] === 'string') {
    try {
      const others: unknown = JSON.parse(annotations[metricsAnnotation]);
      if (Array.isArray(others)) for (const m of objects(others)) metrics.push(metricSpecFromV1(m));
    } catch {
      // An unreadable annotation is ignored, as json.Unmarshal's error is upstream.
    }
  }
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  if (metrics.length === 0) metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCpuUtilization } } });
  next.metrics = metrics;
  if (typeof annotations[behaviorAnnotation] === 'string') {
    const behavior = behaviorFromAnnotation(annotations[behaviorAnnotation]);
    if (behavior !== undefined) next.behavior = behavior;
  }
  if (out.spec !== undefined || Object.keys(next).length > 0) out.spec = next;
  if (isObject(out.status)) {
    const st = out.status;
    const status: Obj = {};
    for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (st[k] !== undefined) status[k] = st[k];
    if (typeof st.currentCPUUtilizationPercentage === 'number') {
      status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: st.currentCPUUtilizationPercentage } } }];
    }
    out.status = status;
  }
  if (typeof annotations[currentMetricsAnnotation] === 'string') {
    // The annotation's current metrics replace the status's: they carry more.
    try {
      const current: unknown = JSON.parse(annotations[currentMetricsAnnotation]);
      if (Array.isArray(current)) out.status = { ...(isObject(out.status) ? out.status : {}), currentMetrics: objects(current).map(metricStatusFromV1) };
    } catch {
      // An unreadable annotation is ignored, as json.Unmarshal's error is upstream.
    }
  }
  if (typeof annotations[conditionsAnnotation] === 'string') {
    try {
      const conditions: unknown = JSON.parse(annotations[conditionsAnnotation]);
      if (Array.isArray(conditions)) out.status = { ...(isObject(out.status) ? out.status : {}), conditions };
    } catch {
      // An unreadable annotation is ignored, as json.Unmarshal's error is upstream.
    }
  }
  dropRoundTrip(meta);
  return out;
}

/** An autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 (a new object; the input is not changed). */
export function hpaV2ToV1(obj: Obj): Obj {
  const out = structuredClone(obj);
  out.apiVersion = 'autoscaling/v1';
  const meta: Obj = isObject(out.metadata) ? out.metadata : {};
  out.metadata = meta;
  dropRoundTrip(meta);
  const spec: Obj = isObject(out.spec) ? out.spec : {};
  const next: Obj = {};
  if (spec.scaleTargetRef !== undefined) next.scaleTargetRef = spec.scaleTargetRef;
  if (spec.minReplicas !== undefined) next.minReplicas = spec.minReplicas;
  if (spec.maxReplicas !== undefined) next.maxReplicas = spec.maxReplicas;
  const cpu = objects(spec.metrics).find(isCpuUtilization);
  if (cpu !== undefined) next.targetCPUUtilizationPercentage = ((cpu.resource as Obj).target as Obj).averageUtilization;
  if (out.spec !== undefined) out.spec = next;
  const others = objects(spec.metrics).filter((m) => !isCpuUtilization(m));
  if (others.length > 0) setAnnotation(meta, metricsAnnotation, JSON.stringify(others.map(metricSpecToV1)));
  if (isObject(spec.behavior)) setAnnotation(meta, behaviorAnnotation, behaviorToAnnotation(spec.behavior));
  if (isObject(out.status)) {
    const st = out.status;
    const status: Obj = {};
    for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (st[k] !== undefined) status[k] = st[k];
    for (const m of objects(st.currentMetrics)) {
      if (m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu' && isObject(m.resource.current) && typeof m.resource.current.averageUtilization === 'number') {
        status.currentCPUUtilizationPercentage = m.resource.current.averageUtilization;
      }
    }
    // Every current metric is kept, the cpu one too, for the raw value it may carry.
    const currentMetrics = objects(st.currentMetrics);
    if (currentMetrics.length > 0) setAnnotation(meta, currentMetricsAnnotation, JSON.stringify(currentMetrics.map(metricStatusToV1)));
    const conditions = objects(st.conditions);
    if (conditions.length > 0) setAnnotation(meta, conditionsAnnotation, JSON.stringify(conditions));
    out.status = status;
  }
  return out;
}

/** Converts a HorizontalPodAutoscaler to the given apiVersion (autoscaling/v1 or autoscaling/v2). */
export function convertHorizontalPodAutoscaler(obj: Obj, apiVersion: string): Obj {
  if (obj.apiVersion === apiVersion) return obj;
  if (apiVersion === 'autoscaling/v1') return hpaV2ToV1(obj);
  return hpaV1ToV2(obj);
}
