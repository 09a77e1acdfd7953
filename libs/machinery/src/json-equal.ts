/** Structural equality of JSON values: key order does not matter, `undefined` members count as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key of Object.keys(left)) {
    if (left[key] === undefined) continue;
    count++;
    if (!jsonEqual(left[key], right[key])) return false;
  }
  for (const key of Object.keys(right)) if (right[key] !== undefined) count--;
  return count === 0;
}

/** Equality of two objects ignoring some top-level fields (`metadata`, `status`). */
export function jsonEqualExcept(a: Record<string, unknown>, b: Record<string, unknown>, ignored: readonly string[]): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    if (ignored.includes(key)) continue;
    if (!jsonEqual(a[key], b[key])) return false;
  }
  return true;
}

/** A deep copy of a JSON value (objects from the store and the cache are shared and must not change). */
export function jsonClone<T>(value: T): T {
  // A JSON round trip copies plain data faster than structuredClone does in Node 20.
  return JSON.parse(JSON.stringify(value)) as T;
}
