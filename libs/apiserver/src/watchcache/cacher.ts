import { errorMessage } from '@svc/machinery';
import {
  StorageError,
  encodeContinue,
  isStorageError,
  type ChangeEvent,
  type Storage,
  type StoredObject,
  type StorageWatchEvent,
  type Watcher,
} from '@svc/storage';
import type { CacheEntry, CacheWatchEvent } from './cache-events';
import { CacheWatcherChannel, type CacheWatcher } from './cache-watcher';
import { deepFreeze } from './deep-freeze';
import { EventWindow } from './event-window';
import { ObjectStore } from './object-store';

export const DEFAULT_CACHE_WAIT_MS = 3_000;
export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
export const DEFAULT_BACKEND_PROGRESS_INTERVAL_MS = 5_000;
export const DEFAULT_WATCHER_BUFFER_LIMIT = 10_000;

/** Callbacks for the metrics module; each is optional and must not throw. */
export interface CacherMetrics {
  /** One change entered the cache and was offered to the watchers under its key. */
  eventDispatched?(resource: string): void;
  /** The number of open watchers changed. */
  watchersChanged?(resource: string, open: number): void;
  /** The cache changed size: objects held, events in the window, window capacity. */
  cacheSizeChanged?(resource: string, size: CacheSize): void;
  /** A watcher was cut off: it fell behind, or the cache lost its backend. */
  watcherTerminated?(resource: string, reason: 'overflow' | 'reinitialize'): void;
  /** The cache was (re)built from a full read of the resource. */
  initialized?(resource: string, objects: number): void;
}

export interface CacheSize {
  objects: number;
  events: number;
  capacity: number;
}

export interface CacherOptions {
  /** The resource's key prefix in storage (`prefixKey` without namespace, ending with `/`). */
  prefix: string;
  /** `resource[.group]`, for messages and metrics. */
  resource: string;
  /**
   * A fixed number of events kept for watches from an older revision. Unset: sized like Kubernetes'
   * watch cache, 100 to 102,400 events, growing while the window holds less than 75 s of changes.
   */
  windowSize?: number;
  /** How long a read or watch waits for the cache to reach a revision (and for readiness). */
  waitMs?: number;
  /** Roughly how often watchers that allow bookmarks get one. */
  bookmarkIntervalMs?: number;
  /** How often the backend watch reports progress while the resource is idle. */
  progressIntervalMs?: number;
  /** Undelivered live events a watcher may hold before it is cut off. */
  watcherBufferLimit?: number;
  /** Undelivered events the backend watch may hold for the cacher (the storage default if unset). */
  backendBufferLimit?: number;
  /** First and longest pause between attempts to re-establish the backend watch. */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** The clock for bookmarks and window sizing (ms). */
  now?: () => number;
  metrics?: CacherMetrics;
}

export interface CacheReadOptions {
  /** "Not older than": the answer reflects at least this revision. */
  minRevision?: number;
  /**
   * "Most recent": the answer reflects at least the store's current revision (one `currentRevision()`
   * round trip, then a wait for the cache to catch up, as Kubernetes' consistent reads from cache).
   */
  consistent?: boolean;
}

export interface CacheListOptions<T extends StoredObject> extends CacheReadOptions {
  /** Only keys under this prefix, ending with `/` (a namespace's prefix); default: the whole resource. */
  keyPrefix?: string;
  /** Only objects it accepts (label and field selectors). */
  filter?: (object: T) => boolean;
}

export interface CacheListResult<T extends StoredObject> {
  /** In key order; shared and frozen. */
  items: T[];
  /** The revision the list reflects. */
  revision: number;
}

export interface CachePageOptions<T extends StoredObject> extends CacheListOptions<T> {
  /** At most this many items (at least 1). */
  limit: number;
}

export interface CachePageResult<T extends StoredObject> extends CacheListResult<T> {
  /** Present when more items follow: the store's own token for the next page, at `revision`. */
  continue?: string;
  /** Items after this page, for a page without filter. */
  remainingItemCount?: number;
}

