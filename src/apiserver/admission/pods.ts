/**
 * The admission plugins that fill in pods and nodes: Priority (`plugin/pkg/admission/priority`),
 * DefaultTolerationSeconds (`plugin/pkg/admission/defaulttolerationseconds`) and TaintNodesByCondition
 * (`plugin/pkg/admission/nodetaint`).
 */
import { isObject } from '../object-meta.ts';
import { forbidden } from '../status.ts';
import type { AdmissionPlugin, PluginAttributes } from './plugins.ts';

type Obj = Record<string, unknown>;

function isCreate(a: PluginAttributes, group: string, resource: string): boolean {
  return a.operation === 'CREATE' && a.subresource === '' && a.resource.group === group && a.resource.resource === resource && a.object !== undefined;
}

function child(o: Obj, key: string): Obj {
  if (!isObject(o[key])) o[key] = {};
  return o[key] as Obj;
}

/** Priority: a pod gets the value and preemption policy of its PriorityClass (0 and PreemptLowerPriority without one). */
export const priority: AdmissionPlugin = {
  name: 'Priority',
  admit(a) {
    if (!isCreate(a, '', 'pods')) return;
    const spec = child(a.object!, 'spec');
    const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    let value = 0;
    let policy = 'PreemptLowerPriority';
    if (className !== '') {
      const pc = a.storage.get('priorityclasses.scheduling.k8s.io', className);
      if (pc === undefined) throw forbidden({ group: '', resource: 'pods' }, a.name, `no PriorityClass with name ${className} was found`);
      value = typeof pc.obj.value === 'number' ? pc.obj.value : 0;
      if (typeof pc.obj.preemptionPolicy === 'string') policy = pc.obj.preemptionPolicy;
    }
    if (spec.priority !== undefined && spec.priority !== null && spec.priority !== value) {
      throw forbidden({ group: '', resource: 'pods' }, a.name, 'the integer value of priority must not be provided in pod spec; priority admission controller computed ' + `${value} from the given PriorityClass name`);
    }
    spec.priority = value;
    spec.preemptionPolicy ??= policy;
  },
};

// The taints a node gets while not ready or unreachable, tolerated for 300 s by default.
const defaultTolerations: readonly Obj[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

/** DefaultTolerationSeconds: pods tolerate not-ready and unreachable nodes for 300 s unless they say otherwise. */
export const defaultTolerationSeconds: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  admit(a) {
    if (!isCreate(a, '', 'pods')) return;
    const spec = child(a.object!, 'spec');
    const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations.filter(isObject) : [];
    for (const t of defaultTolerations) {
      const covered = tolerations.some((x) => (x.key === t.key || (x.key === undefined && x.operator === 'Exists')) && (x.effect === undefined || x.effect === '' || x.effect === 'NoExecute'));
      if (!covered) tolerations.push({ ...t });
    }
    spec.tolerations = tolerations;
  },
};

/** TaintNodesByCondition: a new node is tainted not-ready until its kubelet says otherwise. */
export const taintNodesByCondition: AdmissionPlugin = {
  name: 'TaintNodesByCondition',
  admit(a) {
    if (!isCreate(a, '', 'nodes')) return;
    const spec = child(a.object!, 'spec');
    const taints = Array.isArray(spec.taints) ? spec.taints.filter(isObject) : [];
    if (!taints.some((t) => t.key === 'node.kubernetes.io/not-ready' && t.effect === 'NoSchedule')) taints.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' });
    spec.taints = taints;
  },
};
