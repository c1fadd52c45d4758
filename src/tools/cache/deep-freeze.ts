/**
 * Deep freezing of cached objects. client-go can only detect a handler mutating a cached object
 * after the fact (the cache mutation detector); freezing every object once, when it enters the
 * cache, makes such a mutation throw at the faulty line instead (in strict-mode code, which all
 * ES modules are).
 *
 * {@link freezeReusing} freezes a new version of a cached object while taking over, from the
 * previous (already frozen) version, every part that did not change. A status update to a Pod then
 * freezes only the few objects on the path to the changed fields; the rest of the new version is
 * garbage right away, so it never reaches the old generation of the heap.
 */

/** The recursion guard: objects already frozen are taken to be deeply frozen (they came from here). */
function freezeValue(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) freezeValue(value[i]);
  } else {
    for (const k in value) freezeValue((value as Record<string, unknown>)[k]);
  }
}

/**
 * Freezes `obj` and everything reachable from it, in place, and returns it. Objects that are already
 * frozen are assumed to be deeply frozen and are not descended into, so freezing a cached object a
 * second time costs one check.
 */
export function deepFreeze<T>(obj: T): T {
  freezeValue(obj);
  return obj;
}

const objectPrototype = Object.prototype;

/**
 * Plain objects (as JSON.parse makes them) and arrays are compared; anything else is never shared.
 * Object.prototype itself is not plain (its prototype is null): a key such as "__proto__" that a
 * new version has and the previous one lacks reads Object.prototype from the previous version,
 * which therefore can never be taken for an equal value.
 */
function isPlain(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === objectPrototype || Array.isArray(value);
}

function countKeys(value: object): number {
  let n = 0;
  for (const _ in value) n++;
  return n;
}

/**
 * Returns `previous` when `next` is deep-equal to it; otherwise freezes `next`, whose unchanged
 * children are replaced in place by `previous`'s, and returns it. `previous` is frozen already.
 *
 * Children are only written back once the node is known to differ: an unchanged subtree is compared
 * without a single store, and is then dropped whole in favour of `previous`'s.
 */
function reuse(next: unknown, previous: unknown): unknown {
  if (typeof next !== 'object' || next === null) return next;
  if (Object.isFrozen(next)) return next;
  if (typeof previous !== 'object' || previous === null || !isPlain(next) || !isPlain(previous) || Array.isArray(next) !== Array.isArray(previous)) {
    freezeValue(next);
    return next;
  }
  return Array.isArray(next) ? reuseArray(next, previous as unknown[]) : reuseObject(next as Record<string, unknown>, previous as Record<string, unknown>);
}

function reuseArray(next: unknown[], prev: unknown[]): unknown {
  // With different lengths the arrays differ from the start, and every child is written as it goes.
  let same = next.length === prev.length;
  for (let i = 0; i < next.length; i++) {
    const child = next[i];
    const prevChild = i < prev.length ? prev[i] : undefined;
    const kept = reuse(child, prevChild);
    if (same && Object.is(kept, prevChild)) continue;
    if (same) {
      // First difference: the children before it equal prev's, which replace them.
      same = false;
      for (let j = 0; j < i; j++) next[j] = prev[j];
    }
    if (kept !== child) next[i] = kept;
  }
  if (same) return prev;
  Object.freeze(next);
  return next;
}

function reuseObject(next: Record<string, unknown>, prev: Record<string, unknown>): unknown {
  let same = true;
  let keys = 0;
  for (const k in next) {
    keys++;
    const child = next[k];
    // An inherited value read here (Object.prototype's functions, or Object.prototype itself for
    // "__proto__") is never equal to a JSON value, so it cannot be taken over.
    const prevChild = prev[k];
    const kept = reuse(child, prevChild);
    if (same && Object.is(kept, prevChild) && (kept !== undefined || k in prev)) continue;
    if (same) {
      same = false;
      // First difference: the keys before it equal prev's, whose values replace them.
      let j = 0;
      for (const before in next) {
        if (++j >= keys) break;
        next[before] = prev[before];
      }
    }
    if (kept !== child) next[k] = kept;
  }
  if (same && keys === countKeys(prev)) return prev;
  if (same) {
    // Every key of next matched, but prev has more: keep next, with prev's equal values.
    for (const k in next) next[k] = prev[k];
  }
  Object.freeze(next);
  return next;
}

/**
 * Deep-freezes `next`, a new version of the cached `previous`, reusing `previous`'s frozen parts:
 * every plain object or array in `next` that is deep-equal to the one at the same path in `previous`
 * is replaced by it, so only what changed is frozen and kept. Returns `previous` itself when nothing
 * changed. `previous` must be deeply frozen (as {@link deepFreeze} leaves it) or undefined.
 *
 * Equality is JSON equality: the enumerable string-keyed properties of plain objects and the
 * elements of arrays, with primitives compared by `===`. Other objects (class instances, Dates,
 * Maps) are frozen as they are, never replaced.
 */
export function freezeReusing<T>(next: T, previous: T | undefined): T {
  if (previous === undefined || previous === next) return deepFreeze(next);
  return reuse(next, previous) as T;
}
