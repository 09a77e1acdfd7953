/**
 * Freezes an object graph in place. Cached objects are shared by every reader of an informer, so a
 * reader that edits one in place would corrupt everyone's view; freezing turns that silent bug into
 * a TypeError at the line that does it.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) freezeTree(value);
  return value;
}

// Walks with for-in and indexes instead of Object.keys, and looks only at object values: an informer
// freezes every object it caches, and the array of keys per node was most of the cost.
function freezeTree(node: object): void {
  Object.freeze(node);
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeTree(child);
    }
    return;
  }
  const record = node as Record<string, unknown>;
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    const child = record[key];
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) freezeTree(child);
  }
}
