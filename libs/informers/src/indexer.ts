import { deepFreeze } from './deep-freeze';
import { resourceVersionOf, type KubeObject } from './kube-object';
import { metaNamespaceKey, type KeyFunc } from './object-key';
import { compareRevisions, isRevisionAtLeast } from './revision';
import { RevisionWaiters } from './revision-waiters';

/** The values an object is filed under in one index (an object may have several, or none). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Index functions by index name. */
export type Indexers<T> = Readonly<Record<string, IndexFunc<T>>>;

/** The index every store has: objects by namespace (`''` for cluster-scoped objects). */
export const NAMESPACE_INDEX = 'namespace';

/** client-go's MetaNamespaceIndexFunc. */
export function namespaceIndexFunc(obj: KubeObject): readonly string[] {
  return [obj.metadata?.namespace ?? ''];
}

export interface IndexerOptions<T> {
  /** Key of an object; `namespace/name` or `name` by default. */
  keyFunc?: KeyFunc<T>;
  /** Indexes besides the built-in namespace index. */
  indexers?: Indexers<T>;
  /**
   * Deep-freeze every object that enters the store (default true): readers share one copy, so
   * editing one in place must fail loudly instead of corrupting the cache. Copy before changing.
   */
  freezeObjects?: boolean;
}

/**
 * The cache of one resource: objects by key, secondary indexes over them, and the newest revision
 * the cache is known to reflect (advanced by events, bookmarks and relists) with a way to wait for
 * a revision. Writes come from the reflector; everyone else only reads.
 */