export interface CacheWatchOptions<T extends StoredObject> {
  /** Only keys under this prefix, ending with `/` (a namespace's prefix); default: the whole resource. */
  keyPrefix?: string;
  /**
   * The request's resourceVersion as a number:
   * - unset ("Get State and Start at Most Recent"): initial state at least as new as the store's
   *   current revision, then changes;
   * - 0 ("Get State and Start at Any"): initial state as the cache has it, then changes;
   * - R ("Start at Exact"): the changes after R, replayed from the window (Expired, HTTP 410, when R is
   *   older than the window; TooLargeResourceVersion, HTTP 504, when the store itself has not reached R
   *   within `waitMs`).
   */
  fromRevision?: number;
  /**
   * `sendInitialEvents`: unset means "initial state for unset and 0, none for R". `true` with R sends
   * the state at a revision not older than R. `true` together with `allowBookmarks` ends the initial
   * state with a BOOKMARK marked `initialEventsEnd`; `false` with unset or 0 starts at that revision
   * without initial state.
   */
  sendInitialEvents?: boolean;
  filter?: (object: T) => boolean;
  /** `allowWatchBookmarks`. */
  allowBookmarks?: boolean;
  /** Undelivered live events before the watch is cut off (default: the cacher's). */
  bufferLimit?: number;
  /** When the request times out (cacher clock, ms): a bookmark goes out 2 s before. */
  deadline?: number;
}

/**
 * Kubernetes' cacher for one resource: ONE storage watch on the resource's key prefix keeps an
 * in-memory copy of every object and a sliding window of the latest changes, and fans every change out
 * to any number of client watches, so that a thousand watchers cost one backend stream and one decode.
 *
 * Reads (`get`, `list`) with revision "any", "not older than" or "most recent" are answered from memory
 * once the cache has reached the revision asked for. While the cache is not ready (starting, or its
 * backend watch is down) reads are answered by storage instead, like Kubernetes does since 1.31.
 * Paged lists and Exact reads are not the cache's business: the handlers send them to storage.
 *
 * Objects handed out (read results and watch events) are shared by every caller and deeply frozen.
 *
 * Backend trouble: when the storage watch ends (overflow, a dropped connection), the cacher watches
 * again from the revision it has reached; storage replays what was missed, so nothing is lost and client
 * watches carry on. If that fails, the cacher is not ready (`readyError` says why), it ends every client
 * watch with Unavailable, and retries with backoff: again from its revision if storage still has it
 * (so clients re-watching from a recent revision do not have to list again), else from a fresh full read
 * that replaces the cache and starts a new window.
 */
export class Cacher<T extends StoredObject> {
  private readonly prefix: string;
  private readonly resource: string;
  private readonly waitMs: number;
  private readonly bookmarkIntervalMs: number;
  private readonly progressIntervalMs: number;
  private readonly watcherBufferLimit: number;
  private readonly backendBufferLimit: number | undefined;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly now: () => number;
  private readonly metrics: CacherMetrics;

  private readonly store = new ObjectStore<T>();
  private readonly window: EventWindow<T>;
  private cacheRevision = 0;
  private initialized = false;
  private isReady = false;
  private lastError: string | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private backend: Watcher<T> | undefined;
  private retryTimer: { timer: NodeJS.Timeout; resolve: () => void } | undefined;

  private readonly watchers = new Set<CacheWatcherChannel<T>>();
  private readonly watchersByPrefix = new Map<string, Set<CacheWatcherChannel<T>>>();
  private readonly bookmarkWatchers = new Set<CacheWatcherChannel<T>>();
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private bookmarkProgressAsked = false;

  private readonly revisionListeners = new Set<() => void>();
  private readonly readyListeners = new Set<() => void>();

