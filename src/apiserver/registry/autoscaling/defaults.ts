/**
 * Defaults of HorizontalPodAutoscalers per version: `pkg/apis/autoscaling/v1/defaults.go` (minReplicas 1;
 * v1's cpu target is defaulted by conversion) and `pkg/apis/autoscaling/v2/defaults.go` (minReplicas 1,
 * an 80% cpu Utilization metric when none is given, and a given behavior's missing rules and fields
 * filled from the default scale-up and scale-down rules).
 */
import { isObject } from '../../object-meta.ts';
import { defaultCpuUtilization } from './conversion.ts';

type Obj = Record<string, unknown>;

function spec(o: Obj): Obj {
  if (!isObject(o.spec)) o.spec = {};
  return o.spec as Obj;
}

function defaultMinReplicas(s: Obj): void {
  if (s.minReplicas === undefined || s.minReplicas === null) s.minReplicas = 1;
}

// The scaling rules the HPA controller had before behaviors existed.
function scaleUpRules(): Obj {
  return {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  };
}

function scaleDownRules(): Obj {
  // No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies.
  return { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
}

/** copyHPAScalingRules: the given rules' set fields over the defaults. */
function withDefaults(given: unknown, defaults: Obj): Obj {
  if (!isObject(given)) return defaults;
  const out = defaults;
  for (const k of ['selectPolicy', 'stabilizationWindowSeconds', 'policies']) {
    if (given[k] !== undefined && given[k] !== null) out[k] = given[k];
  }
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v1. */
export function hpaV1Defaults(o: Obj): void {
  defaultMinReplicas(spec(o));
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v2. */
export function hpaV2Defaults(o: Obj): void {
  const s = spec(o);
  defaultMinReplicas(s);
  if (!Array.isArray(s.metrics) || s.metrics.length === 0) {
    s.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCpuUtilization } } }];
  }
  if (isObject(s.behavior)) {
    s.behavior = { scaleUp: withDefaults(s.behavior.scaleUp, scaleUpRules()), scaleDown: withDefaults(s.behavior.scaleDown, scaleDownRules()) };
  }
}
