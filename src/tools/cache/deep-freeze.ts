/**
 * Deep freezing of cached objects. client-go can only detect a handler mutating a cached object
 * after the fact (the cache mutation detector); freezing every object once, when it enters the
 * cache, makes such a mutation throw at the faulty line instead (in strict-mode code, which all
 * ES modules are).
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
