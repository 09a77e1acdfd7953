import { isExpiredOrGone, isStatus, StatusError } from '@svc/machinery';
import { Backoff, type BackoffOptions } from './backoff';
import type { Delta } from './delta';
import type { Indexer } from './indexer';
import { resourceVersionOf, type KubeObject } from './kube-object';
import type { ListerWatcher, ListerWatcherEvent, ListerWatcherListResult, WatchStream } from './lister-watcher';
import { consoleInformerLogger, type InformerLogger } from './logger';
import { compareRevisions } from './revision';
import { informerClock } from './informer-clock';
import type { QueueClock, QueueTimer } from './workqueue';

export interface ReflectorOptions {
  /** Used in log lines, e.g. `apps/v1/deployments`. */
  name?: string;
  /** Items per list page (default 500); 0 lists in one request. */
  pageSize?: number;
  /**
   * A watch that brings neither an event nor a bookmark for this long is taken for dead: it is
   * closed, the reflector reports unhealthy and relists. Default 90 s, a little over the server's
   * 60 s bookmark interval. 0 disables the check (for servers that never send bookmarks).
   */
  watchLivenessTimeoutMs?: number;
  /** Watches ask the server to end them after a random time in [this, 2x this) (default 300 s). */
  minWatchTimeoutSeconds?: number;
  /** One list request (one page) that takes longer than this fails (default 60 s). */
  listTimeoutMs?: number;
  /**
   * Being without an open watch for longer than this makes the reflector unhealthy even before an
   * attempt has failed (a client may retry a broken connection for a while before giving up).
   * Default 5 s.
   */
  reconnectGraceMs?: number;
  /** Delays between failed attempts. */
  backoff?: BackoffOptions;
  clock?: QueueClock;
  random?: () => number;
  logger?: InformerLogger;
  /**
   * Changes each object as it arrives, before the cache and the handlers see it (client-go's
   * SetTransform). By default `metadata.managedFields` are dropped: they are the larger part of a
   * small object and no controller reads them, and a write back from the cache keeps the stored
   * ones. Pass `keepObjects` (identity) to cache objects as the server sent them.
   */
  transform?: <O extends KubeObject>(object: O) => O;
}

/** The default transform: the object without `metadata.managedFields`. */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  const metadata = object.metadata;
  if (metadata?.managedFields === undefined) return object;
  // A copy without the field rather than `delete`: deleting turns the metadata into a dictionary-mode
  // object, which took twice the heap of the whole rest of a small cached object.
  const { managedFields: _dropped, ...kept } = metadata;
  object.metadata = kept;
  return object;
}

/** The transform that leaves objects as the server sent them. */
export function keepObjects<T extends KubeObject>(object: T): T {
  return object;
}

/** Who hears about what the reflector did to the store. */
export interface ReflectorListener<T> {
  /** Called after the store was changed, in order. */
  onDelta(delta: Delta<T>): void;
  /** Called once, after the first list filled the store. */
  onSynced?(): void;
}

/** The watch brought nothing, not even a bookmark, for longer than the liveness timeout. */
export class WatchStalledError extends Error {
  override readonly name = 'WatchStalledError';
}

/** The server closed a fresh watch at once without sending anything. */
export class WatchClosedEarlyError extends Error {
  override readonly name = 'WatchClosedEarlyError';
}

/** A list page did not answer within `listTimeoutMs`. */
export class ListTimeoutError extends Error {
  override readonly name = 'ListTimeoutError';
}

const DEFAULTS = {
  pageSize: 500,
  watchLivenessTimeoutMs: 90_000,
  minWatchTimeoutSeconds: 300,
  listTimeoutMs: 60_000,
  reconnectGraceMs: 5_000,
};

/** A watch that ends sooner than this without an event is a failure, not a normal timeout. */
const EARLY_CLOSE_MS = 1_000;

type WatchOutcome = 'ended' | 'stalled' | 'stopped';

class Interruption {
  constructor(readonly reason: 'stalled' | 'stopped') {}
}

const ignore = (): void => undefined;

/**
 * Keeps an {@link Indexer} equal to the server's collection (client-go's Reflector).
 *
 * - It lists, then watches from the list's resourceVersion with bookmarks, asking the server to end
 *   each watch after a random 5 to 10 minutes. When a watch ends it watches again from the last
 *   version seen; events and bookmarks both advance that version.
 * - Lists are paged (`limit`, then `continue`) and read the most recent state (resourceVersion
 *   unset), never `resourceVersion=0`: a cache served "at any version" can be older than what this
 *   reflector saw already, and time travel breaks read-your-writes. All pages share the first
 *   page's version. An expired continue token restarts the list in one request.
 * - A failed watch (connection refused or reset, 5xx) is retried from the last version after a
 *   jittered exponential backoff; only a 410 (version compacted away) leads to a relist, so an API
 *   server restart costs a watch per reflector, not a list. A 410 or a successful list starts the
 *   backoff over: the server is back, so the relist comes after the first jittered delay.
 * - A watch that stays silent past the liveness timeout is treated as dead: relist at once.
 * - A relist replaces the store and tells the listener the difference: adds, updates of objects
 *   whose resourceVersion changed, and deletes (final state unknown) of objects that vanished.
 */
