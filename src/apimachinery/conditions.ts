/**
 * Status conditions (k8s.io/apimachinery pkg/api/meta/conditions.go): set, find and remove a
 * `metav1.Condition` in an object's `status.conditions`, with upstream's rules: setting a condition
 * whose status did not change keeps its `lastTransitionTime`; a status change sets it to the given one
 * or, when none is given, to now; reason, message and observedGeneration are copied either way. The
 * list is changed in place (Go passes a pointer to the slice): change a copy of a cached object.
 */
import type { Condition } from '../api/meta/v1.ts';
import { realClock, type Clock } from '../util/clock/clock.ts';

export type { Condition } from '../api/meta/v1.ts';

/** A condition to set: `lastTransitionTime` may be left out (then now, when it is needed). */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & {
  /** When the status last changed (RFC 3339); left out: now, when the status changes. */
  lastTransitionTime?: string;
};

/** metav1.Now(), serialized as metav1.Time is: RFC 3339 at second precision. */
function now(clock: Clock): string {
  return new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Sets `condition` in `conditions` (meta.SetStatusCondition); returns whether anything changed.
 * A new type is appended; an existing one gets the new status (and `lastTransitionTime` only when the
 * status changed), reason, message and observedGeneration. `clock` gives "now" (default: the real clock).
 *
 * @example
 * const copy = deepCopy(website);
 * copy.status ??= {};
 * copy.status.conditions ??= [];
 * if (setStatusCondition(copy.status.conditions, { type: 'Available', status: 'True', reason: 'Serving', message: '', observedGeneration: copy.metadata?.generation })) {
 *   await client.updateStatus(websites, copy);
 * }
 */
export function setStatusCondition(conditions: Condition[] | undefined, condition: ConditionInput, clock: Clock = realClock): boolean {
  if (conditions === undefined) return false;
  const existing = findStatusCondition(conditions, condition.type);
  if (existing === undefined) {
    const added: Condition = { ...condition, lastTransitionTime: condition.lastTransitionTime !== undefined && condition.lastTransitionTime !== '' ? condition.lastTransitionTime : now(clock) };
    if (added.observedGeneration === undefined) delete added.observedGeneration;
    conditions.push(added);
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime !== undefined && condition.lastTransitionTime !== '' ? condition.lastTransitionTime : now(clock);
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== condition.message) {
    existing.message = condition.message;
    changed = true;
  }
  // Go's zero value: an unset observedGeneration is 0.
  if ((existing.observedGeneration ?? 0) !== (condition.observedGeneration ?? 0)) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes every condition of `type` (meta.RemoveStatusCondition); returns whether one was removed. */
export function removeStatusCondition(conditions: Condition[] | undefined, type: string): boolean {
  if (conditions === undefined || conditions.length === 0) return false;
  const before = conditions.length;
  for (let i = conditions.length - 1; i >= 0; i--) if (conditions[i]!.type === type) conditions.splice(i, 1);
  return conditions.length !== before;
}

/** The condition of `type`, or undefined (meta.FindStatusCondition). */
export function findStatusCondition<C extends Pick<Condition, 'type'>>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` is present with `status` (meta.IsStatusConditionPresentAndEqual). */
export function isStatusConditionPresentAndEqual(conditions: ReadonlyArray<Pick<Condition, 'type' | 'status'>> | undefined, type: string, status: string): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/** Whether the condition of `type` is present and `True` (meta.IsStatusConditionTrue). */
export function isStatusConditionTrue(conditions: ReadonlyArray<Pick<Condition, 'type' | 'status'>> | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'True');
}

/** Whether the condition of `type` is present and `False` (meta.IsStatusConditionFalse). */
export function isStatusConditionFalse(conditions: ReadonlyArray<Pick<Condition, 'type' | 'status'>> | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, 'False');
}