export class Indexer<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name -> index value -> keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly keyFunc: KeyFunc<T>;
  private readonly freeze: boolean;
  private readonly waiters = new RevisionWaiters();
  private revision = '';
  private closed = false;

  constructor(options: IndexerOptions<T> = {}) {
    this.keyFunc = options.keyFunc ?? metaNamespaceKey;
    this.freeze = options.freezeObjects ?? true;
    this.addIndexers({ [NAMESPACE_INDEX]: namespaceIndexFunc, ...options.indexers });
  }

  /** The key `obj` is filed under. */
  keyOf(obj: T): string {
    return this.keyFunc(obj);
  }

  get size(): number {
    return this.items.size;
  }

  /** Adds or replaces the object with the same key. */
  add(obj: T): void {
    this.put(obj);
  }

  /** Same as {@link add}: the store keeps the latest state whatever the event said. */
  update(obj: T): void {
    this.put(obj);
  }

  /** Removes the object with the same key as `obj`; a no-op when absent. */
  delete(obj: T): void {
    this.deleteKey(this.keyFunc(obj));
  }

  deleteKey(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.unindex(key, old);
    this.items.delete(key);
  }

  /**
   * Makes the contents exactly `items`, as of `resourceVersion` (a relist). The revision is set,
   * not advanced: after a relist the list's version is the truth, even if older than a bookmark.
   */
  replace(items: readonly T[], resourceVersion: string): void {
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    for (const obj of items) this.put(obj);
    this.revision = resourceVersion;
    this.waiters.revisionReached(resourceVersion);
  }

  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  /** Adds indexes; existing objects are indexed at once. A name already in use is an error. */
  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer ${JSON.stringify(name)} already exists`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      this.indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) addToIndex(index, indexValues(fn, obj), key);
    }
  }

  /** Names of the indexes this store keeps. */
  indexNames(): string[] {
    return [...this.indexers.keys()];
  }

  /** Objects filed under `value` in index `indexName`. */
  byIndex(indexName: string, value: string): T[] {
    return this.indexKeys(indexName, value).map((key) => this.items.get(key) as T);
  }

  /** Keys filed under `value` in index `indexName`. */
  indexKeys(indexName: string, value: string): string[] {
    return [...(this.indexFor(indexName).get(value) ?? [])];
  }

  /** Objects sharing at least one value of index `indexName` with `obj`. */
  index(indexName: string, obj: T): T[] {
    const fn = this.indexers.get(indexName);
    if (fn === undefined) throw new Error(`index ${JSON.stringify(indexName)} does not exist`);
    const index = this.indexFor(indexName);
    const keys = new Set<string>();
    for (const value of indexValues(fn, obj)) for (const key of index.get(value) ?? []) keys.add(key);
    return [...keys].map((key) => this.items.get(key) as T);
  }

  /** Values that currently have objects in index `indexName`. */
  listIndexFuncValues(indexName: string): string[] {
    return [...this.indexFor(indexName).keys()];
  }

  /** The newest revision the cache reflects; `''` before the first list. */
  get resourceVersion(): string {
    return this.revision;
  }

  /**
   * Records that the cache reflects every change up to `resourceVersion` (an event or a bookmark
   * was applied). Never moves backwards between comparable revisions.
   */
  observeResourceVersion(resourceVersion: string): void {
    if (!resourceVersion) return;
    const c = compareRevisions(resourceVersion, this.revision);
    if (c !== undefined && c < 0) return;
    this.revision = resourceVersion;
    this.waiters.revisionReached(resourceVersion);
  }

  /**
   * Resolves `true` once the cache reflects revision `resourceVersion` or newer, `false` after
   * `timeoutMs` or when the store is closed. Works for this product's numeric revisions; for any
   * other string only the exact version counts.
   */
  waitForResourceVersion(resourceVersion: string, timeoutMs: number): Promise<boolean> {
    return this.waitFor(resourceVersion, timeoutMs);
  }

  /**
   * Like {@link waitForResourceVersion}, and also resolves as soon as the object under `key` carries
   * `resourceVersion` or newer. The key matters for a filtered watch, where other objects' changes
   * never arrive and the store's revision only moves with bookmarks.
   */
  waitForKeyResourceVersion(key: string, resourceVersion: string, timeoutMs: number): Promise<boolean> {
    const current = this.items.get(key);
    if (current !== undefined && isRevisionAtLeast(resourceVersionOf(current), resourceVersion)) {
      return Promise.resolve(true);
    }
    return this.waitFor(resourceVersion, timeoutMs, key);
  }

  /** Number of pending waits (for tests and metrics). */
  get pendingWaits(): number {
    return this.waiters.size;
  }

  /** Empties the store and ends every pending wait unreached; the store accepts no waits afterwards. */
  close(): void {
    this.closed = true;
    this.items.clear();
    for (const index of this.indices.values()) index.clear();
    this.waiters.abandonAll();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private waitFor(resourceVersion: string, timeoutMs: number, key?: string): Promise<boolean> {
    if (isRevisionAtLeast(this.revision, resourceVersion)) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return this.waiters.wait(resourceVersion, timeoutMs, key);
  }

  private put(obj: T): void {
    const key = this.keyFunc(obj);
    if (this.freeze) deepFreeze(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) {
      const index = this.indexFor(name);
      const values = indexValues(fn, obj);
      if (old !== undefined) {
        // Most updates leave an object's index values as they were (the namespace always).
        const oldValues = indexValues(fn, old);
        if (sameValues(oldValues, values)) continue;
        removeFromIndex(index, oldValues, key);
      }
      addToIndex(index, values, key);
    }
    const rv = resourceVersionOf(obj);
    if (rv && this.waiters.size > 0) this.waiters.keyReached(key, rv);
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) removeFromIndex(this.indexFor(name), indexValues(fn, obj), key);
  }

  private indexFor(indexName: string): Map<string, Set<string>> {
    const index = this.indices.get(indexName);
    if (index === undefined) throw new Error(`index ${JSON.stringify(indexName)} does not exist`);
    return index;
  }
}

/**
 * An index function that throws or returns something other than strings (`[obj.spec.nodeName]` on
 * an object without a spec) files the object under no value in that index rather than leaving the
 * store half updated.
 */
function indexValues<T>(fn: IndexFunc<T>, obj: T): readonly string[] {
  let values: unknown;
  try {
    values = fn(obj);
  } catch {
    return [];
  }
  if (!Array.isArray(values)) return [];
  for (const v of values) if (typeof v !== 'string') return values.filter((w): w is string => typeof w === 'string');
  return values as readonly string[];
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function removeFromIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    const keys = index.get(value);
    if (keys === undefined) continue;
    keys.delete(key);
    if (keys.size === 0) index.delete(value);
  }
}

function addToIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}
