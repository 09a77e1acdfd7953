import type { StoredObject } from '@svc/storage';

/**
 * The current state of one resource in memory: key -> object, plus every key in order, so that a
 * list of a prefix (a namespace) is a binary search and a walk rather than a scan and a sort.
 *
 * Keys are compared as UTF-16 code units; storage orders them bytewise (UTF-8), which is the same order
 * for the ASCII keys storage paths are made of.
 */
export class ObjectStore<T extends StoredObject> {
  private readonly objects = new Map<string, T>();
  private keys: string[] = [];

  get size(): number {
    return this.objects.size;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  set(key: string, object: T): void {
    if (!this.objects.has(key)) this.keys.splice(lowerBound(this.keys, key), 0, key);
    this.objects.set(key, object);
  }

  delete(key: string): void {
    if (this.objects.delete(key)) this.keys.splice(lowerBound(this.keys, key), 1);
  }

  /** Replaces the whole content. */
  replace(entries: Iterable<{ key: string; object: T }>): void {
    this.objects.clear();
    for (const { key, object } of entries) this.objects.set(key, object);
    this.keys = [...this.objects.keys()].sort(compareKeys);
  }

  /** The objects whose key starts with `prefix`, in key order, that pass `filter`. */
  list(prefix: string, filter?: (object: T) => boolean): Array<{ key: string; object: T }> {
    const keys = this.keys;
    const out: Array<{ key: string; object: T }> = [];
    for (let i = lowerBound(keys, prefix); i < keys.length && keys[i].startsWith(prefix); i++) {
      const object = this.objects.get(keys[i]) as T;
      if (filter === undefined || filter(object)) out.push({ key: keys[i], object });
    }
    return out;
  }
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
