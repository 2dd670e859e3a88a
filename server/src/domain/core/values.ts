/**
 * Freezes `value` and everything reachable from it, and hands it back. A deep-frozen object
 * cannot change, so it can be shared between readers, and anything derived from it (a view, its
 * JSON) can be kept as long as the object lives.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}
