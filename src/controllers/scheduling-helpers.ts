/**
 * Whether a pod may go to a node, as far as labels, fields and taints say: the scheduling helpers the
 * DaemonSet controller and kube-scheduler share upstream (k8s.io/component-helpers/scheduling/corev1:
 * nodeaffinity's required node affinity and MatchNodeSelectorTerms; the scheduler's
 * PodMatchesNodeSelectorAndAffinityTerms; k8s.io/api/core/v1/toleration.go's ToleratesTaint and
 * pkg/apis/core/v1/helper's TolerationsTolerateTaint and FindMatchingUntoleratedTaint). The embedded server's scheduler stand-in uses them
 * too, so a DaemonSet and the scheduler agree on where a pod fits.
 *
 * Where kubeloom differs: a toleration with an operator other than `Exists` is read as `Equal` and needs a
 * key (upstream refuses other operators at validation, and an empty key only with `Exists`); a node
 * selector term without requirements matches every node (upstream's matches none); `matchFields` knows
 * `metadata.name` only, as upstream.
 */
import type { Node, NodeSelectorRequirement, PodSpec, Taint, Toleration } from '../api/core/v1.ts';

/** Whether `toleration` tolerates `taint` (Toleration.ToleratesTaint): same effect and key when set, and `Exists` or an equal value. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.key ?? '') !== '' && (toleration.value ?? '') === (taint.value ?? '');
}

/** Whether any of `tolerations` tolerates `taint` (TolerationsTolerateTaint). */
export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/**
 * The first of `taints` with a NoSchedule or NoExecute effect that none of `tolerations` tolerates, if any
 * (FindMatchingUntoleratedTaint with the filter the scheduler's TaintToleration plugin and the DaemonSet
 * controller pass: PreferNoSchedule taints do not keep a pod off a node).
 */
export function findMatchingUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  return taints.find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerationsTolerateTaint(tolerations, taint));
}

/**
 * Whether `value` (a label's or field's value, undefined when absent) satisfies `requirement`: In, NotIn
 * (also true when absent), Exists, DoesNotExist, and Gt / Lt comparing integers (false when either side
 * is not one). An unknown operator matches nothing.
 */
export function nodeSelectorRequirementMatches(value: string | undefined, requirement: NodeSelectorRequirement): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const n = Number(value);
      const bound = Number(values[0]);
      if (value === undefined || !Number.isInteger(n) || !Number.isInteger(bound)) return false;
      return requirement.operator === 'Gt' ? n > bound : n < bound;
    }
    default:
      return false;
  }
}

/**
 * Whether a pod with `spec` may run on `node` by its nodeSelector (every label equal) and its required
 * node affinity (some term whose label expressions and `metadata.name` fields all match)
 * (PodMatchesNodeSelectorAndAffinityTerms). Preferred affinity does not count here.
 */
export function podMatchesNodeSelectorAndAffinityTerms(spec: PodSpec | undefined, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return true;
  return terms.some(
    (term) =>
      (term.matchExpressions ?? []).every((r) => nodeSelectorRequirementMatches(labels[r.key], r)) &&
      (term.matchFields ?? []).every((r) => nodeSelectorRequirementMatches(r.key === 'metadata.name' ? node.metadata?.name : undefined, r)),
  );
}
