import type { StoredObject } from '@svc/storage';

interface Entry<T> {
  readonly key: string;
  object: T;
}

/**
 * The current state of one resource in memory: key -> object, plus every entry in key order, so that a
 * list of a prefix (a namespace) or a page of it is a binary search and a walk over the entries (no
 * lookup per key) rather than a scan and a sort.
 *
 * Keys are compared as UTF-16 code units; storage orders them bytewise (UTF-8), which is the same order
 * for the ASCII keys storage paths are made of.
 */
export class ObjectStore<T extends StoredObject> {
  private readonly byKey = new Map<string, Entry<T>>();
  private entries: Array<Entry<T>> = [];

  get size(): number {
    return this.byKey.size;
  }

  get(key: string): T | undefined {
    return this.byKey.get(key)?.object;
  }

  set(key: string, object: T): void {
    const known = this.byKey.get(key);
    if (known !== undefined) {
      known.object = object;
      return;
    }
    const entry = { key, object };
    this.byKey.set(key, entry);
    this.entries.splice(lowerBound(this.entries, key), 0, entry);
  }

  delete(key: string): void {
    if (this.byKey.delete(key)) this.entries.splice(lowerBound(this.entries, key), 1);
  }

  /** Replaces the whole content. */
  replace(entries: Iterable<{ key: string; object: T }>): void {
    this.byKey.clear();
    for (const { key, object } of entries) this.byKey.set(key, { key, object });
    this.entries = [...this.byKey.values()].sort(compareEntries);
  }

  /** The entries whose key starts with `prefix`, in key order, whose object passes `filter`. */
  list(prefix: string, filter?: (object: T) => boolean): Array<{ key: string; object: T }> {
    const entries = this.entries;
    const out: Array<{ key: string; object: T }> = [];
    const from = lowerBound(entries, prefix);
    for (let i = from, end = prefixEnd(entries, prefix, from); i < end; i++) {
      const { key, object } = entries[i];
      if (filter === undefined || filter(object)) out.push({ key, object });
    }
    return out;
  }

  /** The objects whose key starts with `prefix`, in key order, that pass `filter`. */
  objects(prefix: string, filter?: (object: T) => boolean): T[] {
    const entries = this.entries;
    const out: T[] = [];
    const from = lowerBound(entries, prefix);
    for (let i = from, end = prefixEnd(entries, prefix, from); i < end; i++) {
      const object = entries[i].object;
      if (filter === undefined || filter(object)) out.push(object);
    }
    return out;
  }

  /**
   * The first `limit` objects under `prefix` that pass `filter`, in key order, and whether more such
   * objects follow; without a filter also how many follow (a page of a list served from memory).
   */
  page(prefix: string, limit: number, filter?: (object: T) => boolean): ObjectPage<T> {
    const entries = this.entries;
    const items: T[] = [];
    let lastKey = '';
    const from = lowerBound(entries, prefix);
    const end = prefixEnd(entries, prefix, from);
    for (let i = from; i < end; i++) {
      const object = entries[i].object;
      if (filter !== undefined && !filter(object)) continue;
      if (items.length === limit) {
        // One more match: the page is full and more follow.
        return { items, lastKey, more: true, remaining: filter === undefined ? end - i : undefined };
      }
      items.push(object);
      lastKey = entries[i].key;
    }
    return { items, lastKey, more: false, remaining: 0 };
  }
}

export interface ObjectPage<T> {
  items: T[];
  /** The key of the last item ('' for an empty page). */
  lastKey: string;
  /** Whether objects that pass the filter follow the page. */
  more: boolean;
  /** How many objects follow the page; known only for a page without filter. */
  remaining: number | undefined;
}

function compareEntries<T>(a: Entry<T>, b: Entry<T>): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function lowerBound<T>(entries: ReadonlyArray<Entry<T>>, target: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].key < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The index after the last key starting with `prefix`, searching from `from` (the first such key, if
 * any): keys with a prefix are contiguous, so a binary search replaces a string test per entry.
 */
function prefixEnd<T>(entries: ReadonlyArray<Entry<T>>, prefix: string, from: number): number {
  let lo = from;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid].key.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