  constructor(
    private readonly storage: Storage,
    options: CacherOptions,
  ) {
    this.prefix = options.prefix;
    this.resource = options.resource;
    this.waitMs = options.waitMs ?? DEFAULT_CACHE_WAIT_MS;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS;
    this.progressIntervalMs = options.progressIntervalMs ?? DEFAULT_BACKEND_PROGRESS_INTERVAL_MS;
    this.watcherBufferLimit = options.watcherBufferLimit ?? DEFAULT_WATCHER_BUFFER_LIMIT;
    this.backendBufferLimit = options.backendBufferLimit;
    this.retryInitialMs = options.retryInitialMs ?? 200;
    this.retryMaxMs = Math.max(this.retryInitialMs, options.retryMaxMs ?? 30_000);
    this.now = options.now ?? Date.now;
    this.metrics = options.metrics ?? {};
    this.window = new EventWindow<T>(0, { capacity: options.windowSize });
  }

  /** For the `/readyz` check: the cache holds the resource and follows its changes. */
  get ready(): boolean {
    return this.isReady;
  }

  /** Why the cache is not ready, when it failed (unset while it is starting or ready). */
  get readyError(): string | undefined {
    return this.isReady ? undefined : this.lastError;
  }

  /** The revision up to which the cache has seen every change of the resource. */
  revision(): number {
    return this.cacheRevision;
  }

  /** Sizes, for metrics collected on scrape. */
  size(): CacheSize & { watchers: number; oldestWatchableRevision: number } {
    return {
      objects: this.store.size,
      events: this.window.size,
      capacity: this.window.capacity,
      watchers: this.watchers.size,
      oldestWatchableRevision: this.window.oldestWatchable,
    };
  }

