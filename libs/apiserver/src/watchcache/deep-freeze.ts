/**
 * Freezes a decoded JSON value and everything in it. The cache hands the same object to every reader
 * and watcher; a frozen object makes an accidental write throw (in strict mode) instead of silently
 * changing what every other client sees.
 */
export function deepFreeze<V>(value: V): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value as object)) deepFreeze(child);
  return value;
}
