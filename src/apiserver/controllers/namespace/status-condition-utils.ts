/**
 * The conditions the namespace controller reports on a namespace being deleted
 * (pkg/controller/namespace/deletion/status_condition_utils.go): all five types, in upstream's order,
 * True with a reason and message when something is wrong, False with the "all fine" reason otherwise.
 */

type Obj = Record<string, unknown>;

/** The condition types, in the order upstream writes them. */
export const namespaceConditionTypes = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

/** One of {@link namespaceConditionTypes}. */
export type NamespaceConditionType = (typeof namespaceConditionTypes)[number];

const okReasons: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'ResourcesDiscovered',
  NamespaceDeletionGroupVersionParsingFailure: 'ParsedGroupVersions',
  NamespaceDeletionContentFailure: 'ContentDeleted',
  NamespaceContentRemaining: 'ContentRemoved',
  NamespaceFinalizersRemaining: 'ContentHasNoFinalizers',
};

const okMessages: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'All resources successfully discovered',
  NamespaceDeletionGroupVersionParsingFailure: 'All legacy kube types successfully parsed',
  NamespaceDeletionContentFailure: 'All content successfully deleted, may be waiting on finalization',
  NamespaceContentRemaining: 'All content successfully removed',
  NamespaceFinalizersRemaining: 'All content-preserving finalizers finished',
};

/** A condition that holds (status True). */
export interface NamespaceProblem {
  type: NamespaceConditionType;
  reason: string;
  message: string;
}

/** What one pass of content deletion found. */
export interface ContentTotals {
  /** `<resource>.<group>` (with the trailing dot for the core group, as upstream prints it) → objects left. */
  remainingByResource: Map<string, number>;
  /** Finalizer → objects left carrying it. */
  remainingByFinalizer: Map<string, number>;
  /** Errors deleting content, one message each. */
  deleteErrors: string[];
}

/** ProcessContentTotals and the delete-content condition: the conditions that hold after one pass. */
export function problemsOf(totals: ContentTotals): NamespaceProblem[] {
  const problems: NamespaceProblem[] = [];
  if (totals.deleteErrors.length > 0) {
    const msgs = [...totals.deleteErrors].sort();
    problems.push({ type: 'NamespaceDeletionContentFailure', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}` });
  }
  const resources = [...totals.remainingByResource].filter(([, n]) => n > 0).map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
  if (resources.length > 0) problems.push({ type: 'NamespaceContentRemaining', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${resources.join(', ')}` });
  const finalizers = [...totals.remainingByFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
  if (finalizers.length > 0) problems.push({ type: 'NamespaceFinalizersRemaining', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}` });
  return problems;
}

/**
 * updateConditions: every type gets a condition (the problem, or the "all fine" one); an existing condition
 * keeps its lastTransitionTime unless its status flips. Returns the new list, or undefined when nothing changed.
 */
export function updateConditions(current: readonly Obj[], problems: readonly NamespaceProblem[], now: string): Obj[] | undefined {
  const out = current.map((c) => ({ ...c }));
  let changed = false;
  for (const type of namespaceConditionTypes) {
    const p = problems.find((x) => x.type === type);
    const want = p === undefined ? { status: 'False', reason: okReasons[type], message: okMessages[type] } : { status: 'True', reason: p.reason, message: p.message };
    const old = out.find((c) => c.type === type);
    if (old === undefined) {
      out.push({ type, status: want.status, lastTransitionTime: now, reason: want.reason, message: want.message });
      changed = true;
    } else if (old.status !== want.status || old.reason !== want.reason || old.message !== want.message) {
      if (old.status !== want.status) old.lastTransitionTime = now;
      old.status = want.status;
      old.reason = want.reason;
      old.message = want.message;
      changed = true;
    }
  }
  return changed ? out : undefined;
}