export class Reflector<T extends KubeObject> {
  private readonly options: typeof DEFAULTS;
  private readonly name: string;
  private readonly clock: QueueClock;
  private readonly random: () => number;
  private readonly logger: InformerLogger;
  private readonly backoff: Backoff;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private stopped = false;
  private synced = false;
  private failing = false;
  private error: Error | undefined;
  private lastResourceVersion = '';
  private relists = 0;
  private watchOpen = false;
  private disconnectedSince = 0;
  private readonly transform: (object: T) => T;

  constructor(
    private readonly listerWatcher: ListerWatcher<T>,
    private readonly store: Indexer<T>,
    private readonly listener: ReflectorListener<T> = { onDelta: ignore },
    options: ReflectorOptions = {},
  ) {
    this.options = {
      pageSize: options.pageSize ?? DEFAULTS.pageSize,
      watchLivenessTimeoutMs: options.watchLivenessTimeoutMs ?? DEFAULTS.watchLivenessTimeoutMs,
      minWatchTimeoutSeconds: options.minWatchTimeoutSeconds ?? DEFAULTS.minWatchTimeoutSeconds,
      listTimeoutMs: options.listTimeoutMs ?? DEFAULTS.listTimeoutMs,
      reconnectGraceMs: options.reconnectGraceMs ?? DEFAULTS.reconnectGraceMs,
    };
    this.name = options.name ?? 'reflector';
    this.clock = options.clock ?? informerClock;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? consoleInformerLogger;
    this.backoff = new Backoff(options.backoff, this.clock, this.random);
    this.transform = options.transform ?? stripManagedFields;
  }

  /** Starts listing and watching; a no-op when already started. */
  start(): void {
    if (this.loop || this.stopped) return;
    this.disconnectedSince = this.clock.now();
    this.loop = this.run();
  }

  /** Stops for good: closes the watch and ends the loop. */
  async stop(): Promise<void> {
    if (this.stopped) return this.loop;
    this.stopped = true;
    this.abort.abort();
    await this.loop;
  }

  /** The first list has filled the store. */
  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Synced, no failure since the last watch opened, and a watch open (or reopening for less than
   * `reconnectGraceMs`). False while a failed watch is being retried, a stalled one replaced or a
   * relist after 410 is under way: readiness reports it.
   */
  healthy(): boolean {
    if (!this.synced || this.failing || this.stopped) return false;
    return this.watchOpen || this.clock.now() - this.disconnectedSince < this.options.reconnectGraceMs;
  }

  /** The last failure (kept after recovery, for diagnostics). */
  get lastError(): Error | undefined {
    return this.error;
  }

  /** The newest version seen: from the last list, event or bookmark. */
  lastSyncResourceVersion(): string {
    return this.lastResourceVersion;
  }

