/**
 * Writing taints on nodes the way kube-controller-manager does (kubernetes/pkg/controller/controller_utils.go:
 * AddOrUpdateTaintOnNode, RemoveTaintOffNode, PatchNodeTaints; pkg/controller/util/node/controller_utils.go:
 * SwapNodeControllerTaint; pkg/util/taints: AddOrUpdateTaint, TaintExists), v1.24. A taint is matched by key
 * and effect (Taint.MatchTaint); the write is a patch of `spec.taints` as a whole list (the field has no
 * merge key, so upstream's strategic-merge patch replaces it too) carrying the node's resourceVersion, read
 * by a GET before each attempt and retried on conflict up to {@link updateTaintBackoffSteps} times.
 */
import type { Node, Taint } from '../../api/core/v1.ts';
import { isConflict } from '../../apimachinery/errors.ts';
import { PatchType } from '../../apimachinery/options.ts';
import type { Clientset } from '../../kubernetes/clientset.ts';
import type { Clock } from '../../util/clock/clock.ts';
import { nowTime } from '../controller-utils.ts';

/** UpdateTaintBackoff.Steps (controller_utils.go): attempts of one taint write. */
export const updateTaintBackoffSteps = 5;

/** Taint.MatchTaint: same key and effect. */
export function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

/** taints.TaintExists: a taint of `taints` matches `taint`. */
export function taintExists(taints: readonly Taint[] | undefined, taint: Taint): boolean {
  return (taints ?? []).some((t) => matchTaint(t, taint));
}

// Semantic equality of two taints (timeAdded compared as written).
function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect && (a.value ?? '') === (b.value ?? '') && (a.timeAdded ?? '') === (b.timeAdded ?? '');
}

/** taints.AddOrUpdateTaint: `taints` with `taint` in place of the one it matches, or appended; undefined when nothing changes. */
export function addOrUpdateTaint(taints: readonly Taint[], taint: Taint): Taint[] | undefined {
  const out: Taint[] = [];
  let updated = false;
  for (const t of taints) {
    if (matchTaint(taint, t)) {
      if (sameTaint(taint, t)) return undefined;
      out.push(taint);
      updated = true;
    } else {
      out.push(t);
    }
  }
  if (!updated) out.push(taint);
  return out;
}

// PatchNodeTaints: the whole list, with the node's resourceVersion so that a concurrent write conflicts.
async function patchTaints(client: Clientset, node: Node, taints: readonly Taint[]): Promise<void> {
  // An empty list leaves the field out, as the Go client's JSON of an empty slice with omitempty.
  await client.coreV1().nodes().patch(node.metadata?.name ?? '', PatchType.Merge, { metadata: { resourceVersion: node.metadata?.resourceVersion }, spec: { taints: taints.length === 0 ? null : taints } });
}

// retry.RetryOnConflict with a GET per attempt: the API server's cache first (resourceVersion 0), then a
// quorum read.
async function onConflictRetry(client: Clientset, name: string, write: (node: Node) => Promise<void>): Promise<void> {
  for (let i = 0; ; i++) {
    const current = await client.coreV1().nodes().get(name, i === 0 ? { resourceVersion: '0' } : {});
    try {
      await write(current);
      return;
    } catch (err) {
      if (!isConflict(err) || i + 1 >= updateTaintBackoffSteps) throw err;
    }
  }
}

/** AddOrUpdateTaintOnNode: adds or replaces `taints` on the node. */
export async function addOrUpdateTaintOnNode(client: Clientset, name: string, taints: readonly Taint[]): Promise<void> {
  if (taints.length === 0) return;
  await onConflictRetry(client, name, async (current) => {
    let next = current.spec?.taints ?? [];
    let updated = false;
    for (const t of taints) {
      const changed = addOrUpdateTaint(next, t);
      if (changed !== undefined) {
        next = changed;
        updated = true;
      }
    }
    if (updated) await patchTaints(client, current, next);
  });
}

/** RemoveTaintOffNode: removes the taints matching `taints`; nothing is written when the node has none of them. */
export async function removeTaintOffNode(client: Clientset, name: string, node: Node | undefined, taints: readonly Taint[]): Promise<void> {
  if (taints.length === 0) return;
  if (node !== undefined && !taints.some((t) => taintExists(node.spec?.taints, t))) return;
  await onConflictRetry(client, name, async (current) => {
    const existing = current.spec?.taints ?? [];
    const next = existing.filter((t) => !taints.some((r) => matchTaint(r, t)));
    if (next.length !== existing.length) await patchTaints(client, current, next);
  });
}

/**
 * SwapNodeControllerTaint: adds `add` (each stamped with timeAdded = now) then removes `remove`; false
 * (reported through `onError`) when either write failed, so the caller tries again later.
 */
export async function swapNodeControllerTaint(client: Clientset, clock: Clock, add: readonly Taint[], remove: readonly Taint[], node: Node, onError: (err: unknown) => void): Promise<boolean> {
  const name = node.metadata?.name ?? '';
  const stamped = add.map((t) => ({ ...t, timeAdded: nowTime(clock) }));
  try {
    await addOrUpdateTaintOnNode(client, name, stamped);
    await removeTaintOffNode(client, name, node, remove);
    return true;
  } catch (err) {
    onError(err);
    return false;
  }
}