  /**
   * Starts following the resource; resolves once the cache is first ready (or `stop()` was called).
   * It never rejects: failures are retried with backoff and reported through `readyError`.
   */
  start(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.run();
      const tick = Math.max(10, Math.min(1_000, Math.floor(this.bookmarkIntervalMs / 4)));
      this.bookmarkTimer = setInterval(() => this.onBookmarkTick(), tick);
      this.bookmarkTimer.unref();
    }
    return this.whenReady(Number.POSITIVE_INFINITY).then(() => undefined);
  }

  /** Resolves with true once ready, or false after `timeoutMs` or when stopped. */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.isReady) return Promise.resolve(true);
    if (this.stopped || timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.readyListeners.delete(done);
        resolve(this.isReady);
      };
      if (Number.isFinite(timeoutMs)) timer = setTimeout(done, timeoutMs);
      this.readyListeners.add(done);
    });
  }

  /** Stops the backend watch and ends every client watch without error. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.setReady(false);
    if (this.bookmarkTimer !== undefined) clearInterval(this.bookmarkTimer);
    if (this.retryTimer !== undefined) {
      clearTimeout(this.retryTimer.timer);
      this.retryTimer.resolve();
    }
    this.backend?.stop();
    for (const watcher of [...this.watchers]) watcher.stop();
    for (const listener of [...this.revisionListeners]) listener();
    for (const listener of [...this.readyListeners]) listener();
    await this.running;
  }

  /**
   * The object at `key`, shared and frozen; KeyNotFound if absent, as `Storage.get`. Without options
   * it is "any" (whatever the cache holds now).
   */
  async get(key: string, options: CacheReadOptions = {}): Promise<T> {
    this.checkKey(key, 'key');
    const target = await this.readTarget(options);
    if (await this.servable(target)) {
      const object = this.store.get(key);
      if (object === undefined) throw StorageError.keyNotFound(key);
      return object;
    }
    return deepFreeze(await this.storage.get<T>(key, { minRevision: target }));
  }

  /** The objects under `keyPrefix` that pass `filter`, in key order, with the revision they reflect. */
  async list(options: CacheListOptions<T> = {}): Promise<CacheListResult<T>> {
    const keyPrefix = options.keyPrefix ?? this.prefix;
    this.checkKey(keyPrefix, 'keyPrefix');
    const target = await this.readTarget(options);
    if (await this.servable(target)) {
      return { items: this.store.objects(keyPrefix, options.filter), revision: this.cacheRevision };
    }
    const listed = await this.storage.list<T>(keyPrefix, { revision: target, match: 'NotOlderThan' });
    const items = options.filter === undefined ? listed.items : listed.items.filter(options.filter);
    for (const item of items) deepFreeze(item);
    return { items, revision: listed.revision };
  }

  /**
   * The first page of a list, from memory, or undefined when the cache cannot answer at the revision
   * asked for (not ready, or not caught up within `waitMs`): the caller then pages through the store.
   * The cache holds the store's state at `cacheRevision` exactly, so the store reads the following
   * pages at that revision from the token, and all pages form one consistent snapshot.
   */
  async listPage(options: CachePageOptions<T>): Promise<CachePageResult<T> | undefined> {
    const keyPrefix = options.keyPrefix ?? this.prefix;
    this.checkKey(keyPrefix, 'keyPrefix');
    const target = await this.readTarget(options);
    if (!(await this.servable(target))) return undefined;
    const revision = this.cacheRevision;
    const page = this.store.page(keyPrefix, Math.max(1, options.limit), options.filter);
    const result: CachePageResult<T> = { items: page.items, revision };
    if (page.more) {
      result.continue = encodeContinue({ revision, after: page.lastKey.slice(keyPrefix.length) });
      if (page.remaining !== undefined) result.remainingItemCount = page.remaining;
    }
    return result;
  }

  /**
   * A client watch; see {@link CacheWatchOptions} for where it starts. Rejects with Expired (410) or
   * TooLargeResourceVersion (504) before anything is streamed, and with Unavailable (503) when the
   * cache is not ready within `waitMs`.
   */
  async watch(options: CacheWatchOptions<T> = {}): Promise<CacheWatcher<T>> {
    const keyPrefix = options.keyPrefix ?? this.prefix;
    this.checkKey(keyPrefix, 'keyPrefix');
    await this.readyOrFail();
    const from = options.fromRevision;
    const withState = options.sendInitialEvents ?? (from === undefined || from === 0);

    if (withState) {
      const target = from === undefined ? await this.storage.currentRevision(this.prefix) : from > 0 ? from : undefined;
      if (target !== undefined && !(await this.waitForRevision(target))) {
        throw StorageError.tooLarge(target, this.cacheRevision);
      }
      this.assertReady();
      // From here to the registration nothing awaits, so no change slips between state and stream.
      const revision = this.cacheRevision;
      const initial: Array<CacheWatchEvent<T>> = this.store
        .list(keyPrefix, options.filter)
        .map(({ key, object }) => ({ type: 'ADDED', key, object, revision: revisionOf(object) }));
      if (options.sendInitialEvents === true && options.allowBookmarks) {
        initial.push({ type: 'BOOKMARK', revision, initialEventsEnd: true });
      }
      return this.register(options, keyPrefix, revision, initial, []);
    }

    let start: number;
    if (from === undefined) start = await this.storage.currentRevision(this.prefix);
    else if (from === 0) start = this.cacheRevision;
    else start = from;
    this.assertWatchable(start);
    if (start > this.cacheRevision && !(await this.waitForRevision(start))) {
      // The cache may lag behind storage; only a revision storage has not reached either is too large.
      const stored = await this.storage.currentRevision(this.prefix);
      if (stored < start) throw StorageError.tooLarge(start, stored);
    }
    this.assertReady();
    this.assertWatchable(start);
    const replay = start < this.cacheRevision ? this.window.since(start).filter((e) => e.key.startsWith(keyPrefix)) : [];
    return this.register(options, keyPrefix, start, [], replay);
  }

  // ---- following the backend ----

  private async run(): Promise<void> {
    let failures = 0;
    let quickEnds = 0;
    while (!this.stopped) {
      let events: AsyncIterator<StorageWatchEvent<T>>;
      try {
        events = await this.establish();
        failures = 0;
      } catch (error) {
        if (this.stopped) break;
        this.lose(error);
        failures++;
        await this.pause(failures);
        continue;
      }
      const since = Date.now();
      await this.follow(events);
      // The backend watch ended: the next round watches again from the revision reached, client
      // watches carrying on; only if that fails are they ended. A backend watch that keeps ending at
      // once is re-opened with backoff rather than in a tight loop.
      quickEnds = Date.now() - since < 1_000 ? quickEnds + 1 : 0;
      if (quickEnds > 1 && !this.stopped) await this.pause(quickEnds - 1);
    }
    this.backend = undefined;
  }

  /** Opens the backend watch: from the revision reached, or a fresh full read when there is none. */
  private async establish(): Promise<AsyncIterator<StorageWatchEvent<T>>> {
    if (this.initialized) {
      try {
        const watcher = await this.openBackend({ revision: this.cacheRevision });
        this.setReady(true);
        return watcher[Symbol.asyncIterator]();
      } catch (error) {
        if (!isStorageError(error, 'Expired')) throw error;
        // History is gone: clients cannot be carried over, and the cache is rebuilt below.
        this.lose(error);
        this.initialized = false;
      }
    }
    const watcher = await this.openBackend({ initialEvents: true });
    const events = watcher[Symbol.asyncIterator]();
    const objects: Array<{ key: string; object: T }> = [];
    for (;;) {
      const next = await events.next();
      if (next.done) throw new StorageError('Unavailable', 'the storage watch ended during the initial read');
      const event = next.value;
      if (event.type === 'PROGRESS') {
        if (!event.initialEventsEnd) continue;
        this.store.replace(objects);
        this.window.reset(event.revision);
        this.cacheRevision = event.revision;
        this.initialized = true;
        this.metrics.initialized?.(this.resource, objects.length);
        this.reportSize();
        this.setReady(true);
        this.notifyRevision();
        return events;
      }
      objects.push({ key: event.key, object: deepFreeze(event.object) });
    }
  }

  private async openBackend(options: { revision?: number; initialEvents?: boolean }): Promise<Watcher<T>> {
    if (this.stopped) throw new StorageError('Closed', 'watch cache stopped');
    const watcher = await this.storage.watch<T>(this.prefix, {
      ...options,
      progressIntervalMs: this.progressIntervalMs,
      bufferLimit: this.backendBufferLimit,
    });
    if (this.stopped) {
      watcher.stop();
      throw new StorageError('Closed', 'watch cache stopped');
    }
    this.backend = watcher;
    return watcher;
  }

  private async follow(events: AsyncIterator<StorageWatchEvent<T>>): Promise<void> {
    for (;;) {
      let next: IteratorResult<StorageWatchEvent<T>>;
      try {
        next = await events.next();
      } catch {
        return;
      }
      if (next.done) return;
      const event = next.value;
      if (event.type === 'PROGRESS') this.onProgress(event.revision);
      else this.apply(event);
    }
  }

  private apply(change: ChangeEvent<T>): void {
    if (change.revision <= this.cacheRevision) return;
    const previous = change.type === 'ADDED' ? undefined : (this.store.get(change.key) ?? change.prevObject);
    const entry: CacheEntry<T> = {
      type: change.type,
      key: change.key,
      object: deepFreeze(change.object),
      prevObject: previous === undefined ? undefined : deepFreeze(previous),
      revision: change.revision,
      recordedAt: this.now(),
    };
    if (change.type === 'DELETED') this.store.delete(change.key);
    else this.store.set(change.key, entry.object);
    this.window.push(entry);
    this.cacheRevision = change.revision;
    this.dispatch(entry);
    this.metrics.eventDispatched?.(this.resource);
    this.reportSize();
    this.notifyRevision();
  }

  /**
   * Offers a change to the watchers of every prefix of its key: the resource's and its namespace's.
   * Looking the prefixes up keeps the cost per change independent of how many namespaces are watched.
   */
  private dispatch(entry: CacheEntry<T>): void {
    const key = entry.key;
    for (let end = this.prefix.length; end > 0 && end <= key.length; end = key.indexOf('/', end) + 1) {
      const watchers = this.watchersByPrefix.get(key.slice(0, end));
      if (watchers !== undefined) for (const watcher of watchers) watcher.pushEntry(entry);
    }
  }

  private onProgress(revision: number): void {
    if (revision > this.cacheRevision) {
      this.cacheRevision = revision;
      this.notifyRevision();
    }
    if (this.bookmarkProgressAsked) this.sendDueBookmarks();
  }

  /** The backend is lost: not ready, and every client watch ends so that its client watches again. */
  private lose(error: unknown): void {
    this.lastError = `storage watch of ${this.resource} failed: ${errorMessage(error)}`;
    this.setReady(false);
    this.backend?.stop();
    this.backend = undefined;
    const ended = new StorageError('Unavailable', `the watch cache of ${this.resource} is re-initializing; watch again`);
    for (const watcher of [...this.watchers]) {
      watcher.fail(ended);
      this.metrics.watcherTerminated?.(this.resource, 'reinitialize');
    }
  }

  private pause(failures: number): Promise<void> {
    const base = Math.min(this.retryMaxMs, this.retryInitialMs * 2 ** Math.min(failures - 1, 30));
    const delay = base * (0.75 + Math.random() * 0.5);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.retryTimer = undefined;
        resolve();
      }, delay);
      this.retryTimer = { timer, resolve };
    });
  }

  // ---- client watches ----

  private register(
    options: CacheWatchOptions<T>,
    keyPrefix: string,
    startRevision: number,
    initial: Array<CacheWatchEvent<T>>,
    replay: Array<CacheEntry<T>>,
  ): CacheWatcher<T> {
    const watcher = new CacheWatcherChannel<T>({
      keyPrefix,
      filter: options.filter,
      allowBookmarks: options.allowBookmarks === true,
      startRevision,
      bufferLimit: options.bufferLimit ?? this.watcherBufferLimit,
      initial,
      replay,
      deadline: options.deadline,
      describe: `watch of ${this.resource}`,
      onEnd: (ended) => this.unregister(ended),
    });
    this.watchers.add(watcher);
    let sameKey = this.watchersByPrefix.get(keyPrefix);
    if (sameKey === undefined) this.watchersByPrefix.set(keyPrefix, (sameKey = new Set()));
    sameKey.add(watcher);
    if (watcher.allowBookmarks) {
      watcher.nextBookmarkAt = this.nextBookmarkTime(watcher);
      this.bookmarkWatchers.add(watcher);
    }
    this.metrics.watchersChanged?.(this.resource, this.watchers.size);
    return watcher;
  }

  private unregister(watcher: CacheWatcherChannel<T>): void {
    if (!this.watchers.delete(watcher)) return;
    const sameKey = this.watchersByPrefix.get(watcher.keyPrefix);
    sameKey?.delete(watcher);
    if (sameKey?.size === 0) this.watchersByPrefix.delete(watcher.keyPrefix);
    this.bookmarkWatchers.delete(watcher);
    this.metrics.watchersChanged?.(this.resource, this.watchers.size);
  }

  /**
   * Periodic bookmarks: when some are due, ask the backend for progress so they carry a revision as
   * new as possible, and send them when it arrives (or on the next tick if it did not).
   */
  private onBookmarkTick(): void {
    if (!this.isReady) return;
    const now = this.now();
    let due = false;
    for (const watcher of this.bookmarkWatchers) {
      if (watcher.nextBookmarkAt <= now) {
        due = true;
        break;
      }
    }
    if (!due) return;
    if (this.bookmarkProgressAsked || this.backend === undefined) {
      this.sendDueBookmarks();
      return;
    }
    this.bookmarkProgressAsked = true;
    this.backend.requestProgress();
  }

  private sendDueBookmarks(): void {
    this.bookmarkProgressAsked = false;
    const now = this.now();
    for (const watcher of [...this.bookmarkWatchers]) {
      if (watcher.nextBookmarkAt > now) continue;
      watcher.pushBookmark(this.cacheRevision);
      watcher.nextBookmarkAt = this.nextBookmarkTime(watcher);
    }
  }

  /** About every interval (less up to a tenth, so watchers started together spread out), and 2 s before the deadline. */
  private nextBookmarkTime(watcher: CacheWatcherChannel<T>): number {
    const now = this.now();
    let at = now + this.bookmarkIntervalMs * (1 - Math.random() * 0.1);
    if (watcher.deadline !== undefined) {
      at = Math.min(at, watcher.deadline - 2_000);
      if (at < now) return Number.POSITIVE_INFINITY;
    }
    return at;
  }

  // ---- revisions and readiness ----

  /** The revision a read must reflect, or undefined for "any". */
  private async readTarget(options: CacheReadOptions): Promise<number | undefined> {
    let target = options.minRevision !== undefined && options.minRevision > 0 ? options.minRevision : undefined;
    if (options.consistent && this.isReady) {
      const current = await this.storage.currentRevision(this.prefix);
      target = Math.max(target ?? 0, current);
    }
    return target;
  }

  /**
   * Whether the cache can answer a read at `target`: it is ready and reaches the revision within
   * `waitMs`. False sends the read to storage; a revision storage has not reached either fails there
   * or here with TooLargeResourceVersion.
   */
  private async servable(target: number | undefined): Promise<boolean> {
    if (!this.isReady) return false;
    if (target === undefined || target <= this.cacheRevision) return true;
    if (await this.waitForRevision(target)) return this.isReady;
    const stored = await this.storage.currentRevision(this.prefix);
    if (stored < target) throw StorageError.tooLarge(target, this.cacheRevision);
    return false;
  }

  /** Waits up to `waitMs` for the cache to reach `target`, asking the backend for progress meanwhile. */
  private waitForRevision(target: number): Promise<boolean> {
    if (this.cacheRevision >= target) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        clearInterval(nudge);
        this.revisionListeners.delete(check);
        resolve(this.cacheRevision >= target);
      };
      const check = (): void => {
        if (this.cacheRevision >= target || this.stopped) finish();
      };
      const timer = setTimeout(finish, this.waitMs);
      // A progress answer may overtake a change still in flight to the cache: ask again until done.
      const nudge = setInterval(() => this.backend?.requestProgress(), 100);
      nudge.unref();
      this.revisionListeners.add(check);
      this.backend?.requestProgress();
    });
  }

  private notifyRevision(): void {
    for (const listener of [...this.revisionListeners]) listener();
  }

  private setReady(ready: boolean): void {
    if (this.isReady === ready) return;
    this.isReady = ready && !this.stopped;
    if (this.isReady) {
      this.lastError = undefined;
      for (const listener of [...this.readyListeners]) listener();
    }
  }

  private async readyOrFail(): Promise<void> {
    if (this.stopped) throw new StorageError('Unavailable', `the watch cache of ${this.resource} is stopped`);
    if (!(await this.whenReady(this.waitMs))) this.assertReady();
  }

  private assertReady(): void {
    if (this.isReady) return;
    const why = this.stopped ? 'is stopped' : `is not ready${this.lastError ? ` (${this.lastError})` : ''}`;
    throw new StorageError('Unavailable', `the watch cache of ${this.resource} ${why}; try again later`);
  }

  private assertWatchable(start: number): void {
    const oldest = this.window.oldestWatchable;
    if (start < oldest) throw StorageError.expired(start, oldest);
  }

  private checkKey(key: string, what: 'key' | 'keyPrefix'): void {
    if (!key.startsWith(this.prefix)) {
      throw new StorageError('InvalidArgument', `${what} ${key} is not under the watch cache's prefix ${this.prefix}`, key);
    }
    if (what === 'keyPrefix' && key !== this.prefix && !key.endsWith('/')) {
      throw new StorageError('InvalidArgument', `keyPrefix ${key} must end with "/" (a namespace's prefix)`, key);
    }
  }

  private reportSize(): void {
    this.metrics.cacheSizeChanged?.(this.resource, {
      objects: this.store.size,
      events: this.window.size,
      capacity: this.window.capacity,
    });
  }
}

function revisionOf(object: StoredObject): number {
  return Number(object.metadata?.resourceVersion ?? 0);
}