  /** Number of lists done so far (the first one included). */
  get listCount(): number {
    return this.relists;
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.listAndReplace();
          needList = false;
          this.backoff.reset();
        }
        const outcome = await this.watchOnce();
        if (outcome === 'stalled') {
          const limit = this.options.watchLivenessTimeoutMs;
          this.fail(new WatchStalledError(`watch brought no event or bookmark for ${limit} ms`));
          this.logger.warn(`${this.name}: watch stalled for ${limit} ms; relisting`);
          needList = true;
        }
      } catch (error) {
        if (this.stopped) break;
        const err = asError(error);
        this.fail(err);
        if (isExpiredOrGone(err)) {
          this.logger.info(`${this.name}: resourceVersion ${this.lastResourceVersion} is gone; relisting`);
          needList = true;
          // The server answered: whatever backoff an outage built up, relist after the first,
          // jittered delay (the jitter still spreads the relists of many reflectors).
          this.backoff.reset();
        } else {
          this.logger.warn(`${this.name}: ${needList ? 'list' : 'watch'} failed; retrying`, err);
        }
        await this.sleep(this.backoff.next());
      }
    }
  }

  private fail(error: Error): void {
    this.failing = true;
    this.error = error;
  }

  private async listAndReplace(): Promise<void> {
    const list = await this.listAll();
    const resourceVersion = list.metadata.resourceVersion ?? '';
    if (this.stopped) return;
    const deltas = this.diffAgainstStore(list.items);
    this.store.replace(list.items, resourceVersion);
    this.lastResourceVersion = resourceVersion;
    this.relists++;
    for (const delta of deltas) this.listener.onDelta(delta);
    if (!this.synced) {
      this.synced = true;
      this.listener.onSynced?.();
    }
  }

  private async listAll(): Promise<ListerWatcherListResult<T>> {
    const limit = this.options.pageSize > 0 ? this.options.pageSize : undefined;
    const items: T[] = [];
    let resourceVersion: string | undefined;
    let token: string | undefined;
    do {
      let page: ListerWatcherListResult<T>;
      try {
        page = await this.withListTimeout((signal) => this.listerWatcher.list({ limit, continue: token, signal }));
      } catch (error) {
        if (token === undefined || !isExpiredOrGone(error)) throw error;
        // The snapshot behind the token expired (lists longer than its lifetime): one full list.
        this.logger.info(`${this.name}: continue token expired; listing in one request`);
        return this.withListTimeout((signal) => this.listerWatcher.list({ signal }));
      }
      resourceVersion ??= page.metadata.resourceVersion;
      for (const item of page.items) items.push(this.transform(item));
      token = page.metadata.continue || undefined;
    } while (token !== undefined && limit !== undefined && !this.stopped);
    return { items, metadata: { resourceVersion } };
  }

  private async withListTimeout<R>(call: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const controller = new AbortController();
    let timer: QueueTimer | undefined;
    let removeStopListener: () => void = ignore;
    // Raced rather than trusted to the signal: a list stuck on a half-open connection must not
    // hold the reflector even if the ListerWatcher ignores its signal.
    const giveUp = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => {
        controller.abort();
        reject(new ListTimeoutError(`list did not answer within ${this.options.listTimeoutMs} ms`));
      }, this.options.listTimeoutMs);
      removeStopListener = this.onStop(() => {
        controller.abort();
        reject(new Error('reflector stopped'));
      });
    });
    const pending = Promise.resolve().then(() => call(controller.signal));
    pending.catch(ignore);
    try {
      return await Promise.race([pending, giveUp]);
    } finally {
      timer?.cancel();
      removeStopListener();
    }
  }

  private diffAgainstStore(items: readonly T[]): Delta<T>[] {
    const deltas: Delta<T>[] = [];
    const seen = new Set<string>();
    const initial = !this.synced;
    for (const object of items) {
      const key = this.store.keyOf(object);
      seen.add(key);
      const oldObject = this.store.getByKey(key);
      if (oldObject === undefined) deltas.push({ type: 'added', object, isInInitialList: initial });
      else if (resourceVersionOf(oldObject) !== resourceVersionOf(object)) deltas.push({ type: 'updated', oldObject, object });
    }
    for (const key of this.store.listKeys()) {
      if (seen.has(key)) continue;
      deltas.push({ type: 'deleted', object: this.store.getByKey(key) as T, finalStateUnknown: true });
    }
    return deltas;
  }

  private async watchOnce(): Promise<WatchOutcome> {
    const livenessMs = this.options.watchLivenessTimeoutMs;
    let timer: QueueTimer | undefined;
    // One controller per watch: aborting it when this watch is over closes the request, and the
    // ListerWatcher's listeners never pile up on a signal that lives as long as the reflector.
    const controller = new AbortController();
    // A stall or a stop wakes whatever the watch is waiting for. Not a Promise.race against one
    // long-lived promise: that would keep a reaction per event alive for the watch's lifetime.
    let interrupted: Interruption | undefined;
    let wake: ((interruption: Interruption) => void) | undefined;
    const interrupt = (interruption: Interruption) => {
      interrupted ??= interruption;
      wake?.(interruption);
    };
    const removeStopListener = this.onStop(() => interrupt(new Interruption('stopped')));
    const untilInterrupted = <R>(pending: Promise<R>): Promise<R | Interruption> => {
      if (interrupted) {
        pending.catch(ignore);
        return Promise.resolve(interrupted);
      }
      return new Promise<R | Interruption>((resolve, reject) => {
        wake = resolve;
        pending.then(resolve, reject);
      }).finally(() => {
        wake = undefined;
      });
    };
    // Liveness counts silence: each arrival only notes the time, and one timer at a time checks it
    // (a timer set again per event was a tenth of an informer's CPU while it worked through a backlog).
    let lastArrival = this.clock.now();
    const checkLiveness = () => {
      const silentMs = this.clock.now() - lastArrival;
      if (silentMs >= livenessMs) interrupt(new Interruption('stalled'));
      else timer = this.clock.setTimeout(checkLiveness, livenessMs - silentMs);
    };

    const minTimeout = this.options.minWatchTimeoutSeconds;
    const timeoutSeconds = Math.floor(minTimeout * (1 + this.random()));
    let stream: WatchStream<T> | undefined;
    let iterator: AsyncIterator<readonly ListerWatcherEvent<T>[]> | undefined;
    if (livenessMs > 0) timer = this.clock.setTimeout(checkLiveness, livenessMs);
    try {
      const opening = Promise.resolve().then(() =>
        this.listerWatcher.watch({
          resourceVersion: this.lastResourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          signal: controller.signal,
        }),
      );
      const opened = await untilInterrupted(opening);
      if (opened instanceof Interruption) {
        opening.then((s) => s.stop(), ignore);
        return opened.reason;
      }
      stream = opened;
      this.failing = false;
      this.watchOpen = true;
      const startedAt = this.clock.now();
      let events = 0;
      iterator = batchesOf(stream);
      for (;;) {
        const result = await untilInterrupted(iterator.next());
        if (result instanceof Interruption) return result.reason;
        if (result.done) {
          if (events === 0 && this.clock.now() - startedAt < EARLY_CLOSE_MS) {
            throw new WatchClosedEarlyError('the server closed the watch at once without sending anything');
          }
          return 'ended';
        }
        lastArrival = this.clock.now();
        for (const event of result.value) {
          if (interrupted) return interrupted.reason;
          events++;
          this.applyEvent(event);
        }
      }
    } finally {
      if (this.watchOpen) {
        this.watchOpen = false;
        this.disconnectedSince = this.clock.now();
      }
      timer?.cancel();
      removeStopListener();
      stream?.stop();
      controller.abort();
      // A half-open connection may never settle its iterator; nothing waits for it.
      iterator?.return?.()?.catch(ignore);
    }
  }

  private applyEvent(event: ListerWatcherEvent<T>): void {
    switch (event.type) {
      case 'BOOKMARK':
        this.advance(resourceVersionOf(event.object));
        return;
      case 'ERROR':
        throw errorFromWatchStatus(event.object);
      case 'ADDED':
      case 'MODIFIED':
        this.applyUpsert(this.transform(event.object));
        return;
      case 'DELETED':
        this.applyDelete(this.transform(event.object));
        return;
      default:
        this.logger.warn(`${this.name}: ignoring watch event of unknown type ${JSON.stringify((event as { type: unknown }).type)}`);
    }
  }

  private applyUpsert(object: T): void {
    const key = this.keyOrUndefined(object);
    if (key === undefined) return;
    const oldObject = this.store.getByKey(key);
    const rv = resourceVersionOf(object);
    // A replayed event older than what the cache holds would move the object back in time.
    if (oldObject === undefined || (compareRevisions(rv, resourceVersionOf(oldObject)) ?? 1) > 0) {
      this.store.update(object);
      this.listener.onDelta(oldObject === undefined ? { type: 'added', object, isInInitialList: false } : { type: 'updated', oldObject, object });
    }
    this.advance(rv);
  }

  private applyDelete(object: T): void {
    const key = this.keyOrUndefined(object);
    if (key === undefined) return;
    if (this.store.getByKey(key) !== undefined) {
      this.store.deleteKey(key);
      this.listener.onDelta({ type: 'deleted', object, finalStateUnknown: false });
    }
    this.advance(resourceVersionOf(object));
  }

  private advance(resourceVersion: string): void {
    if (!resourceVersion) return;
    this.lastResourceVersion = resourceVersion;
    this.store.observeResourceVersion(resourceVersion);
  }

  private keyOrUndefined(object: T): string | undefined {
    try {
      return this.store.keyOf(object);
    } catch (error) {
      this.logger.warn(`${this.name}: ignoring watch event for an object without a key`, error);
      return undefined;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const removeStopListener = this.onStop(() => {
        timer.cancel();
        resolve();
      });
      const timer = this.clock.setTimeout(() => {
        removeStopListener();
        resolve();
      }, ms);
    });
  }

  /** Runs `callback` when the reflector stops (at once if it has); returns the unsubscribe. */
  private onStop(callback: () => void): () => void {
    const signal = this.abort.signal;
    if (signal.aborted) {
      callback();
      return ignore;
    }
    signal.addEventListener('abort', callback, { once: true });
    return () => signal.removeEventListener('abort', callback);
  }
}

/** The stream's own batches, or its events one per batch. */
function batchesOf<T>(stream: WatchStream<T>): AsyncIterator<readonly ListerWatcherEvent<T>[]> {
  if (typeof stream.batches === 'function') return stream.batches()[Symbol.asyncIterator]();
  const events = stream[Symbol.asyncIterator]();
  return {
    next: () => events.next().then((r) => (r.done ? { done: true, value: undefined } : { done: false, value: [r.value] })),
    return: () => (events.return?.() ?? Promise.resolve({ done: true, value: undefined })).then(() => ({ done: true, value: undefined })),
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** An ERROR watch event as a thrown StatusError (410 among them, which leads to a relist). */
function errorFromWatchStatus(object: unknown): Error {
  if (isStatus(object)) return new StatusError(object);
  return new Error(`watch ERROR event: ${JSON.stringify(object)}`);
}
