/**
 * Freezes an object graph in place. Cached objects are shared by every reader of an informer, so a
 * reader that edits one in place would corrupt everyone's view; freezing turns that silent bug into
 * a TypeError at the line that does it.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
